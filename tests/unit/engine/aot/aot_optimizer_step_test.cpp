// torch.compile(opt.step) on cpu and cuda against the eager step on the same device: parameters of several shapes
// (a matrix, a vector, a 3-d tensor, one without a gradient) and every state tensor after several steps, SGD
// (momentum, nesterov, weight decay), Adam and AdamW, under the inductor and aot_eager, float32 and bfloat16.
#include <gtest/gtest.h>

#include "aot_test_support.h"
#include "cuda/driver.h"

namespace {

const char* const kScript = R"(
import torch

def train(opt_name, backend, dtype, device):
    torch.manual_seed(0)
    shapes = [(16, 9), (9,), (3, 4, 5), (2, 2)]
    params = [torch.randn(s).to(device=device, dtype=dtype).requires_grad_(True) for s in shapes]
    if opt_name == "sgd":
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.01, foreach=True)
    elif opt_name == "nesterov":
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.8, nesterov=True)
    elif opt_name == "adam":
        opt = torch.optim.Adam(params, lr=0.01, weight_decay=0.02, fused=True)
    else:
        opt = torch.optim.AdamW(params, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)
    step = torch.compile(opt.step, backend=backend) if backend else opt.step
    x = torch.linspace(-1.0, 1.0, 16).to(device=device, dtype=dtype)
    for i in range(4):
        w, b, k, unused = params
        loss = ((x @ w + b).tanh() ** 2).sum() + (k * k).sum() * 0.5
        loss.backward()
        step()
        opt.zero_grad()
        opt.param_groups[0]["lr"] *= 0.9
    out = [p.detach().float().cpu() for p in params]
    for p in params[:3]:
        for key in sorted(opt.state[p].keys()):
            out.append(opt.state[p][key].detach().float().cpu())
    return out

def main(opt_name, backend, dtype_name, device):
    dtype = torch.bfloat16 if dtype_name == "bfloat16" else torch.float32
    return [train(opt_name, None, dtype, device), train(opt_name, backend, dtype, device)]
)";

struct StepCase {
    const char* optimizer;
    const char* backend;
    const char* dtype;
};

class AotOptimizerStep : public ::testing::TestWithParam<std::tuple<StepCase, const char*>> {
protected:
    void SetUp() override {
        if (std::string(std::get<1>(GetParam())) == "cuda" && !eng::cuda::cudaAvailable())
            GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
    }
};

TEST_P(AotOptimizerStep, CompiledStepMatchesEager) {
    const auto& [c, device] = GetParam();
    capturetest::CapturedRun run = aottest::runWithAot(
        kScript, "optimizer_step.py",
        {eng::vm::makeStr(c.optimizer), eng::vm::makeStr(c.backend), eng::vm::makeStr(c.dtype), eng::vm::makeStr(device)});
    ASSERT_TRUE(run.ok) << run.error << run.out;
    std::string sources;
    for (const auto& code : run.events.code) sources += code.source.substr(0, 800) + "\n";
    // Every step compiled as AOT Autograd's inference graph; none ran on the eager runtime.
    EXPECT_NE(sources.find("_inference']"), std::string::npos) << sources;
    EXPECT_EQ(sources.find("runs on the eager runtime"), std::string::npos) << sources;
    // A few horizontally fused kernels over every parameter, not one per parameter: the step counters (Adam),
    // then one combo kernel whose parts update each parameter and its state.
    if (std::string(c.backend) == "inductor") {
        for (const auto& code : run.events.code) {
            EXPECT_LE(code.kernels.size(), 2u) << code.source;
            EXPECT_NE(code.kernels.back().name.find("cwb_for_fused_"), std::string::npos) << code.source;
        }
    }
    aottest::expectSameAsEager(run, std::string(c.dtype) == "bfloat16" ? 2e-2 : 1e-5);
}

INSTANTIATE_TEST_SUITE_P(AotAutograd, AotOptimizerStep,
                         ::testing::Combine(::testing::Values(StepCase{"sgd", "inductor", "float32"}, StepCase{"nesterov", "aot_eager", "float32"},
                                                              StepCase{"adam", "inductor", "float32"}, StepCase{"adamw", "inductor", "float32"},
                                                              StepCase{"adamw", "aot_eager", "float32"}, StepCase{"adam", "inductor", "bfloat16"}),
                                            ::testing::Values("cpu", "cuda")),
                         [](const auto& param) {
                             const StepCase& c = std::get<0>(param.param);
                             return std::string(std::get<1>(param.param)) + "_" + c.optimizer + "_" + c.backend + "_" + c.dtype;
                         });

}  // namespace
