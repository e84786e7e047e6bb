// Row and column reductions of one cuda tensor (the bench's B6: x.sum(dim=1), x.mean(dim=0)): compiled equals
// eager, and until the CUDA emitter has reductions over the outer range the column sums get their own kernel, with
// that reason in the fusion decisions.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

namespace ev = eng::vm;

const char* kRowsAndColumns = R"(import torch


def f(x):
    return x.sum(dim=1), x.mean(dim=0), x.amax(dim=0, keepdim=True) * 2


def main(device):
    torch.manual_seed(0)
    x = torch.randn(300, 517, device=device)
    got, want = torch.compile(f)(x), f(x)
    return [max((g - w).abs().max().item() for g, w in zip(got, want)), str(got[0].device)]
)";

TEST(CudaRowColumnReductions, CompiledEqualsEagerWithTheReasonRecorded) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kRowsAndColumns, "main", {ev::makeStr("cuda")});
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_LT(items.at(0).asFloat(), 1e-3);  // float sums of 517 and 300 elements in another order
    EXPECT_EQ(items.at(1).as<ev::StrObject>().value, "cuda:0");
    ASSERT_EQ(run.events.code.size(), 1u);
    EXPECT_NE(run.events.code[0].source.find("(one pass over both is generated for the CPU only)"), std::string::npos)
        << run.events.code[0].source;
}

}  // namespace
