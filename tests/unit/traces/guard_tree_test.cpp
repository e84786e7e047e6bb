// Tests for the guard parsers: C++ guard tree text, the legacy dynamo_guards JSON list, and describeGuard.
#include "parse/guard_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace traces {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> kindsOf(const std::vector<Guard>& guards) {
    std::vector<std::string> kinds;
    for (const Guard& guard : guards) kinds.push_back(guard.kind);
    return kinds;
}

std::vector<int> depthsOf(const std::vector<Guard>& guards) {
    std::vector<int> depths;
    for (const Guard& guard : guards) depths.push_back(guard.depth);
    return depths;
}

Guard makeGuard(std::string kind, std::string text, std::string source = "") {
    Guard guard;
    guard.kind = std::move(kind);
    guard.text = std::move(text);
    guard.source = std::move(source);
    return guard;
}

// Shaped like a dynamo_cpp_guards_str payload (it starts with an empty line, as PyTorch writes it).
constexpr std::string_view kTree = R"TREE(
TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GLOBAL_STATE: ___check_global_state() against {"allow_tf32":false,"default_dtype":6,"grad_mode":true,"num_threads":2}
| +- TORCH_FUNCTION_MODE_STACK: ___check_torch_function_mode_stack()
| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:951 in init_ambient_guards
| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=0), type=<class 'torch.Tensor'>, tag_safe=(True, False)
| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8, 16], stride=[16, 1])  # return torch.sin(x) + y  # prog/f.py:6 in f
| | +- NO_HASATTR: hasattr(L['x'], '_dynamo_dynamic_indices') == False           # return torch.sin(x) + y  # prog/f.py:6 in f
| +- GuardManager: source=G, accessed_by=GlobalsGuardAccessor, type=<class 'dict'>, tag_safe=(False, False)
| | +- GuardManager: source=G['torch'], accessed_by=DictGetItemGuardAccessor('torch'), type=<class 'module'>, tag_safe=(False, False)
| | | +- ID_MATCH: ___check_obj_id(G['torch'], 140509700359568), type=<module 'torch' from '/venv/torch/__init__.py'>  # return torch.sin(x) + y  # prog/f.py:6 in f
| | | +- GuardManager: source=G['torch'].sin, accessed_by=GetAttrGuardAccessor(sin), type=<class 'builtin_function_or_method'>, tag_safe=(True, False)
| | | | +- ID_MATCH: ___check_obj_id(G['torch'].sin, 140509698642608), type=<built-in method sin of type object at 0x7fca6f53e180>  # return torch.sin(x) + y  # prog/f.py:6 in f
| +- GuardManager: source=L['y'], accessed_by=FrameLocalsGuardAccessor(key='y', framelocals_idx=1), type=<class 'int'>, tag_safe=(True, False)
| | +- EQUALS_MATCH: L['y'] == 3                                                    # return torch.sin(x) + y  # prog/f.py:6 in f
+- LAMBDA_GUARD: 2 <= L['x'].size()[0] <= 4096  # return torch.sin(x) + y  # prog/f.py:6 in f

Guard latency = 38.34 us
)TREE";

TEST(GuardTree, NestedManagersGiveKindsDepthsAndSources) {
    std::vector<Guard> guards = parseCppGuardTree(kTree);
    EXPECT_THAT(kindsOf(guards),
                ElementsAre("GuardManager", "GLOBAL_STATE", "TORCH_FUNCTION_MODE_STACK", "DEFAULT_DEVICE",
                            "GuardManager", "TENSOR_MATCH", "NO_HASATTR", "GuardManager", "GuardManager", "ID_MATCH",
                            "GuardManager", "ID_MATCH", "GuardManager", "EQUALS_MATCH", "LAMBDA_GUARD"));
    EXPECT_THAT(depthsOf(guards), ElementsAre(0, 1, 1, 1, 1, 2, 2, 1, 2, 3, 3, 4, 1, 2, 0));
    for (size_t i = 0; i < guards.size(); ++i) EXPECT_EQ(guards[i].index, static_cast<int>(i));

    EXPECT_EQ(guards[0].text, "RootGuardManager");
    EXPECT_TRUE(guards[0].source.empty());
    EXPECT_EQ(guards[4].source, "L['x']");
    EXPECT_EQ(guards[5].source, "L['x']");
    EXPECT_EQ(guards[6].source, "L['x']");
    EXPECT_EQ(guards[7].source, "G");
    EXPECT_EQ(guards[9].source, "G['torch']");
    EXPECT_EQ(guards[11].source, "G['torch'].sin");
    EXPECT_EQ(guards[13].source, "L['y']");  // the L['x'] manager closed when L['y'] opened at the same depth
    EXPECT_EQ(guards[14].source, "L['x']");  // no manager above the epilogue guard: taken from its expression
    EXPECT_TRUE(guards[1].source.empty());
}

TEST(GuardTree, LeafTextAndUserCodeAreSplitAtTheComment) {
    std::vector<Guard> guards = parseCppGuardTree(kTree);
    ASSERT_EQ(guards.size(), 15u);
    const Guard& tensor = guards[5];
    EXPECT_EQ(tensor.text, "check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, "
                           "AutogradCPU), torch.float32, device=None, requires_grad=False, size=[8, 16], stride=[16, 1])");
    EXPECT_EQ(tensor.userCode, "return torch.sin(x) + y  # prog/f.py:6 in f");
    EXPECT_EQ(tensor.checks, "x is a Tensor with dtype torch.float32, size [8, 16], stride [16, 1], requires_grad=False, "
                             "device cpu");
    EXPECT_EQ(guards[3].text, "utils_device.CURRENT_DEVICE == None");  // padding before the comment is dropped
    EXPECT_EQ(guards[3].userCode, "_dynamo/output_graph.py:951 in init_ambient_guards");
    EXPECT_EQ(guards[13].text, "L['y'] == 3");
    EXPECT_EQ(guards[13].checks, "y equals 3");
    EXPECT_TRUE(guards[2].userCode.empty());
    EXPECT_EQ(guards[14].checks, "condition holds: 2 <= x.size()[0] <= 4096");
    EXPECT_EQ(guards[9].checks, "G['torch'] is the same object as at compile time (module torch)");
    EXPECT_EQ(guards[4].checks, "checks on x (type torch.Tensor)");
    EXPECT_THAT(guards[1].checks, HasSubstr("grad mode on"));
}

TEST(GuardTree, LatencyTrailer) {
    ASSERT_TRUE(guardLatencyUs(kTree).has_value());
    EXPECT_DOUBLE_EQ(*guardLatencyUs(kTree), 38.34);
    EXPECT_FALSE(guardLatencyUs("TREE_GUARD_MANAGER:\n+- RootGuardManager\n").has_value());
    EXPECT_FALSE(guardLatencyUs("Guard latency = fast us").has_value());
    EXPECT_FALSE(guardLatencyUs("").has_value());
}

TEST(GuardTree, DictManagersAndBareLeafKinds) {
    std::vector<Guard> guards = parseCppGuardTree(R"TREE(TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GuardManager: source=L['self']._modules, accessed_by=DictGetItemGuardAccessor('_modules'), type=<class 'dict'>, tag_safe=(True, False)
| | +- DICT_LENGTH: len(L['self']._modules) == 1
| | +- DictGuardManager: source=L['self']._modules['layers']._modules, accessed_by=DictGetItemGuardAccessor('_modules')
| | | +- KeyValueManager pair at index=0
| | | | +- KeyManager: GuardManager: source=list(L['self']._modules['layers']._modules.keys())[0]
| | | | | +- EQUALS_MATCH: list(L['self']._modules['layers']._modules.keys())[0] == '0'
| | | | +- ValueManager: GuardManager: source=L['self']._modules['layers']._modules['0']
| | | | | +- TYPE_MATCH: ___check_type_id(L['self']._modules['layers']._modules['0'], 880650288), type=<class 'torch.nn.modules.linear.Linear'>
| +- GuardManager: source=L['args'], accessed_by=FrameLocalsGuardAccessor(key='args', framelocals_idx=0), type=<class 'tuple'>
| | +- LENGTH_CHECK: len(L['args']) == 2
| | +- NO_TENSOR_ALIASING
)TREE");
    EXPECT_THAT(kindsOf(guards), ElementsAre("GuardManager", "GuardManager", "DICT_LENGTH", "GuardManager", "GuardManager",
                                             "GuardManager", "EQUALS_MATCH", "GuardManager", "TYPE_MATCH",
                                             "GuardManager", "LENGTH_CHECK", "NO_TENSOR_ALIASING"));
    EXPECT_THAT(depthsOf(guards), ElementsAre(0, 1, 2, 2, 3, 4, 5, 4, 5, 1, 2, 2));
    EXPECT_TRUE(isGuardManagerKind(guards[5].kind));
    EXPECT_FALSE(isGuardManagerKind(guards[6].kind));
    EXPECT_EQ(guards[3].text, "DictGuardManager: source=L['self']._modules['layers']._modules, "
                              "accessed_by=DictGetItemGuardAccessor('_modules')");
    EXPECT_EQ(guards[5].source, "list(L['self']._modules['layers']._modules.keys())[0]");
    EXPECT_EQ(guards[6].source, guards[5].source);
    EXPECT_EQ(guards[8].source, "L['self']._modules['layers']._modules['0']");
    EXPECT_EQ(guards[8].checks, "type of self._modules['layers']._modules['0'] is exactly torch.nn.modules.linear.Linear");
    EXPECT_EQ(guards[2].checks, "dict self._modules has 1 entry");
    EXPECT_EQ(guards[4].checks, "a key/value pair of the dict (pair at index=0)");
    EXPECT_EQ(guards[10].checks, "args has length 2");
    EXPECT_TRUE(guards[11].text.empty());
    EXPECT_EQ(guards[11].source, "L['args']");
    EXPECT_EQ(guards[11].checks, "input tensors do not alias each other");
}

TEST(GuardTree, EmptyAndMalformedInput) {
    EXPECT_THAT(parseCppGuardTree(""), IsEmpty());
    EXPECT_THAT(parseCppGuardTree("TREE_GUARD_MANAGER:\n\nGuard latency = 1.0 us\n"), IsEmpty());

    std::vector<Guard> guards;
    EXPECT_NO_THROW(guards = parseCppGuardTree(
                        "| | | +- \n+-\n| +- lower case words here\n| +- TYPE_MATCH: ___check_type_id(L['x'\n"
                        "| | | | | | | +- ID_MATCH: ___check_obj_id(L['f'], 1)  # it's unbalanced ' quote\n"));
    ASSERT_EQ(guards.size(), 5u);
    EXPECT_EQ(guards[2].kind, "UNKNOWN");
    EXPECT_EQ(guards[2].text, "lower case words here");
    EXPECT_EQ(guards[3].kind, "TYPE_MATCH");
    EXPECT_EQ(guards[4].depth, 7);
    EXPECT_EQ(guards[4].text, "___check_obj_id(L['f'], 1)");
    EXPECT_EQ(guards[4].userCode, "it's unbalanced ' quote");
}

TEST(GuardTree, LinesOutsideTheTreeContinueTheGuardAbove) {
    std::vector<Guard> guards = parseCppGuardTree("+- RootGuardManager\n"
                                                  "| +- LAMBDA_GUARD: (L['a'] == 1 and\n"
                                                  "    L['b'] == 2)\n");
    ASSERT_EQ(guards.size(), 2u);
    EXPECT_EQ(guards[1].text, "(L['a'] == 1 and\n    L['b'] == 2)");
    EXPECT_EQ(guards[1].source, "L['a']");
}

TEST(GuardTree, DescribeEachKindInPlainWords) {
    EXPECT_EQ(describeGuard(makeGuard("TENSOR_MATCH",
                                      "check_tensor(L['w'], Parameter, DispatchKeySet(CUDA, BackendSelect, AutogradCUDA), "
                                      "torch.bfloat16, device=0, requires_grad=True, size=[None, 16], stride=[16, 1])")),
              "w is a Parameter with dtype torch.bfloat16, size [dynamic, 16], stride [16, 1], requires_grad=True, "
              "device cuda:0");
    EXPECT_EQ(describeGuard(makeGuard("TYPE_MATCH", "___check_type_id(L['x'], 667332528), type=<class 'torch.Tensor'>")),
              "type of x is exactly torch.Tensor");
    EXPECT_EQ(describeGuard(makeGuard("TYPE_MATCH", "___check_type_id(L['x'], 667332528)")),
              "type of x is exactly the type seen at compile time");
    EXPECT_EQ(describeGuard(makeGuard("ID_MATCH", "___check_obj_id(L['fn'], 139870659812992)")),
              "fn is the same object as at compile time");
    EXPECT_EQ(describeGuard(makeGuard("CONSTANT_MATCH", "L['mode'] == 'train'")), "mode equals 'train'");
    EXPECT_EQ(describeGuard(makeGuard("FALSE_MATCH", "G['USE_RELU'] == False")), "G['USE_RELU'] is False");
    EXPECT_EQ(describeGuard(makeGuard("NONE_MATCH", "L['self'].bias is None")), "self.bias is None");
    EXPECT_EQ(describeGuard(makeGuard("LENGTH_CHECK", "len(L['ys']) == 2")), "ys has length 2");
    EXPECT_EQ(describeGuard(makeGuard("DICT_LENGTH", "not L['kwargs']")), "dict kwargs is empty");
    EXPECT_EQ(describeGuard(makeGuard("DICT_LENGTH", "len(L['d']) == 3")), "dict d has 3 entries");
    EXPECT_THAT(describeGuard(makeGuard("GLOBAL_STATE", "___check_global_state() against {\"grad_mode\":false}")),
                HasSubstr("grad mode off"));
    EXPECT_THAT(describeGuard(makeGuard("GLOBAL_STATE", "___check_global_state() against {broken")),
                HasSubstr("global torch state"));
    EXPECT_EQ(describeGuard(makeGuard("DEFAULT_DEVICE", "utils_device.CURRENT_DEVICE == None")),
              "default device (torch.set_default_device) is still None");
    EXPECT_EQ(describeGuard(makeGuard("TORCH_FUNCTION_MODE_STACK", "___check_torch_function_mode_stack()")),
              "the stack of active TorchFunctionModes is as at compile time");
    EXPECT_EQ(describeGuard(makeGuard("NO_HASATTR", "hasattr(L['x'], '_dynamo_dynamic_indices') == False")),
              "x has no attribute '_dynamo_dynamic_indices'");
    EXPECT_EQ(describeGuard(makeGuard("DICT_CONTAINS", "not ___dict_contains('forward', L['m'].__dict__)")),
              "m.__dict__ has no key 'forward'");
    EXPECT_EQ(describeGuard(makeGuard("NO_TENSOR_ALIASING", "check_no_aliasing(L['a'], L['b'])")),
              "tensors a, b do not alias each other");
    EXPECT_EQ(describeGuard(makeGuard("OBJECT_ALIASING", "G['F'] is G['mod'].F")), "G['F'] and G['mod'].F are the same object");
    EXPECT_EQ(describeGuard(makeGuard("LAMBDA_GUARD", "L['x'].size()[0] == L['y'].size()[0]")),
              "condition holds: x.size()[0] == y.size()[0]");
    EXPECT_EQ(describeGuard(makeGuard("GRAD_MODE", "not ___is_grad_enabled()")), "grad mode is disabled");
    EXPECT_EQ(describeGuard(makeGuard("WEIRD_NEW_GUARD", "some_check(L['z'])")), "WEIRD_NEW_GUARD: some_check(z)");
    EXPECT_EQ(describeGuard(makeGuard("WEIRD_NEW_GUARD", "")), "WEIRD_NEW_GUARD");
    EXPECT_EQ(describeGuard(makeGuard("GuardManager", "GuardManager: source=L['cfg'], accessed_by=X", "L['cfg']")),
              "checks on cfg");
}

constexpr std::string_view kGuardList = R"JSON([
{"code": "hasattr(L['x'], '_dynamo_dynamic_indices') == False", "stack": null, "user_stack": null},
{"code": "utils_device.CURRENT_DEVICE == None", "stack": [{"line": 10079, "name": "<module>", "filename": 0}], "user_stack": null},
{"code": "___check_obj_id(L['fn'], 140439264606080)", "stack": null, "user_stack": [{"line": 3, "name": "main", "filename": 1}, {"line": 9, "name": "f", "filename": 2, "loc": "return fn(x)"}]},
{"code": "check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[4, 4], stride=[4, 1])", "stack": null, "user_stack": [{"line": 12, "name": "g", "filename": 2}]},
{"code": "L['i'] == 1", "stack": null, "user_stack": null},
{"code": "L['x'].size()[0] < 10", "stack": null, "user_stack": null}
])JSON";

TEST(GuardListJson, KindsDerivedFromCode) {
    std::vector<Guard> guards = parseGuardListJson(kGuardList);
    EXPECT_THAT(kindsOf(guards), ElementsAre("NO_HASATTR", "DEFAULT_DEVICE", "ID_MATCH", "TENSOR_MATCH", "EQUALS_MATCH",
                                             "LAMBDA_GUARD"));
    EXPECT_THAT(depthsOf(guards), ElementsAre(0, 0, 0, 0, 0, 0));
    EXPECT_EQ(guards[2].index, 2);
    EXPECT_EQ(guards[0].source, "L['x']");
    EXPECT_EQ(guards[2].text, "___check_obj_id(L['fn'], 140439264606080)");
    EXPECT_EQ(guards[2].userCode, "return fn(x)");
    EXPECT_EQ(guards[3].userCode, "line 12 in g");  // 2024 logs have no loc: the frame's position instead
    EXPECT_TRUE(guards[1].userCode.empty());
    EXPECT_EQ(guards[3].checks, "x is a Tensor with dtype torch.float32, size [4, 4], stride [4, 1], requires_grad=False, "
                                "device cpu");
    EXPECT_EQ(guards[5].source, "L['x']");
}

TEST(GuardListJson, DamagedPayloadsGiveWhatParses) {
    EXPECT_THAT(parseGuardListJson(""), IsEmpty());
    EXPECT_THAT(parseGuardListJson("[]"), IsEmpty());
    EXPECT_THAT(parseGuardListJson("not json at all"), IsEmpty());
    EXPECT_THAT(parseGuardListJson("[1, \"two\", {\"nocode\": 3}, {\"code\": 4}]"), IsEmpty());

    // One list line lost (md5 mismatch in the log) and the rest cut off.
    std::vector<Guard> guards = parseGuardListJson(
        "[\n"
        "{\"code\": \"___check_type_id(L['x'], 93847), type=<class 'int'>\", \"stack\": null, \"user_stack\": null},\n"
        "{\"code\": \"L['x'] == 3\", \"stack\": nu\n"
        "{\"code\": \"___check_obj_id(G['torch'], 1)\", \"stack\": null, \"user_stack\": null},\n");
    EXPECT_THAT(kindsOf(guards), ElementsAre("TYPE_MATCH", "ID_MATCH"));
    EXPECT_EQ(guards[1].index, 1);
}

}  // namespace
}  // namespace traces
