// CUDA graphs around library matmuls (reduce-overhead with extern kernels) and linear's cuBLASLt epilogues:
// which epilogue a linear takes from its sole reader (CPU), the CPU lowering left as it was, and on a GPU
// compiled against eager for every epilogue, dtype and rank, plus an MLP replayed as a CUDA graph.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "inductor/lowering_context.h"
#include "inductor_support.h"

namespace {

using eng::fx::Arg;
using eng::fx::Node;
using eng::cuda::Epilogue;
namespace ev = eng::vm;

Node call(const std::string& target, std::vector<Arg> args, std::vector<eng::fx::KwArg> kwargs = {},
          eng::fx::NodeOp op = eng::fx::NodeOp::CallFunction) {
    Node n;
    n.op = op;
    n.name = target;
    n.target = target;
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    return n;
}

Epilogue choose(const Node& linear, bool bias, const Node* user, const Node** absorbed) {
    return eng::inductor::lowering::chooseLinearEpilogue(linear, bias, user, absorbed);
}

TEST(LinearEpilogue, ReluAndTanhGeluReadersJoinTheBiasEpilogue) {
    Node linear = call("torch._C._nn.linear", {});
    Arg in = Arg::ofNode(&linear);
    const Node* absorbed = nullptr;
    Node relu = call("torch.relu", {in});
    EXPECT_EQ(choose(linear, true, &relu, &absorbed), Epilogue::ReluBias);
    EXPECT_EQ(absorbed, &relu);
    EXPECT_EQ(choose(linear, false, &relu, &absorbed), Epilogue::Relu);
    Node method = call("relu", {in}, {}, eng::fx::NodeOp::CallMethod);
    EXPECT_EQ(choose(linear, true, &method, &absorbed), Epilogue::ReluBias);
    Node tanhGelu = call("torch._C._nn.gelu", {in}, {{"approximate", Arg::ofConstant(ev::makeStr("tanh"))}});
    EXPECT_EQ(choose(linear, true, &tanhGelu, &absorbed), Epilogue::GeluTanhBias);
    EXPECT_EQ(absorbed, &tanhGelu);
}

TEST(LinearEpilogue, ExactGeluInPlaceReluAndOtherReadersKeepTheirKernels) {
    Node linear = call("torch._C._nn.linear", {});
    Arg in = Arg::ofNode(&linear);
    const Node* absorbed = nullptr;
    Node exact = call("torch._C._nn.gelu", {in}, {{"approximate", Arg::ofConstant(ev::makeStr("none"))}});
    EXPECT_EQ(choose(linear, true, &exact, &absorbed), Epilogue::Bias);
    EXPECT_EQ(absorbed, nullptr) << "cuBLASLt's GELU is the tanh form; exact GELU stays a pointwise kernel";
    Node plainGelu = call("torch._C._nn.gelu", {in});
    EXPECT_EQ(choose(linear, true, &plainGelu, &absorbed), Epilogue::Bias);
    Node inplace = call("torch.nn.functional.relu", {in}, {{"inplace", Arg::ofConstant(ev::Value(true))}});
    EXPECT_EQ(choose(linear, true, &inplace, &absorbed), Epilogue::Bias);
    Node relu_ = call("relu_", {in}, {}, eng::fx::NodeOp::CallMethod);
    EXPECT_EQ(choose(linear, true, &relu_, &absorbed), Epilogue::Bias);
    Node sigmoid = call("torch.sigmoid", {in});
    EXPECT_EQ(choose(linear, true, &sigmoid, &absorbed), Epilogue::Bias);
    EXPECT_EQ(choose(linear, false, nullptr, &absorbed), Epilogue::None) << "several readers: nothing to absorb";
    Node other = call("torch._C._nn.linear", {});
    Node reluOfOther = call("torch.relu", {Arg::ofNode(&other)});
    EXPECT_EQ(choose(linear, true, &reluOfOther, &absorbed), Epilogue::Bias);
}

const char* kMlp = R"(import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(128, 32)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def main(device):
    torch.manual_seed(0)
    model = MLP().to(device)
    cmodel = torch.compile(model, mode='reduce-overhead')
    worst = 0.0
    bad = 0
    aliased = 0
    with torch.no_grad():
        for i in range(5):
            x = torch.sin(torch.arange(16 * 64, dtype=torch.float32, device=device).reshape(16, 64) * (0.1 + 0.07 * i))
            x2 = torch.cos(x * 3.0)
            got = cmodel(x)
            got_copy = got.clone()
            worst = max(worst, (got_copy - model(x)).abs().max().item())
            # An eager op that allocates between replays must get memory no replay writes.
            y = torch.full((16, 32), float(i), device=device) + 1.0
            got2 = cmodel(x2)
            worst = max(worst, (got2 - model(x2)).abs().max().item())
            bad += int((y != float(i) + 1.0).sum().item())
            aliased += int(got.data_ptr() == got2.data_ptr())
    return [worst, bad, aliased]
)";

TEST(ReduceOverhead, MlpOnTheCpuSkipsCudaGraphsAndKeepsMatmulPlusBias) {
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kMlp, "main", {ev::makeStr("cpu")});
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_GE(run.events.code.size(), 1u);
    const std::string& code = run.events.code[0].source;
    EXPECT_NE(code.find("skipping cudagraphs due to cpu device (arg"), std::string::npos) << code;
    EXPECT_NE(code.find("extern_kernels.torch.matmul("), std::string::npos) << code;
    EXPECT_EQ(code.find("cuBLASLt"), std::string::npos) << code;
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_LT(items.at(0).asFloat(), 1e-5);
    EXPECT_EQ(items.at(1).asInt(), 0);
    EXPECT_EQ(items.at(2).asInt(), 0) << "no CUDA graphs on the CPU: every call has its own output";
}

TEST(ReduceOverheadCuda, MlpWithLibraryMatmulsReplaysAsCudaGraph) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kMlp, "main", {ev::makeStr("cuda")});
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_EQ(inductortest::compiledGraphs(run), 1);
    const std::string& code = run.events.code[0].source;
    EXPECT_NE(code.find("cudagraphs: the second call records a CUDA graph of the kernels and library calls"), std::string::npos) << code;
    EXPECT_NE(code.find("bias fused into the cuBLASLt matmul epilogue"), std::string::npos) << code;
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_LT(items.at(0).asFloat(), 1e-4) << "compiled vs eager, calls 1..10 with changing inputs";
    EXPECT_EQ(items.at(1).asInt(), 0) << "an eager tensor allocated between replays was overwritten";
    // From the second call on the output is the recording's buffer, overwritten by the next replay (PyTorch too).
    EXPECT_EQ(items.at(2).asInt(), 4);
}

const char* kEpilogues = R"(import torch
import torch.nn.functional as F


def lin(x, w, b):
    return F.linear(x, w, b)


def lin_relu(x, w, b):
    return torch.relu(F.linear(x, w, b))


def lin_gelu_tanh(x, w, b):
    return F.gelu(F.linear(x, w, b), approximate='tanh')


def lin_gelu(x, w, b):
    return F.gelu(F.linear(x, w, b))


def lin_nobias_relu(x, w, b):
    return F.relu(F.linear(x, w))


def main(device):
    worst32 = 0.0
    worst16 = 0.0
    with torch.no_grad():
        for dtype in [torch.float32, torch.bfloat16]:
            for shape in [(6, 32), (2, 5, 32)]:
                n = 1
                for s in shape:
                    n = n * s
                x = torch.sin(torch.arange(n, dtype=torch.float32, device=device).reshape(shape) * 0.3).to(dtype)
                w = (torch.cos(torch.arange(24 * 32, dtype=torch.float32, device=device).reshape(24, 32) * 0.11) * 0.3).to(dtype)
                b = torch.sin(torch.arange(24, dtype=torch.float32, device=device) * 0.7).to(dtype)
                for f in [lin, lin_relu, lin_gelu_tanh, lin_gelu, lin_nobias_relu]:
                    got = torch.compile(f)(x, w, b)
                    want = f(x, w, b)
                    err = (got.float() - want.float()).abs().max().item()
                    if dtype == torch.float32:
                        worst32 = max(worst32, err)
                    else:
                        worst16 = max(worst16, err)
    return [worst32, worst16]
)";

TEST(LinearEpilogueCuda, CompiledEqualsEagerForEveryEpilogueDtypeAndRank) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kEpilogues, "main", {ev::makeStr("cuda")});
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_LT(items.at(0).asFloat(), 1e-4) << "float32";
    EXPECT_LT(items.at(1).asFloat(), 0.08) << "bfloat16 (eager rounds the product before the bias; cuBLASLt once)";
    std::string all;
    for (const auto& c : run.events.code) all += c.source + "\n----\n";
    EXPECT_NE(all.find("extern_kernels.addmm("), std::string::npos) << all;
    EXPECT_NE(all.find("bias and relu fused into the cuBLASLt matmul epilogue"), std::string::npos) << all;
    EXPECT_NE(all.find("bias and gelu(approximate='tanh') fused into the cuBLASLt matmul epilogue"), std::string::npos) << all;
    EXPECT_NE(all.find("relu fused into the cuBLASLt matmul epilogue"), std::string::npos) << all;
    EXPECT_NE(all.find("extern_kernels.mm("), std::string::npos) << all;
    EXPECT_NE(all.find("cwb_poi_fused_gelu"), std::string::npos) << "exact GELU stays a kernel:\n" << all;
}

TEST(ReduceOverheadCuda, HostSyncingExternsStillSkipCudaGraphs) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(R"(import torch

def f(x):
    return torch.cumsum(x, 0) * 2

def main():
    g = torch.compile(f, mode='reduce-overhead')
    x = torch.arange(8.0, device='cuda')
    a = g(x)
    b = g(x + 1)
    return [(a - f(x)).abs().max().item(), (b - f(x + 1)).abs().max().item()]
)", "main", {});
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_GE(run.events.code.size(), 1u);
    const std::string& code = run.events.code[0].source;
    if (code.find("extern_kernels.") == std::string::npos) GTEST_SKIP() << "cumsum is lowered now; pick another fallback op";
    EXPECT_NE(code.find("skipping cudagraphs due to extern kernel torch.cumsum"), std::string::npos) << code;
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_EQ(items.at(0).asFloat(), 0.0);
    EXPECT_EQ(items.at(1).asFloat(), 0.0);
}

}  // namespace
