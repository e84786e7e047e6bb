// In-place writes through views, compiled: for every view op of the eager runtime (tensor/view_ops.def), a write
// through the view reaches its base and a write to the base reaches the view, exactly as eagerly, with the
// reference interpreter, LLVM code and (on a GPU) CUDA code.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "cuda/driver.h"
#include "inductor_support.h"
#include "tensor/view_ops.h"

namespace {

using eng::vm::Value;
using eng::vm::ValueList;

/// The ways a program writes through a view; `{view}` is the view op's example, a call on `x`.
struct Variant {
    const char* name;
    const char* body;  // the body of f(x0)
};

constexpr Variant kVariants[] = {
    {"write through the view", "    x = x0\n    y = {view}\n    y.mul_(2)\n    return x"},
    {"write through a view of the view", "    x = x0\n    y = {view}\n    z = y[:]\n    z.mul_(2)\n    return x"},
    {"write through the view of a view of the input", "    x = x0[:]\n    y = {view}\n    y.mul_(2)\n    return x0"},
    {"write to the base after taking the view", "    x = x0\n    y = {view}\n    x.mul_(2)\n    return y"},
    {"write through the view, read both", "    x = x0\n    y = {view}\n    y.add_(1)\n    return (x + 1, y * 3)"},
};

/// main(device) runs f compiled, then eagerly, each on a fresh x0: ["ok", result, x0 after, their reprs] or
/// ["error", message].
/// Its third item says whether the eager write reached x0, the fourth whether the view keeps x's dtype and device.
std::string program(std::string_view view, const Variant& variant) {
    std::string body = variant.body;
    body.replace(body.find("{view}"), 6, view);
    return fmt::format(R"(import torch

def f(x0):
{}

def keeps_kind(x):
    try:
        y = {}
    except Exception:
        return False
    return y.dtype == x.dtype and y.device == x.device

def fresh(device):
    return torch.arange(16.0, device=device).reshape(4, 4)

def run(fn, device):
    x0 = fresh(device)
    try:
        out = fn(x0)
    except Exception as e:
        return ["error", str(e)]
    return ["ok", out, x0, repr(out), repr(x0)]

def main(device):
    got = run(torch.compile(f), device)
    want = run(f, device)
    return [got, want, want[0] == "ok" and not torch.equal(want[2], fresh(device)), keeps_kind(fresh(device))]
)",
                       body, view);
}

bool equalValues(const Value& a, const Value& b) {
    if (a.is(eng::vm::Kind::Tuple) && b.is(eng::vm::Kind::Tuple)) {
        const ValueList &x = a.as<eng::vm::TupleObject>().items, &y = b.as<eng::vm::TupleObject>().items;
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (!equalValues(x[i], y[i])) return false;
        return true;
    }
    if (!a.is(eng::vm::Kind::Tensor) || !b.is(eng::vm::Kind::Tensor)) return false;
    return eng::vm::callOp("torch.equal", {eng::vm::callOp("Tensor.cpu", {a}), eng::vm::callOp("Tensor.cpu", {b})}).asInt() != 0;
}

void checkEveryViewOp(bool interpreter, const std::string& device) {
    inductortest::useInterpreter(interpreter);
    int compared = 0;
    for (const eng::tensor::ViewOp& op : eng::tensor::viewOps()) {
        for (const Variant& variant : kVariants) {
            SCOPED_TRACE(fmt::format("{} ({}): {}", op.name, op.example, variant.name));
            const std::string source = program(op.example, variant);
            inductortest::InductorRun run = inductortest::runInductor(source, "main", {eng::vm::makeStr(device)});
            ASSERT_TRUE(run.ok) << run.error << "\n" << source;
            const ValueList& result = run.returned.as<eng::vm::ListObject>().items;
            const ValueList& got = result[0].as<eng::vm::ListObject>().items;
            const ValueList& want = result[1].as<eng::vm::ListObject>().items;
            auto text = [](const Value& v) { return v.as<eng::vm::StrObject>().value; };
            ASSERT_EQ(text(got[0]), text(want[0])) << "compiled: " << text(got.back()) << "\neager: " << text(want.back());
            if (text(want[0]) == "error") {
                EXPECT_EQ(text(got[1]), text(want[1]));
                continue;
            }
            EXPECT_TRUE(equalValues(got[1], want[1])) << "result\ncompiled: " << text(got[3]) << "\neager: " << text(want[3]);
            EXPECT_TRUE(equalValues(got[2], want[2])) << "input after the call\ncompiled: " << text(got[4]) << "\neager: " << text(want[4]);
            // The table's claim about the eager runtime: a view op's result shares its input's storage.
            const bool aliases = op.aliasing == eng::tensor::ViewAliasing::View || result[3].asInt() != 0;
            if (&variant == &kVariants[0]) {
                EXPECT_EQ(result[2].asInt() != 0, aliases) << "whether the eager write through the view reached x";
            }
            ++compared;
        }
    }
    EXPECT_GE(compared, static_cast<int>(eng::tensor::viewOps().size()));
}

TEST(InductorInPlaceViews, EveryViewOpWithTheReferenceInterpreter) { checkEveryViewOp(true, "cpu"); }

TEST(InductorInPlaceViews, EveryViewOpWithNativeCode) { checkEveryViewOp(false, "cpu"); }

TEST(InductorInPlaceViews, EveryViewOpOnCuda) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    checkEveryViewOp(false, "cuda");
}

/// Writes to tensors that no view shares still compile: the checks above must not make every in-place op eager.
TEST(InductorInPlaceViews, InPlaceOpsWithoutViewsStillCompile) {
    inductortest::useInterpreter(false);
    const std::string source = R"(import torch

def f(x, p):
    h = x * 2
    h.add_(1)
    p.mul_(0.5)
    n = x.size(0)
    p.add_(h.sum() * n)
    return h

def main():
    x = torch.arange(6.0).reshape(2, 3)
    p = torch.ones(3)
    q = torch.ones(3)
    got = torch.compile(f)(x, p)
    want = f(x, q)
    return [got, want, p, q]
)";
    inductortest::InductorRun run = inductortest::runInductor(source, "main", {});
    ASSERT_TRUE(run.ok) << run.error;
    const ValueList& r = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_TRUE(equalValues(r[0], r[1]));
    EXPECT_TRUE(equalValues(r[2], r[3]));
    EXPECT_EQ(inductortest::compiledGraphs(run), 1);
}

}  // namespace
