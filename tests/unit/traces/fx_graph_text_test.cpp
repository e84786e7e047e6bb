// Tests for parseFxGraphText / parseFxValueType on excerpts shaped like Dynamo, AOT and Inductor graph payloads.
#include "parse/fx_graph_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace traces {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const GraphNode* findNode(const std::vector<GraphNode>& nodes, std::string_view name) {
    auto it = std::find_if(nodes.begin(), nodes.end(), [name](const GraphNode& n) { return n.name == name; });
    return it == nodes.end() ? nullptr : &*it;
}

std::vector<std::string> namesOf(const std::vector<GraphNode>& nodes) {
    std::vector<std::string> names;
    for (const GraphNode& node : nodes) names.push_back(node.name);
    return names;
}

constexpr std::string_view kDynamoMlp = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_fc1_parameters_weight_: "f32[64, 32][32, 1]cpu", L_x_: "f32[8, 32][32, 1]cpu"):
        l_self_modules_fc1_parameters_weight_ = L_self_modules_fc1_parameters_weight_
        l_x_ = L_x_

        # File: models/mlp.py:13 in forward, code: return self.act(self.fc1(x))
        linear: "f32[8, 64][64, 1]cpu" = torch._C._nn.linear(l_x_, l_self_modules_fc1_parameters_weight_);  l_x_ = l_self_modules_fc1_parameters_weight_ = None
        gelu: "f32[8, 64][64, 1]cpu" = torch._C._nn.gelu(linear, approximate = 'none');  linear = None
        return (gelu,)
)FX";

TEST(FxGraphText, DynamoGraphGivesPlaceholdersCallsAndOutput) {
    std::vector<GraphNode> nodes = parseFxGraphText(kDynamoMlp);
    ASSERT_EQ(nodes.size(), 5u);
    EXPECT_THAT(namesOf(nodes), ElementsAre("l_self_modules_fc1_parameters_weight_", "l_x_", "linear", "gelu", "output"));
    for (size_t i = 0; i < nodes.size(); ++i) EXPECT_EQ(nodes[i].index, static_cast<int>(i));

    const GraphNode& x = nodes[1];
    EXPECT_EQ(x.op, "placeholder");
    EXPECT_EQ(x.target, "L_x_");  // FX prints `l_x_ = L_x_` because the node is l_x_ and its argument L_x_
    EXPECT_EQ(x.dtype, "f32");
    EXPECT_EQ(x.shape, "[8, 32]");
    EXPECT_EQ(x.stride, "[32, 1]");
    EXPECT_EQ(x.device, "cpu");
    EXPECT_TRUE(x.sourceFile.empty());

    const GraphNode& linear = nodes[2];
    EXPECT_EQ(linear.op, "call_function");
    EXPECT_EQ(linear.target, "torch._C._nn.linear");
    EXPECT_EQ(linear.args, "l_x_, l_self_modules_fc1_parameters_weight_");
    EXPECT_THAT(linear.inputs, ElementsAre("l_x_", "l_self_modules_fc1_parameters_weight_"));
    EXPECT_EQ(linear.shape, "[8, 64]");
    EXPECT_EQ(linear.sourceFile, "models/mlp.py");
    EXPECT_EQ(linear.sourceLine, 13);
    EXPECT_EQ(linear.sourceFunction, "forward");
    EXPECT_EQ(linear.sourceCode, "return self.act(self.fc1(x))");

    EXPECT_EQ(nodes[3].args, "linear, approximate = 'none'");
    EXPECT_THAT(nodes[3].inputs, ElementsAre("linear"));
    EXPECT_EQ(nodes[3].sourceLine, 13);

    const GraphNode& output = nodes[4];
    EXPECT_EQ(output.op, "output");
    EXPECT_EQ(output.target, "output");
    EXPECT_EQ(output.args, "(gelu,)");
    EXPECT_THAT(output.inputs, ElementsAre("gelu"));
    EXPECT_TRUE(output.sourceFile.empty());
}

TEST(FxGraphText, DeletionSuffixAndKeywordNamesAreNotInputs) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu", dim: "Sym(s0)", L_y_: "f32[4][1]cpu"):
        l_x_ = L_x_
        l_y_ = L_y_
        cos: "f32[4][1]cpu" = torch.cos(l_x_);  l_x_ = l_y_ = None
        max_1 = cos.max(dim = -1, keepdim = True);  cos = None
        twice: "f32[4][1]cpu" = torch.add(max_1, max_1, alpha = 2)
        return (twice,)
)FX");
    const GraphNode* cos = findNode(nodes, "cos");
    ASSERT_NE(cos, nullptr);
    EXPECT_THAT(cos->inputs, ElementsAre("l_x_"));
    const GraphNode* max = findNode(nodes, "max_1");
    ASSERT_NE(max, nullptr);
    EXPECT_EQ(max->op, "call_method");
    EXPECT_EQ(max->target, "max");
    EXPECT_THAT(max->inputs, ElementsAre("cos"));  // `dim = -1` names a keyword, not the placeholder dim
    EXPECT_TRUE(max->shape.empty());
    EXPECT_THAT(findNode(nodes, "twice")->inputs, ElementsAre("max_1"));  // de-duplicated
}

TEST(FxGraphText, InPlaceOperatorsAreNodesNamedInTheirSecondStatement) {
    // As Dynamo prints torchvision ResNet's residual add (`out += identity`) and an item assignment.
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8][8, 1]cpu", L_y_: "f32[4, 8][8, 1]cpu"):
        l_x_ = L_x_
        l_y_ = L_y_
        out_4: "f32[4, 8][8, 1]cpu" = torch.relu(l_x_)
        out_4 += l_y_;  out_5: "f32[4, 8][8, 1]cpu" = out_4;  out_4 = l_y_ = None
        out_5 //= 2;  out_6: "f32[4, 8][8, 1]cpu" = out_5;  out_5 = None
        out_6[0] = l_x_;  setitem = out_6;  out_6 = l_x_ = None
        out_7: "f32[4, 8][8, 1]cpu" = torch.relu(setitem);  setitem = None
        return (out_7,)
)FX");
    EXPECT_THAT(namesOf(nodes), ElementsAre("l_x_", "l_y_", "out_4", "out_5", "out_6", "setitem", "out_7", "output"));
    const GraphNode* add = findNode(nodes, "out_5");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->op, "call_function");
    EXPECT_EQ(add->target, "operator.iadd");
    EXPECT_EQ(add->args, "out_4, l_y_");
    EXPECT_THAT(add->inputs, ElementsAre("out_4", "l_y_"));
    EXPECT_EQ(add->shape, "[4, 8]");
    const GraphNode* divided = findNode(nodes, "out_6");
    ASSERT_NE(divided, nullptr);
    EXPECT_EQ(divided->target, "operator.ifloordiv");
    EXPECT_THAT(divided->inputs, ElementsAre("out_5"));
    const GraphNode* set = findNode(nodes, "setitem");
    ASSERT_NE(set, nullptr);
    EXPECT_EQ(set->target, "operator.setitem");
    EXPECT_EQ(set->args, "out_6, 0, l_x_");
    EXPECT_THAT(set->inputs, ElementsAre("out_6", "l_x_"));
    EXPECT_THAT(findNode(nodes, "out_7")->inputs, ElementsAre("setitem"));
}

TEST(FxGraphText, InfixOperatorsMethodsGetitemAndSymbolicShapes) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, s77: "Sym(s77)", L_x_: "f32[s77][1]cuda:0"):
        l_x_ = L_x_

        # File: prog/dyn.py:6 in f, code: return torch.sigmoid(x) * x.sum() / x.shape[0]
        sigmoid: "f32[s77][1]cuda:0" = torch.sigmoid(l_x_)
        sum_1: "f32[][]cuda:0" = l_x_.sum();  l_x_ = None
        mul: "f32[s77][1]cuda:0" = sigmoid * sum_1;  sigmoid = sum_1 = None
        truediv: "f32[s77][1]cuda:0" = mul / s77;  mul = s77 = None
        neg: "f32[s77][1]cuda:0" = -truediv
        add: "f32[s77][1]cuda:0" = neg + -1.0;  neg = None
        pair = torch.ops.aten.var_mean.correction(add, [0])
        getitem: "f32[][]cuda:0" = pair[0];  pair = None
        return (truediv, getitem)
)FX");
    ASSERT_EQ(nodes.size(), 11u);
    const GraphNode& s77 = nodes[0];
    EXPECT_EQ(s77.name, "s77");
    EXPECT_EQ(s77.op, "placeholder");
    EXPECT_EQ(s77.dtype, "Sym");
    EXPECT_EQ(s77.shape, "s77");
    EXPECT_EQ(nodes[1].shape, "[s77]");
    EXPECT_EQ(nodes[1].device, "cuda:0");

    const GraphNode* sum = findNode(nodes, "sum_1");
    EXPECT_EQ(sum->op, "call_method");
    EXPECT_EQ(sum->target, "sum");
    EXPECT_THAT(sum->inputs, ElementsAre("l_x_"));
    EXPECT_EQ(sum->shape, "[]");
    EXPECT_EQ(sum->stride, "[]");

    const GraphNode* mul = findNode(nodes, "mul");
    EXPECT_EQ(mul->target, "operator.mul");
    EXPECT_EQ(mul->args, "sigmoid, sum_1");
    EXPECT_THAT(mul->inputs, ElementsAre("sigmoid", "sum_1"));
    EXPECT_EQ(findNode(nodes, "truediv")->target, "operator.truediv");
    EXPECT_THAT(findNode(nodes, "truediv")->inputs, ElementsAre("mul", "s77"));
    EXPECT_EQ(findNode(nodes, "neg")->target, "operator.neg");
    EXPECT_EQ(findNode(nodes, "add")->target, "operator.add");
    EXPECT_EQ(findNode(nodes, "add")->args, "neg, -1.0");
    EXPECT_EQ(findNode(nodes, "pair")->target, "torch.ops.aten.var_mean.correction");
    EXPECT_EQ(findNode(nodes, "getitem")->target, "operator.getitem");
    EXPECT_EQ(findNode(nodes, "getitem")->args, "pair, 0");
    EXPECT_THAT(nodes.back().inputs, ElementsAre("truediv", "getitem"));
    EXPECT_EQ(findNode(nodes, "getitem")->sourceFunction, "f");
}

TEST(FxGraphText, FileCommentHoldsUntilBlankLineOrNoStacktraceComment) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4][1]cpu"):
        # File: C:/work/nested.py:5 in scale_shift, code: return x * s + t
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(arg0_1, 2.0)
        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(mul, -1.0);  mul = None

        # File: C:/work/nested.py:9 in gated
        sigmoid: "f32[4][1]cpu" = torch.ops.aten.sigmoid.default(add);  add = None

        tanh: "f32[4][1]cpu" = torch.ops.aten.tanh.default(sigmoid)
        # File: C:/work/nested.py:11 in gated, code: y = x.relu()
        relu: "f32[4][1]cpu" = torch.ops.aten.relu.default(tanh)
        # No stacktrace found for following nodes
        full: "f32[][]cpu" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32)
        return (relu, full)
)FX");
    const GraphNode* mul = findNode(nodes, "mul");
    EXPECT_EQ(mul->sourceFile, "C:/work/nested.py");
    EXPECT_EQ(mul->sourceLine, 5);
    EXPECT_EQ(mul->sourceFunction, "scale_shift");
    EXPECT_EQ(mul->sourceCode, "return x * s + t");
    EXPECT_EQ(findNode(nodes, "add")->sourceLine, 5);
    EXPECT_EQ(findNode(nodes, "sigmoid")->sourceLine, 9);
    EXPECT_EQ(findNode(nodes, "sigmoid")->sourceFunction, "gated");
    EXPECT_TRUE(findNode(nodes, "sigmoid")->sourceCode.empty());
    EXPECT_TRUE(findNode(nodes, "tanh")->sourceFile.empty());
    EXPECT_EQ(findNode(nodes, "relu")->sourceLine, 11);
    EXPECT_TRUE(findNode(nodes, "full")->sourceFile.empty());
    EXPECT_THAT(findNode(nodes, "full")->inputs, IsEmpty());
}

TEST(FxGraphText, AotGraphWithMultiLineSignatureAndReturn) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(
        self,
        primals_3: "f32[8, 16][16, 1]cpu",  # PlainAOTInput(idx=2)
        tanh: "f32[8, 32][32, 1]cpu",
        tangents_1: "f32[8, 4][4, 1]cpu",  # TangentAOTInput(output=PlainAOTOutput(idx=0))
    ):
        # File: train.py:12 in forward, code: return self.fc2(torch.tanh(self.fc1(x)))
        mm: "f32[8, 32][32, 1]cpu" = torch.ops.aten.mm.default(tangents_1, tanh)
        sum_1: "f32[1, 4][4, 1]cpu" = torch.ops.aten.sum.dim_IntList(tangents_1, [0], True);  tangents_1 = None
        return (
            mm,  # GradAOTOutput(grad_of=PlainAOTInput(idx=0))
            None,  # None
            sum_1,  # GradAOTOutput(grad_of=PlainAOTInput(idx=4))
        )
)FX");
    EXPECT_THAT(namesOf(nodes), ElementsAre("primals_3", "tanh", "tangents_1", "mm", "sum_1", "output"));
    EXPECT_EQ(nodes[0].target, "primals_3");
    EXPECT_EQ(nodes[0].shape, "[8, 16]");
    EXPECT_EQ(nodes[3].target, "torch.ops.aten.mm.default");
    EXPECT_THAT(nodes[3].inputs, ElementsAre("tangents_1", "tanh"));
    EXPECT_EQ(nodes[4].args, "tangents_1, [0], True");
    EXPECT_THAT(nodes[5].inputs, ElementsAre("mm", "sum_1"));
    EXPECT_EQ(nodes[5].args, "(mm, None, sum_1,)");
}

TEST(FxGraphText, JointGraphPytreeContainersAreNotNodes) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class inner_f(torch.nn.Module):
    def forward(
        self,
        primals,
        tangents,
    ):
        primals_1: "f32[32, 16][16, 1]cpu"  # PlainAOTInput(idx=0)
        tangents_1: "f32[8, 32][32, 1]cpu"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        # File: train.py:12 in forward, code: return torch.tanh(x @ w)
        mm: "f32[8, 16][16, 1]cpu" = torch.ops.aten.mm.default(tangents_1, primals_1);  tangents_1 = primals_1 = None
        return pytree.tree_unflatten([
            mm,  # PlainAOTOutput(idx=0)
            None,  # None
        ], self._out_spec)
)FX");
    EXPECT_THAT(namesOf(nodes), ElementsAre("primals_1", "tangents_1", "mm", "output"));
    EXPECT_EQ(nodes[0].op, "placeholder");
    EXPECT_EQ(nodes[0].dtype, "f32");
    EXPECT_EQ(nodes[1].shape, "[8, 32]");
    EXPECT_THAT(nodes[2].inputs, ElementsAre("tangents_1", "primals_1"));
    EXPECT_EQ(nodes[3].args, "pytree.tree_unflatten([mm, None,], self._out_spec)");
    EXPECT_THAT(nodes[3].inputs, ElementsAre("mm"));
}

TEST(FxGraphText, OlderJointGraphFlattenLineCreatesPlaceholders) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class joint_helper(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        mul = torch.ops.aten.mul.Tensor(primals_1, primals_2)
        return pytree.tree_unflatten([mul, tangents_1], self._out_spec)
)FX");
    EXPECT_THAT(namesOf(nodes), ElementsAre("primals_1", "primals_2", "tangents_1", "mul", "output"));
    EXPECT_EQ(nodes[2].op, "placeholder");
    EXPECT_THAT(nodes[3].inputs, ElementsAre("primals_1", "primals_2"));
}

TEST(FxGraphText, NestedSubmoduleClassesAreSkipped) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu"):
        l_x_ = L_x_
        sum_1: "f32[][]cpu" = l_x_.sum()
        gt: "b8[][]cpu" = sum_1 > 0;  sum_1 = None
        cond_true_0 = self.cond_true_0
        cond_false_0 = self.cond_false_0
        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_,));  gt = cond_true_0 = cond_false_0 = l_x_ = None
        getitem: "f32[4][1]cpu" = cond[0];  cond = None
        return (getitem,)

    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_: "f32[4][1]cpu"):
            l_x__1 = l_x_
            sin: "f32[4][1]cpu" = l_x__1.sin();  l_x__1 = None
            return (sin,)

    class cond_false_0(torch.nn.Module):
        def forward(self, l_x_: "f32[4][1]cpu"):
            cos: "f32[4][1]cpu" = l_x_.cos()
            return (cos,)

 # graph id: 140545003169328
)FX");
    EXPECT_THAT(namesOf(nodes), ElementsAre("l_x_", "sum_1", "gt", "cond_true_0", "cond_false_0", "cond", "getitem",
                                            "output"));
    EXPECT_EQ(nodes[2].target, "operator.gt");
    EXPECT_EQ(nodes[2].dtype, "b8");
    EXPECT_EQ(nodes[3].op, "get_attr");
    EXPECT_EQ(nodes[3].target, "self.cond_true_0");
    EXPECT_EQ(nodes[5].target, "torch.ops.higher_order.cond");
    EXPECT_THAT(nodes[5].inputs, ElementsAre("gt", "cond_true_0", "cond_false_0", "l_x_"));
}

TEST(FxGraphText, ModuleCallsAttributesAndPlainAliases) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x : torch.Tensor, n : torch.SymInt):
        self_fc1 = self.fc1(x);  x = None
        _tensor_constant0 = self._tensor_constant0
        same = self_fc1
        add = operator.add(same, _tensor_constant0)
        return add
)FX");
    ASSERT_EQ(nodes.size(), 7u);
    EXPECT_EQ(nodes[0].target, "x");
    EXPECT_TRUE(nodes[0].dtype.empty());  // old logs annotate with Python classes only
    EXPECT_EQ(nodes[1].dtype, "Sym");
    EXPECT_EQ(nodes[2].op, "call_module");
    EXPECT_EQ(nodes[2].target, "self.fc1");
    EXPECT_THAT(nodes[2].inputs, ElementsAre("x"));
    EXPECT_EQ(nodes[3].op, "get_attr");
    EXPECT_EQ(nodes[3].target, "self._tensor_constant0");
    EXPECT_EQ(nodes[4].op, "call_function");  // not a placeholder rename: `same` aliases a computed value
    EXPECT_EQ(nodes[4].target, "alias");
    EXPECT_THAT(nodes[4].inputs, ElementsAre("self_fc1"));
    EXPECT_EQ(nodes[5].target, "operator.add");
    EXPECT_THAT(nodes[6].inputs, ElementsAre("add"));
    EXPECT_EQ(nodes[6].args, "add");
}

TEST(FxGraphText, ValueTypeAnnotations) {
    FxValueType dense = parseFxValueType("bf16[2, s27, 128][128*s27, 128, 1]cuda:1");
    EXPECT_EQ(dense.dtype, "bf16");
    EXPECT_EQ(dense.shape, "[2, s27, 128]");
    EXPECT_EQ(dense.stride, "[128*s27, 128, 1]");
    EXPECT_EQ(dense.device, "cuda:1");

    FxValueType scalar = parseFxValueType("i64[][]cpu");
    EXPECT_EQ(scalar.dtype, "i64");
    EXPECT_EQ(scalar.shape, "[]");
    EXPECT_EQ(scalar.stride, "[]");

    FxValueType shapeOnly = parseFxValueType("f32[4, 4]");
    EXPECT_EQ(shapeOnly.shape, "[4, 4]");
    EXPECT_TRUE(shapeOnly.stride.empty());
    EXPECT_TRUE(shapeOnly.device.empty());

    FxValueType symbol = parseFxValueType("Sym(s0 + 1)");
    EXPECT_EQ(symbol.dtype, "Sym");
    EXPECT_EQ(symbol.shape, "s0 + 1");

    FxValueType tuple = parseFxValueType("(f32[8][1]cpu, i64[8][1]cpu)");
    EXPECT_TRUE(tuple.dtype.empty());
    EXPECT_EQ(tuple.shape, "(f32[8][1]cpu, i64[8][1]cpu)");

    FxValueType broken = parseFxValueType("f32[8, 16");
    EXPECT_TRUE(broken.dtype.empty());
    EXPECT_EQ(broken.shape, "f32[8, 16");
    EXPECT_TRUE(parseFxValueType("").shape.empty());
}

TEST(FxGraphText, TupleTypedMultiOutputNodeKeepsRawType) {
    std::vector<GraphNode> nodes = parseFxGraphText(R"FX(def forward(self, arg0_1: "f32[8][1]cpu"):
    max_1: "(f32[][]cpu, i64[][]cpu)" = torch.ops.aten.max.dim(arg0_1, 0)
    return (max_1,)
)FX");
    ASSERT_EQ(nodes.size(), 3u);
    EXPECT_EQ(nodes[1].shape, "(f32[][]cpu, i64[][]cpu)");
    EXPECT_TRUE(nodes[1].dtype.empty());
}

TEST(FxGraphText, EmptyMalformedAndTruncatedInputs) {
    EXPECT_THAT(parseFxGraphText(""), IsEmpty());
    EXPECT_THAT(parseFxGraphText("\n\n   \n"), IsEmpty());
    EXPECT_NO_THROW(parseFxGraphText("def forward(self, x: \"f32[4\n)))(((\n  '''\n\"unterminated"));
    EXPECT_NO_THROW(parseFxGraphText("class X:\n    def forward(\n"));

    // A payload cut in the middle of a multi-line return keeps every node before it.
    std::vector<GraphNode> cut = parseFxGraphText(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4][1]cpu"):
        relu: "f32[4][1]cpu" = torch.ops.aten.relu.default(arg0_1)
        garbage line that is not python = = =
        42
        return (
            relu,)FX");
    EXPECT_THAT(namesOf(cut), ElementsAre("arg0_1", "relu", "output"));
    EXPECT_THAT(cut[2].inputs, ElementsAre("relu"));

    // Statements without a def line (a bare body) are still read.
    std::vector<GraphNode> bare = parseFxGraphText("sin = torch.sin(x)\ncos = torch.cos(sin)\n");
    EXPECT_THAT(namesOf(bare), ElementsAre("sin", "cos"));
    EXPECT_THAT(bare[1].inputs, ElementsAre("sin"));
}

}  // namespace
}  // namespace traces
