// What only the runs of compiled code learn reaches the trace as warnings of its compile: max-autotune's timed
// candidates and the one kept, per kernel (on a GPU; nothing on the CPU, where autotuning is skipped), and an extern
// kernel whose result has other sizes than the graph was compiled for (the graph then runs eagerly).
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

// Once a's size is dynamic, torch.mm, torch.cat and torch.stack get their output sizes from their operands'
// ([s0, 5], [s0 + s0], [s0, 2]); torch.outer's is traced as [s0, s0] (b's static 5 was the same size as s0 on the
// call that recompiled).
const char* kExternSizes = R"(import torch


def with_shape_rules(a, b):
    return torch.mm(a.unsqueeze(1), b.unsqueeze(0)) * 2, torch.cat([a, a]) + 1, torch.stack([a, a], dim=1)


def traced_sizes(a, b):
    return torch.outer(a, b) * 2


def agree(f):
    g = torch.compile(f)
    b = torch.arange(5, dtype=torch.float32)
    same = []
    for n in [2, 5, 4, 7]:
        a = torch.arange(n, dtype=torch.float32) + 1
        same.append(all(torch.equal(x, y) for x, y in zip(g(a, b), f(a, b))))
    return str(same)


def shape_rules():
    return agree(with_shape_rules)


def traced():
    return agree(traced_sizes)
)";

TEST(RunNotes, ExternsWithShapeRulesKeepDynamicSizesCompiled) {
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kExternSizes, "shape_rules", {});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.returned.str(), "[True, True, True, True]");
    EXPECT_TRUE(run.events.warnings.empty()) << run.events.warnings[0];
    EXPECT_EQ(inductortest::compiledGraphs(run), 2);
}

TEST(RunNotes, AnExternResultOfOtherSizesRunsTheGraphEagerlyFromThenOn) {
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kExternSizes, "traced", {});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.returned.str(), "[True, True, True, True]");
    ASSERT_EQ(run.events.warnings.size(), 1u) << "noted once, when it first happens";
    EXPECT_EQ(run.events.warnings[0],
              "cwb inductor: this graph runs on the eager runtime from now on: extern kernel torch.outer (buf0) returned sizes "
              "[4, 5] where the compiled graph expects [4, 4]");
}

}  // namespace
