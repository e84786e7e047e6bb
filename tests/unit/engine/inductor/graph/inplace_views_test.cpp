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

/// The ways write_through_a_view.py.in writes through a view (its VARIANTS, in order).
constexpr const char* kVariants[] = {"write through the view", "write through a view of the view",
                                     "write through the view of a view of the input", "write to the base after taking the view",
                                     "write through the view, read both"};

/// The program for one view op: `example` is the op's call on x (tensor/view_ops.def).
std::string program(std::string_view example) {
    return fmt::format(fmt::runtime(enginetest::testProgram("inductor/write_through_a_view.py.in")), fmt::arg("view", example));
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
        const std::string source = program(op.example);
        for (size_t variant = 0; variant < std::size(kVariants); ++variant) {
            SCOPED_TRACE(fmt::format("{} ({}): {}", op.name, op.example, kVariants[variant]));
            inductortest::InductorRun run =
                inductortest::runInductor(source, "main", {eng::vm::makeStr(device), eng::vm::Value(static_cast<int64_t>(variant))});
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
            if (variant == 0) {
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
    const std::string source = enginetest::testProgram("inductor/inplace_ops_without_views.py");
    inductortest::InductorRun run = inductortest::runInductor(source, "main", {});
    ASSERT_TRUE(run.ok) << run.error;
    const ValueList& r = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_TRUE(equalValues(r[0], r[1]));
    EXPECT_TRUE(equalValues(r[2], r[3]));
    EXPECT_EQ(inductortest::compiledGraphs(run), 1);
}

}  // namespace
