// What only the first runs of compiled code learn reaches the trace as warnings of its compile: max-autotune's
// timed candidates and the one kept, per kernel (on a GPU); nothing on the CPU, where autotuning is skipped.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

namespace ev = eng::vm;

const char* kAutotuned = R"(import torch


def f(x):
    return torch.softmax(x * 2, dim=-1)


def main(device):
    x = torch.randn(256, 1024, device=device)
    g = torch.compile(f, mode="max-autotune-no-cudagraphs")
    first = g(x)
    second = g(x)
    return (second - f(x)).abs().max().item()
)";

TEST(RunNotes, MaxAutotuneChoicesAreRecordedAfterTheFirstRunOnCuda) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kAutotuned, "main", {ev::makeStr("cuda")});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_LT(run.returned.asFloat(), 1e-5);
    ASSERT_EQ(run.events.warnings.size(), 1u) << "one kernel, one note, once";
    const std::string& note = run.events.warnings[0];
    EXPECT_EQ(note.rfind("max-autotune: cwb_red_fused_", 0), 0u) << note;
    EXPECT_NE(note.find("autotuned: heuristic"), std::string::npos) << note;
    EXPECT_NE(note.find("block 1024"), std::string::npos) << note;
    EXPECT_NE(note.find("(kept "), std::string::npos) << note;
}

TEST(RunNotes, TheCpuSaysAtCompileTimeThatAutotuningIsSkipped) {
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kAutotuned, "main", {ev::makeStr("cpu")});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_TRUE(run.events.warnings.empty());
    ASSERT_FALSE(run.events.code.empty());
    EXPECT_NE(run.events.code.back().source.find("# max-autotune: skipped on the cpu"), std::string::npos);
}

}  // namespace
