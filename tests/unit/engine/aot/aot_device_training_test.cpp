// Compiled training steps against eager on the same device (cpu, and cuda where there is one): losses, gradients
// and parameters after several optimizer steps (SGD with momentum, Adam, AdamW) of an MLP, a LayerNorm/GELU/softmax/cross-entropy block, a causal attention
// block and the ops whose derivatives are recorded from the eager formulas, in float32 and bfloat16, through the
// inductor (LLVM or CUDA code) and aot_eager. The cuda cases skip without a device (tests/gpu/run_gpu_tests.sh runs them).
#include <gtest/gtest.h>

#include "aot_test_support.h"
#include "cuda/driver.h"

namespace {

const std::string kScript = std::string(R"(
import torch
import torch.nn as nn
import torch.nn.functional as F

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x, y):
        h = self.fc1(x)
        return ((self.fc2(torch.relu(h) * 2.0 - torch.tanh(h)) - y) ** 2).mean()

)") + aottest::kLayerNormBlock + R"(
class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.proj = nn.Linear(16, 16)
        self.ln = nn.LayerNorm(16)

    def forward(self, x, y):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln(x)).split(16, dim=2)
        q = q.view(b, t, 4, 4).transpose(1, 2)
        k = k.view(b, t, 4, 4).transpose(1, 2)
        v = v.view(b, t, 4, 4).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * 0.5
        mask = torch.ones(t, t, device=x.device).tril() == 0
        att = att.masked_fill(mask, -1e9).softmax(dim=-1)
        out = x + self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))
        return ((out - y) ** 2).mean()

class Recorded(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)

    def forward(self, x, y):
        h = self.fc(x)
        z = (torch.atan(h) * torch.clamp(h, -0.5, 0.8) + F.leaky_relu(h, 0.2) + F.softplus(h) * torch.log1p(h * h)
             + torch.maximum(h, x) + torch.where(h > 0, h * x, torch.erf(h)) + torch.reciprocal(h * h + 1.0) + torch.lerp(h, x, 0.25))
        return ((z - y) ** 2).mean()

def data(name, dtype):
    torch.manual_seed(1)
    if name == "mlp":
        return torch.randn(8, 16), torch.randn(8, 8)
    if name == "block":
        return torch.randn(6, 24), torch.tensor([1, 0, 9, 3, 3, 7])
    if name == "attention":
        return torch.randn(2, 5, 16), torch.randn(2, 5, 16)
    return torch.randn(6, 12), torch.randn(6, 12)

def train(name, backend, opt_name, dtype, device):
    torch.manual_seed(0)
    model = {"mlp": MLP, "block": Block, "attention": Attention, "recorded": Recorded}[name]()
    model = model.to(device=device, dtype=dtype)
    x, y = data(name, dtype)
    x = x.to(device=device, dtype=dtype)
    y = y.to(device=device, dtype=dtype if y.is_floating_point() else y.dtype)
    run = torch.compile(model, backend=backend) if backend else model
    params = list(model.parameters())
    if opt_name == "adam":
        opt = torch.optim.Adam(params, lr=0.01)
    elif opt_name == "adamw":
        opt = torch.optim.AdamW(params, lr=0.01, weight_decay=0.1)
    else:
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)
    out = []
    for i in range(3):
        opt.zero_grad()
        loss = run(x, y)
        loss.backward()
        out.append(loss.detach().float().cpu())
        for p in params:
            out.append(p.grad.float().cpu())
        opt.step()
    for p in params:
        out.append(p.detach().float().cpu())
    return out

def main(name, backend, opt_name, dtype_name, device):
    dtype = torch.bfloat16 if dtype_name == "bfloat16" else torch.float32
    return [train(name, None, opt_name, dtype, device), train(name, backend, opt_name, dtype, device)]
)";

// Attention trains with SGD: its key bias has a gradient of zero up to rounding (softmax ignores a per-row constant),
// which Adam would normalise into full-size steps of noise.
struct TrainingCase {
    const char* model;
    const char* backend;
    const char* optimizer;
    const char* dtype;
};

class AotDeviceTraining : public ::testing::TestWithParam<std::tuple<TrainingCase, const char*>> {
protected:
    void SetUp() override {
        if (std::string(std::get<1>(GetParam())) == "cuda" && !eng::cuda::cudaAvailable())
            GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
    }
};

TEST_P(AotDeviceTraining, CompiledStepsMatchEager) {
    const auto& [c, device] = GetParam();
    capturetest::CapturedRun run = aottest::runWithAot(kScript, "device_train.py",
                                                       {eng::vm::makeStr(c.model), eng::vm::makeStr(c.backend), eng::vm::makeStr(c.optimizer),
                                                        eng::vm::makeStr(c.dtype), eng::vm::makeStr(device)});
    ASSERT_TRUE(run.ok) << run.error << run.out;
    std::string sources;
    bool compiled = false;
    for (const auto& code : run.events.code) {
        compiled = compiled || code.source.find("# AOT Autograd: joint graph") != std::string::npos;
        sources += code.source.substr(0, 600) + "\n";
    }
    EXPECT_TRUE(compiled) << sources;
    // bfloat16 keeps 8 bits of mantissa: a different summation order moves results by a few of its ulps.
    aottest::expectSameAsEager(run, std::string(c.dtype) == "bfloat16" ? 3e-2 : 2e-4);
}

INSTANTIATE_TEST_SUITE_P(AotAutograd, AotDeviceTraining,
                         ::testing::Combine(::testing::Values(TrainingCase{"mlp", "inductor", "sgd", "float32"}, TrainingCase{"mlp", "aot_eager", "adam", "float32"},
                                           TrainingCase{"block", "inductor", "adamw", "float32"}, TrainingCase{"block", "aot_eager", "sgd", "float32"},
                                           TrainingCase{"attention", "inductor", "sgd", "float32"}, TrainingCase{"recorded", "inductor", "sgd", "float32"},
                                           TrainingCase{"recorded", "aot_eager", "adamw", "float32"}, TrainingCase{"mlp", "inductor", "adamw", "bfloat16"},
                                           TrainingCase{"block", "inductor", "adam", "bfloat16"}),
                                            ::testing::Values("cpu", "cuda")),
                         [](const auto& param) {
                             const TrainingCase& c = std::get<0>(param.param);
                             return std::string(std::get<1>(param.param)) + "_" + c.model + "_" + c.backend + "_" + c.optimizer + "_" + c.dtype;
                         });

}  // namespace
