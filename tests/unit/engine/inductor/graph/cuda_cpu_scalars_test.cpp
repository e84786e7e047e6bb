// A cuda graph's kernels read device memory only: a 0-d cpu tensor beside cuda tensors (an input, as eager ops
// accept one, or an extern's result) must reach them on the device, and a loss computed by an extern stays there.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

namespace ev = eng::vm;

const char* kCpuScalars = R"(import torch
import torch.nn.functional as F


def scaled(x, s):
    return (x * s).sum(dim=-1) + s


def loss(x, y):
    p = torch.softmax(x, dim=-1)
    return F.cross_entropy(x, y) + (p * p).sum() * 0.01 - F.log_softmax(x, dim=1).mean() * 0.1


def main(device):
    torch.manual_seed(0)
    x = torch.randn(6, 10, device=device)
    y = torch.tensor([1, 0, 9, 3, 3, 7], device=device)
    s = torch.tensor(1.5)
    a, b = torch.compile(scaled)(x, s), scaled(x, s)
    c, d = torch.compile(loss)(x, y), loss(x, y)
    return [(a - b).abs().max().item() + (c - d).abs().max().item(), str(a.device), str(c.device)]
)";

TEST(CudaCpuScalars, ZeroDimCpuTensorsReachKernelsOnTheDevice) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kCpuScalars, "main", {ev::makeStr("cuda")});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(inductortest::compiledGraphs(run), 2);
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_LT(items.at(0).asFloat(), 1e-4);  // float sums in another order
    EXPECT_EQ(items.at(1).as<ev::StrObject>().value, "cuda:0");
    EXPECT_EQ(items.at(2).as<ev::StrObject>().value, "cuda:0");
}

}  // namespace
