// The torch surface of the VM: tensors through the registry, nn.Module registration and repr, torch.no_grad,
// and torch.compile's wrappers entering the FrameHook (or running eagerly when none is installed).
#include <gtest/gtest.h>

#include <sstream>

#include "script_support.h"

using vmtest::expectOutput;
using vmtest::runScript;

namespace {

/// Records every compiled frame it sees; answers with `replacement` when set.
class RecordingHook : public eng::vm::FrameHook {
public:
    std::optional<eng::vm::Value> onFrame(eng::vm::Interpreter&, eng::vm::Frame& frame,
                                          const eng::vm::CompileOptions& options) override {
        seen.push_back(frame.code->name + (options.fullgraph ? " fullgraph" : "") + " args=" + std::to_string(frame.fast.size()));
        return replacement;
    }
    std::vector<std::string> seen;
    std::optional<eng::vm::Value> replacement;
};

}  // namespace

TEST(VmTorch, TensorsOperatorsAndMethods) {
    expectOutput(
        "import torch\n"
        "x = torch.arange(6, dtype=torch.float32).reshape(2, 3)\n"
        "y = (x * 2 + 1).sum(dim=1)\n"
        "print(y, y.shape, y.dtype, x.shape[1], len(x))\n"
        "print(f'{y[0].item():.2f}', isinstance(x, torch.Tensor), 2 - x[0], x[:, 1:])\n"
        "x[0, 0] = 10.0\nx += 1\nprint(x.tolist(), (x > 5).sum().item())\n"
        "print(x.device, x.device == 'cpu', torch.device('cpu'), repr(x.device))\n",
        "tensor([ 9., 27.]) torch.Size([2]) torch.float32 3 2\n"
        "9.00 True tensor([2., 1., 0.]) tensor([[1., 2.],\n        [4., 5.]])\n"
        "[[11.0, 2.0, 3.0], [4.0, 5.0, 6.0]] 2\n"
        "cpu True cpu device(type='cpu')\n");
}

TEST(VmTorch, TensorErrorsCarryPyTorchClassAndLine) {
    auto run = runScript("import torch\na = torch.ones(2, 3)\nb = torch.ones(4)\nc = a + b\n");
    EXPECT_FALSE(run.ok);
    EXPECT_NE(run.error.find("  File \"x.py\", line 4, in <module>\n    c = a + b\nRuntimeError: The size of tensor a (3) "
                             "must match the size of tensor b (4) at non-singleton dimension 1\n"),
              std::string::npos)
        << run.error;
}

TEST(VmTorch, ModulesRegisterParametersAndPrintLikePyTorch) {
    expectOutput(
        "import torch\nimport torch.nn as nn\nfrom torch import nn as nn2\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 3)\n"
        "        self.seq = nn.Sequential(nn.GELU(), nn.Dropout(0.1))\n"
        "        self.scale = nn.Parameter(torch.ones(3))\n"
        "    def forward(self, x):\n"
        "        return self.seq(self.fc(x)) * self.scale\n"
        "net = Net()\n"
        "print([n for n, p in net.named_parameters()], len(list(net.parameters())))\n"
        "print(net.training, net.eval().training, net.seq[1].training, nn2 is nn)\n"
        "print(net(torch.ones(2, 4)).shape, isinstance(net.scale, nn.Parameter), isinstance(net, nn.Module))\n"
        "print(net)\n",
        "['scale', 'fc.weight', 'fc.bias'] 3\n"
        "True False False True\n"
        "torch.Size([2, 3]) True True\n"
        "Net(\n  (fc): Linear(in_features=4, out_features=3, bias=True)\n  (seq): Sequential(\n    (0): GELU(approximate='none')\n"
        "    (1): Dropout(p=0.1, inplace=False)\n  )\n)\n");
}

TEST(VmTorch, ModuleDictAndApply) {
    expectOutput(
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.parts = nn.ModuleDict(dict(fc=nn.Linear(2, 2), act=nn.ReLU()))\n"
        "        self.parts['out'] = nn.Linear(2, 1)\n"
        "net = Net()\n"
        "print(list(net.parts.keys()), len(net.parts), 'fc' in net.parts, 'x' in net.parts, net.parts['act'])\n"
        "print([n for n, p in net.named_parameters()])\n"
        "seen = []\n"
        "def visit(m):\n"
        "    seen.append(type(m).__name__)\n"
        "    if isinstance(m, nn.Linear):\n"
        "        torch.nn.init.zeros_(m.bias)\n"
        "print(net.apply(visit) is net, seen, net.parts.out.bias.sum().item())\n",
        "['fc', 'act', 'out'] 3 True False ReLU()\n"
        "['parts.fc.weight', 'parts.fc.bias', 'parts.out.weight', 'parts.out.bias']\n"
        "True ['Linear', 'ReLU', 'Linear', 'ModuleDict', 'Net'] 0.0\n");
}

TEST(VmTorch, BuffersAndStateDict) {
    expectOutput(
        "import torch\nimport torch.nn as nn\n"
        "class Norm(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(2, 2)\n"
        "        self.register_buffer('scale', torch.full((2,), 3.0))\n"
        "a = Norm()\nb = Norm()\n"
        "print(list(a.state_dict().keys()), [n for n, _ in a.named_buffers()])\n"
        "b.load_state_dict(a.state_dict())\n"
        "print(torch.equal(a.lin.weight, b.lin.weight), b.scale)\n"
        "try:\n    b.load_state_dict({})\nexcept RuntimeError as e:\n    print(str(e).splitlines()[0])\n",
        "['scale', 'lin.weight', 'lin.bias'] ['scale']\nTrue tensor([3., 3.])\nError(s) in loading state_dict for Norm:\n");
}

TEST(VmTorch, NoGradAndDynamoNoOps) {
    expectOutput(
        "import torch\n"
        "with torch.no_grad():\n    print(torch.is_grad_enabled())\n"
        "print(torch.is_grad_enabled())\n"
        "torch._dynamo.graph_break()\ntorch._dynamo.reset()\n"
        "torch._dynamo.config.cache_size_limit = 16\nprint(torch._dynamo.config.cache_size_limit)\n"
        "@torch.compiler.disable\ndef g(x):\n    return x + 1\n"
        "print(g(1), torch.compiler.is_compiling())\n",
        "False\nTrue\n16\n2 False\n");
}

TEST(VmTorch, CompileValidatesArguments) {
    auto run = runScript("import torch\n@torch.compile(mode='fast')\ndef f(x):\n    return x\n");
    EXPECT_NE(run.error.find("RuntimeError: Unrecognized mode=fast"), std::string::npos) << run.error;
    run = runScript("import torch\ntorch.compile(lambda x: x, mode='default', options={})\n");
    EXPECT_NE(run.error.find("RuntimeError: Either mode or options can be specified, but both can't be specified at the same time."),
              std::string::npos)
        << run.error;
}

TEST(VmTorch, CompiledFunctionsEnterTheFrameHook) {
    const std::string source =
        "import torch\nimport torch.nn as nn\n"
        "@torch.compile(fullgraph=True)\n"
        "def f(x, k=2):\n    return x * k\n"
        "def plain(x):\n    return x + 1\n"
        "class M(nn.Module):\n    def forward(self, x):\n        return x - 1\n"
        "cm = torch.compile(M())\n"
        "m2 = M()\nm2.compile(dynamic=False)\n"
        "def main(device):\n    return [f(3), plain(3), cm(5), f.__name__, m2(7)]\n";
    std::ostringstream out;
    eng::vm::Interpreter vm(out);
    ASSERT_TRUE(vm.runScript("x.py", source).ok);
    RecordingHook hook;
    vm.setFrameHook(&hook);
    eng::vm::Value result = vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")});
    EXPECT_EQ(vm.repr(result), "[6, 4, 4, 'f', 6]");
    EXPECT_EQ(hook.seen, (std::vector<std::string>{"f fullgraph args=2", "forward args=2", "forward args=2"}));
    hook.replacement = eng::vm::Value(42);
    EXPECT_EQ(vm.repr(vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")})), "[42, 4, 42, 'f', 42]");
    // A hook may also run the frame itself through the interpreter.
    class EvaluatingHook : public eng::vm::FrameHook {
    public:
        std::optional<eng::vm::Value> onFrame(eng::vm::Interpreter& interpreter, eng::vm::Frame& frame,
                                              const eng::vm::CompileOptions&) override {
            eng::vm::Value result = interpreter.evalFrame(frame);
            return interpreter.binaryOp(0, result, eng::vm::Value(100));
        }
    } evaluating;
    vm.setFrameHook(&evaluating);
    EXPECT_EQ(vm.repr(vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")})), "[106, 4, 104, 'f', 106]");
    vm.setFrameHook(nullptr);
    EXPECT_EQ(vm.repr(vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")})), "[6, 4, 4, 'f', 6]");
}
