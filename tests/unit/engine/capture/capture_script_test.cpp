// Scripts whose captures are checked through the compile events themselves: guard failure reasons, break stacks
// and resume functions, the recompile limit, set_stance, disable, custom backends, compile phases and fullgraph
// errors (programs checked by their output, graph code and counts are in tests/scripts/capture/).
#include <gtest/gtest.h>

#include "capture_support.h"

namespace {

using capturetest::runCaptured;

std::vector<std::string> compileIds(const capturetest::CapturedRun& run) {
    std::vector<std::string> ids;
    for (const auto& c : run.events.started) ids.push_back(c.key.str() + " " + c.function);
    return ids;
}

}  // namespace

TEST(CaptureScripts, GuardsRecompileWithDynamoReasons) {
    const char* source = R"(import torch

SCALE = 2.0

@torch.compile
def f(x, n):
    return x * SCALE + n

def main():
    global SCALE
    x = torch.ones(4)
    a = f(x, 1)
    b = f(x, 1)
    c = f(torch.ones(4, dtype=torch.float64), 1)
    SCALE = 3.0
    d = f(x, 1)
    e = f(x.clone().requires_grad_(True), 1)
    return [a, b, c, d]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(compileIds(run), (std::vector<std::string>{"0/0 f", "0/1 f", "0/2 f", "0/3 f"}));
    std::vector<std::string> reasons;
    for (const auto& [key, failures] : run.events.recompiles) reasons.push_back(failures.front().failedCompile + ": " + failures.front().reason);
    ASSERT_EQ(reasons.size(), 3u);
    EXPECT_EQ(reasons[0], "0/0: tensor 'x' dtype mismatch. expected Float, actual Double");
    EXPECT_EQ(reasons[1].substr(0, 28), "0/1: G['SCALE'] == 2.0      ");
    EXPECT_NE(reasons[1].find("# return x * SCALE + n  # t.py:7 in f\nUser stack trace:\n  File \"t.py\", line 7, in f"), std::string::npos);
    EXPECT_EQ(reasons[2], "0/2: tensor 'x' requires_grad mismatch. expected requires_grad=0");
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_DOUBLE_EQ(eng::vm::callOp("Tensor.item", {eng::vm::callOp("torch.sum", {items[0]})}).asFloat(), 12.0);
    EXPECT_DOUBLE_EQ(eng::vm::callOp("Tensor.item", {eng::vm::callOp("torch.sum", {items[3]})}).asFloat(), 16.0);
}

TEST(CaptureScripts, PrintBreaksAndResumesOnce) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    y = x + 1.0
    print("middle", 3)
    z = y * 2.0
    torch._dynamo.graph_break()
    return z - x

def main():
    r1 = f(torch.ones(2))
    r2 = f(torch.ones(2))
    return r1.tolist() + r2.tolist()
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    // print runs once per call, in the VM: nothing runs twice.
    EXPECT_EQ(run.out, "middle 3\nmiddle 3\n");
    EXPECT_EQ(compileIds(run), (std::vector<std::string>{"0/0 f", "1/0 torch_dynamo_resume_in_f_at_6", "2/0 torch_dynamo_resume_in_f_at_8"}));
    EXPECT_EQ(run.uniqueGraphs, 3);
    ASSERT_EQ(run.events.breaks.size(), 2u);
    EXPECT_EQ(run.events.breaks[0].second.breakType, "Failed to trace builtin operator");
    EXPECT_NE(run.events.breaks[0].second.reason.find("`print` with argument types ['str', 'int']"), std::string::npos);
    EXPECT_EQ(run.events.breaks[1].second.breakType, "Call to `torch._dynamo.graph_break()`");
    EXPECT_EQ(run.events.breaks[1].second.userLine, 8);
    std::vector<double> values;
    for (const auto& v : run.returned.as<eng::vm::ListObject>().items) values.push_back(v.asFloat());
    EXPECT_EQ(values, (std::vector<double>{3.0, 3.0, 3.0, 3.0}));
}

TEST(CaptureScripts, BreakInsideInlinedHelperRestartsAtTheCall) {
    const char* source = R"(import torch

def helper(y):
    print("inside")
    return y * 3.0

@torch.compile
def f(x):
    a = torch.exp(x)
    b = helper(a)
    return b.sum()

def main():
    return f(torch.zeros(3)).item()
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "inside\n");
    EXPECT_DOUBLE_EQ(run.returned.asFloat(), 9.0);
    // helper, called by the instruction f breaks at, is compiled as a frame of its own and breaks again.
    EXPECT_EQ(compileIds(run), (std::vector<std::string>{"0/0 f", "1/0 helper", "2/0 torch_dynamo_resume_in_helper_at_4",
                                                         "3/0 torch_dynamo_resume_in_f_at_10"}));
    ASSERT_EQ(run.events.breaks.size(), 2u);
    EXPECT_EQ(run.events.breaks[1].first.str(), "1/0");
    // The user stack names the inlined frame; the graph breaks at the call in f.
    const auto& stack = run.events.breaks[0].second.userStack;
    ASSERT_EQ(stack.size(), 2u);
    EXPECT_EQ(stack[0].function, "f");
    EXPECT_EQ(stack[0].line, 10);
    EXPECT_EQ(stack[1].function, "helper");
    EXPECT_EQ(stack[1].line, 4);
}

TEST(CaptureScripts, DynamicFalseRecompilesUntilTheLimit) {
    const char* source = R"(import torch

@torch.compile(dynamic=False)
def f(x, k):
    return x * k

def main():
    x = torch.ones(2)
    total = 0.0
    for k in range(12):
        total += f(x, k).sum().item()
    return total
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_DOUBLE_EQ(run.returned.asFloat(), 2.0 * 66);
    EXPECT_EQ(run.events.finished.size(), 8u);  // 0/0 .. 0/7; the ninth would exceed recompile_limit
    ASSERT_EQ(run.events.warnings.size(), 1u);
    EXPECT_EQ(run.events.warnings[0].rfind("torch._dynamo hit config.recompile_limit (8)\n   function: 'f' (t.py:3)\n   last reason: 0/7: k == 7 ", 0), 0u)
        << run.events.warnings[0];
    EXPECT_NE(run.logs.find("[0/8] torch._dynamo hit config.recompile_limit (8)"), std::string::npos);
}

TEST(CaptureScripts, StancesDisableAndIsCompiling) {
    const char* source = R"(import torch

@torch.compiler.disable
def side(x):
    print("eager side", torch.compiler.is_compiling())
    return x + 1.0

@torch.compile
def f(x):
    if torch.compiler.is_compiling():
        x = x * 10.0
    return side(x) * 2.0

def main():
    x = torch.ones(1)
    a = f(x)
    torch.compiler.set_stance("force_eager")
    b = f(x)
    torch.compiler.set_stance("fail_on_recompile")
    c = f(x)
    try:
        f(torch.ones(2, 2))
        status = "no error"
    except RuntimeError as e:
        status = str(e)
    torch.compiler.set_stance("default")
    return [a.item(), b.item(), c.item(), status]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_DOUBLE_EQ(items[0].asFloat(), 22.0);  // compiled: is_compiling() is True while tracing
    EXPECT_DOUBLE_EQ(items[1].asFloat(), 4.0);   // force_eager
    EXPECT_DOUBLE_EQ(items[2].asFloat(), 22.0);  // cached entry still serves
    EXPECT_EQ(items[3].str().substr(0, 72), "Detected recompile when torch.compile stance is 'fail_on_recompile'. fil");
    EXPECT_EQ(run.out, "eager side False\neager side False\neager side False\n");
    ASSERT_GE(run.events.breaks.size(), 1u);
    EXPECT_EQ(run.events.breaks[0].second.breakType, "Skip calling `torch.compiler.disable()`d function");
}

TEST(CaptureScripts, CustomBackendGetsAGraphModule) {
    const char* source = R"(import torch

calls = []

def my_backend(gm, example_inputs):
    print(gm.graph)
    print(len(example_inputs), example_inputs[0].shape)
    def run(*args):
        calls.append(1)
        return gm.forward(*args)
    return run

@torch.compile(backend=my_backend)
def f(x):
    return torch.relu(x) + 1.0

def main():
    x = torch.ones(3)
    f(x)
    y = f(x)
    return [y.sum().item(), len(calls)]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out,
              "graph():\n    %l_x_ : torch.Tensor [num_users=1] = placeholder[target=L_x_]\n"
              "    %relu : [num_users=1] = call_function[target=torch.relu](args = (%l_x_,), kwargs = {})\n"
              "    %add : [num_users=1] = call_function[target=operator.add](args = (%relu, 1.0), kwargs = {})\n"
              "    return (add,)\n\n"
              "1 torch.Size([3])\n");
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_DOUBLE_EQ(items[0].asFloat(), 6.0);
    EXPECT_EQ(items[1].asInt(), 2);
}

TEST(CaptureScripts, CacheEntriesKeepTheirBackend) {
    // PyTorch keeps the backend per cache entry: compiling the same code for another backend adds an entry
    // instead of reusing the first one, and a call under the first backend hits its own entry again.
    const char* source = R"(import torch

def f(x):
    return x * 2

def times_ten(gm, example_inputs):
    def run(*args):
        return [t * 10 for t in gm.forward(*args)]
    return run

def main():
    x = torch.ones(2)
    a = torch.compile(f, backend="eager")(x)
    b = torch.compile(f, backend=times_ten)(x)
    c = torch.compile(f, backend="eager")(x)
    d = torch.compile(f, backend=times_ten)(x)
    return [a.sum().item(), b.sum().item(), c.sum().item(), d.sum().item()]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_DOUBLE_EQ(items[0].asFloat(), 4.0);
    EXPECT_DOUBLE_EQ(items[1].asFloat(), 40.0);
    EXPECT_DOUBLE_EQ(items[2].asFloat(), 4.0);
    // The same backend function again: its entry is hit, no third compile.
    EXPECT_DOUBLE_EQ(items[3].asFloat(), 40.0);
    ASSERT_EQ(run.events.started.size(), 2u);
    EXPECT_EQ(run.events.started[1].key.str(), "0/1");
}

TEST(CaptureScripts, FullgraphRaisesUnsupportedWithTheReason) {
    const char* source = R"(import torch

@torch.compile(fullgraph=True)
def f(x):
    print("no")
    return x

def main():
    try:
        f(torch.ones(1))
    except torch._dynamo.exc.Unsupported as e:
        return str(e)
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "");
    std::string message = run.returned.str();
    EXPECT_EQ(message.substr(0, 33), "Failed to trace builtin operator\n");
    EXPECT_NE(message.find("from user code:\n  File \"t.py\", line 5, in f\n    print(\"no\")"), std::string::npos) << message;
}

TEST(CaptureScripts, WithStatementsBreakAndStayCached) {
    const char* source = R"(import torch

class Noisy:
    def __enter__(self):
        return self
    def __exit__(self, a, b, c):
        return False

@torch.compile
def f(x):
    y = x * 2.0
    with Noisy():
        z = y + 1.0
    return z * 3.0

def main():
    out = [f(torch.ones(2)), f(torch.ones(2)), f(torch.ones(2))]
    return [t.sum().item() for t in out]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    for (const auto& v : run.returned.as<eng::vm::ListObject>().items) EXPECT_DOUBLE_EQ(v.asFloat(), 18.0);
    // The first call compiles each piece once; the later calls hit every cache (no recompile).
    EXPECT_TRUE(run.events.recompiles.empty()) << run.logs;
    size_t compiles = run.events.started.size();
    EXPECT_GE(compiles, 2u);
    for (const auto& c : run.events.started) EXPECT_EQ(c.key.frameCompileId, 0);
}

TEST(CaptureScripts, RaisingBackendFailsWithBackendCompilerFailed) {
    const char* source = R"(import torch

def broken(gm, example_inputs):
    raise RuntimeError("no thanks")

@torch.compile(backend=broken)
def f(x):
    return torch.sin(x) + 1.0

def main():
    try:
        f(torch.ones(2))
    except Exception as e:
        return [type(e).__name__, str(e).split("\n")[0], str(e).split("\n")[1]]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_EQ(items[0].str(), "BackendCompilerFailed");
    EXPECT_EQ(items[1].str(), "backend='broken' raised:");
    EXPECT_EQ(items[2].str(), "RuntimeError: no thanks");
    ASSERT_EQ(run.events.finished.size(), 1u);
    EXPECT_EQ(run.events.finished[0].status, traces::CompileStatus::Failed);
}

TEST(CaptureScripts, CompileEventsCarryKeysCountsAndPhases) {
    const char* source = R"(import torch

def scale(t):
    return t * 3.0

scale = torch.compiler.allow_in_graph(scale)

@torch.compile
def f(x, y):
    return scale(x) + torch.sin(y)

def main():
    return f(torch.ones(2), torch.zeros(2))
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_EQ(run.events.started.size(), 1u);
    ASSERT_EQ(run.events.finished.size(), 1u);
    const traces::Compile& c = run.events.finished[0];
    EXPECT_EQ(c.key.str(), "0/0");
    EXPECT_EQ(c.function, "f");
    EXPECT_EQ(c.file, "t.py");
    EXPECT_EQ(c.firstLine, 8);  // the decorator's line, as co_firstlineno
    EXPECT_EQ(c.status, traces::CompileStatus::Ok);
    EXPECT_EQ(c.opCount, 3);     // scale (allowed in graph), sin, add
    EXPECT_EQ(c.inputCount, 2);
    EXPECT_EQ(c.nodeCount, 6);   // 2 placeholders, 3 calls, output
    EXPECT_EQ(c.cacheSize, 0);
    ASSERT_TRUE(c.guardCount.has_value());
    EXPECT_GE(*c.guardCount, 2);
    // The user's stack at the call: main's line, then the compiled frame.
    ASSERT_EQ(run.events.startStacks.at(0).size(), 2u);
    EXPECT_EQ(run.events.startStacks[0][0].function, "main");
    EXPECT_EQ(run.events.startStacks[0][0].line, 13);
    EXPECT_EQ(run.events.startStacks[0][0].source, "return f(torch.ones(2), torch.zeros(2))");
    EXPECT_EQ(run.events.startStacks[0][1].function, "f");
    ASSERT_EQ(c.phases.size(), 2u);
    EXPECT_EQ(c.phases[0].phase, "entire_frame_compile");
    EXPECT_EQ(c.phases[1].phase, "backend_compile");
    ASSERT_EQ(run.events.graphs.size(), 1u);
    EXPECT_NE(run.events.graphs[0].second.text.find("scale: \"f32[2][1]cpu\" = __main__.scale(l_x_)"), std::string::npos)
        << run.events.graphs[0].second.text;
    ASSERT_EQ(run.events.guards.size(), 1u);
    bool tensorGuard = false;
    for (const auto& g : run.events.guards[0].second)
        tensorGuard = tensorGuard || (g.kind == "TENSOR_MATCH" && g.source == "L['x']" &&
                                      g.text.find("check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, "
                                                  "AutogradCPU), torch.float32, device=None, requires_grad=False, size=[2], stride=[1])") !=
                                          std::string::npos);
    EXPECT_TRUE(tensorGuard);
}

TEST(CaptureScripts, TorchLogsGuardsAndGraphCode) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    return torch.cos(x) + 1.0

def main():
    return f(torch.ones(3))
)";
    eng::capture::LogSettings logs;
    logs.guards = logs.graphCode = true;
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main", {}, nullptr, logs);
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_NE(run.logs.find("[0/0] [__graph_code] TRACED GRAPH\n[0/0] [__graph_code]  ===== __compiled_fn_1 =====\n"
                            "[0/0] [__graph_code]  class GraphModule(torch.nn.Module):\n"
                            "[0/0] [__graph_code]     def forward(self, L_x_: \"f32[3][1]cpu\"):\n"),
              std::string::npos)
        << run.logs;
    EXPECT_NE(run.logs.find("[0/0] [__graph_code]         add: \"f32[3][1]cpu\" = cos + 1.0;  cos = None\n"), std::string::npos) << run.logs;
    EXPECT_NE(run.logs.find("[0/0] [__guards] GUARDS:\n"), std::string::npos) << run.logs;
    EXPECT_NE(run.logs.find("TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), "
                            "torch.float32, device=None, requires_grad=False, size=[3], stride=[1])"),
              std::string::npos)
        << run.logs;
    EXPECT_EQ(run.logs.find("[__recompiles]"), std::string::npos);
}
