// Random ops under torch.compile: tracing must not draw from the generator, so a compiled call gives the values
// eager gives after the same manual_seed and leaves the generator where eager leaves it.
#include <gtest/gtest.h>

#include "capture_support.h"

namespace {

// The same body compiled and eager; each run prints the values of the call and of one draw after it.
const char* kSource = R"(import torch

def body(x):
    noise = torch.rand(4)
    y = x + noise * torch.randn(4)
    return y + torch.rand_like(x)

compiled = torch.compile(body)

def run(fn):
    torch.manual_seed(7)
    out = fn(torch.ones(4))
    after = torch.rand(3)
    return out.tolist(), after.tolist()

def main():
    return run(compiled), run(body)
)";

}  // namespace

TEST(CaptureRng, CompiledRandomOpsMatchEagerValuesAndState) {
    capturetest::CapturedRun run = capturetest::runCaptured(kSource, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.uniqueGraphs, 1);
    eng::vm::Interpreter vm(std::cout);
    const auto& pair = run.returned.as<eng::vm::TupleObject>().items;
    ASSERT_EQ(pair.size(), 2u);
    // repr of the compiled run's (values, next draw) equals the eager run's.
    EXPECT_EQ(vm.repr(pair[0]), vm.repr(pair[1]));
}

TEST(CaptureRng, GraphBreakBetweenRandomOpsKeepsTheEagerStream) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    a = x + torch.rand(2)
    print("break")
    return a * torch.randn(2)

def plain(x):
    a = x + torch.rand(2)
    return a * torch.randn(2)

def main():
    torch.manual_seed(3)
    c = f(torch.ones(2)).tolist() + torch.rand(1).tolist()
    torch.manual_seed(3)
    e = plain(torch.ones(2)).tolist() + torch.rand(1).tolist()
    return c, e
)";
    capturetest::CapturedRun run = capturetest::runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    eng::vm::Interpreter vm(std::cout);
    const auto& pair = run.returned.as<eng::vm::TupleObject>().items;
    ASSERT_EQ(pair.size(), 2u);
    EXPECT_EQ(vm.repr(pair[0]), vm.repr(pair[1]));
}
