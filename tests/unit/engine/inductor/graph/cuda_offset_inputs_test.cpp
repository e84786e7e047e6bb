// Generated CUDA kernels assume 16-byte aligned buffers (no run-time checks, no scalar copies of their loops):
// a graph input that is an offset view must still compute what eager computes, through the kernel variant the
// launcher makes for unaligned buffers.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

namespace ev = eng::vm;

const char* kOffsetInputs = R"(import torch
import torch.nn.functional as F


def pointwise(x):
    return torch.relu(x * 2 + 1).sin() * torch.sigmoid(x)


def rows(x):
    return F.layer_norm(x.softmax(dim=-1), [x.shape[-1]])


def main(device):
    torch.manual_seed(0)
    flat = torch.randn(4099, device=device)
    grid = torch.randn(33, 257, device=device, dtype=torch.bfloat16)
    worst = 0.0
    compiled_pointwise = torch.compile(pointwise)
    compiled_rows = torch.compile(rows)
    # Aligned first, then views one element in: the same compiled code serves both.
    for start in (0, 1, 3):
        x = flat[start:start + 4096]
        worst = max(worst, (compiled_pointwise(x) - pointwise(x)).abs().max().item())
        g = grid[:, start:start + 256]
        worst = max(worst, (compiled_rows(g).float() - rows(g).float()).abs().max().item())
    return worst
)";

TEST(CudaOffsetInputs, OffsetViewsComputeWhatEagerComputes) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kOffsetInputs, "main", {ev::makeStr("cuda")});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_LT(run.returned.asFloat(), 5e-2) << "a bfloat16 ulp or two; a misaligned vector would give garbage";
}

}  // namespace
