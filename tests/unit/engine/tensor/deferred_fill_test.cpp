// Deferred element loops (the capture's example values): a deferred result has eager's sizes, strides and dtype at
// once, its elements only when touched, and they are bit for bit eager's even when an input is written before
// anyone reads the result; a result nobody reads never runs its loop.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/deferred_fill.h"
#include "tensor/linalg.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"

namespace {

using namespace eng::tensor;  // NOLINT: test file

void expectSameBits(const Tensor& want, const Tensor& got, const std::string& what) {
    ASSERT_EQ(want.sizes(), got.sizes()) << what;
    ASSERT_EQ(want.strides(), got.strides()) << what;
    ASSERT_EQ(want.dtype(), got.dtype()) << what;
    EXPECT_EQ(std::memcmp(want.data(), got.data(), want.nbytes()), 0) << what;
}

// B1 of the inductor bench: relu(x * 2 + 1).sin() * sigmoid(x).
Tensor b1(const Tensor& x) {
    const Tensor a = binary(BinaryOp::Add, binary(BinaryOp::Mul, x, Scalar(2.0)), Scalar(1.0));
    return binary(BinaryOp::Mul, unary(UnaryOp::Sin, unary(UnaryOp::Relu, a)), unary(UnaryOp::Sigmoid, x));
}

TEST(DeferredFill, ResultHasEagerGeometryAtOnceAndEagerBitsWhenRead) {
    const Tensor x = randn({3, 70000});  // large enough for the worker pool
    const Tensor eager = b1(x);
    const int64_t before = deferredFillsRun();
    Tensor deferred;
    {
        const DeferredFillScope scope;
        deferred = b1(x);
    }
    EXPECT_EQ(deferredFillsRun(), before) << "no loop runs until the elements are read";
    EXPECT_EQ(deferred.sizes(), eager.sizes());
    EXPECT_EQ(deferred.strides(), eager.strides());
    expectSameBits(eager, deferred, "b1");
    EXPECT_EQ(deferredFillsRun(), before + 6) << "every loop of the chain ran once, when read";
}

TEST(DeferredFill, MatrixProductsAndLinearLayersDeferAndMatchEager) {
    const Tensor x = randn({64, 48}), w = randn({32, 48}), bias = randn({32});
    const Tensor eager = unary(UnaryOp::Gelu, linear(x, w, bias));
    const int64_t before = deferredFillsRun();
    Tensor deferred;
    {
        const DeferredFillScope scope;
        deferred = unary(UnaryOp::Gelu, linear(x, w, bias));
    }
    EXPECT_EQ(deferredFillsRun(), before);
    expectSameBits(eager, deferred, "gelu(linear(x))");
}

TEST(DeferredFill, WritingAnInputFirstRunsThePendingReadersOnItsOldContents) {
    const Tensor x = randn({1000});
    const Tensor want = binary(BinaryOp::Mul, x, Scalar(2.0));
    Tensor y;
    {
        const DeferredFillScope scope;
        y = binary(BinaryOp::Mul, x, Scalar(2.0));
        binaryInPlace(BinaryOp::Add, x, Scalar(1.0));  // x changes before anyone read y
    }
    expectSameBits(want, y, "y = x * 2 read after x += 1");
    copyInto(x, zeros({1000}));
    expectSameBits(want, y, "y after x was overwritten again");
}

TEST(DeferredFill, ViewsOfADeferredResultReadItsElements) {
    const Tensor x = randn({8, 16});
    const Tensor want = unary(UnaryOp::Tanh, x);
    Tensor y;
    {
        const DeferredFillScope scope;
        y = unary(UnaryOp::Tanh, x);
    }
    const Tensor column = y.asStrided({8}, {16}, 3);
    EXPECT_EQ(contiguous(column).dataAs<float>()[5], want.dataAs<float>()[5 * 16 + 3]);
}

TEST(DeferredFill, UnreadResultNeverRunsItsLoopAndLeavesNothingPending) {
    const int64_t before = deferredFillsRun();
    {
        const Tensor x = randn({4096});
        const DeferredFillScope scope;
        const Tensor y = unary(UnaryOp::Exp, binary(BinaryOp::Sub, x, Scalar(1.0)));
        EXPECT_GT(g_deferredStorages.load(), 0);
    }
    EXPECT_EQ(deferredFillsRun(), before);
    EXPECT_EQ(g_deferredStorages.load(), 0) << "dead results and their inputs leave the table";
}

TEST(DeferredFill, LongChainsSettleAndEndWithoutDeepRecursion) {
    // A traced loop of additions leaves one deferred fill per step: reading the last runs them all, and dropping an
    // unread chain releases it, neither by one nested call per step (which overflowed the stack).
    constexpr int kSteps = 100000;
    Tensor read, dropped;
    {
        const DeferredFillScope scope;
        read = zeros({4});
        dropped = zeros({4});
        for (int i = 0; i < kSteps; ++i) {
            read = binary(BinaryOp::Add, read, Scalar(1.0));
            dropped = binary(BinaryOp::Add, dropped, Scalar(1.0));
        }
    }
    EXPECT_EQ(read.dataAs<float>()[3], static_cast<float>(kSteps));
    dropped = Tensor();
    read = Tensor();
    EXPECT_EQ(g_deferredStorages.load(), 0);
}

TEST(DeferredFill, OutsideAScopeAndForIntegerLoopsKernelsRunAtOnce) {
    const int64_t before = deferredFillsRun();
    const Tensor y = unary(UnaryOp::Exp, randn({64}));
    EXPECT_EQ(g_deferredStorages.load(), 0);
    {
        const DeferredFillScope scope;
        const Tensor i = binary(BinaryOp::Add, arange(Scalar(int64_t{10})), Scalar(int64_t{1}));  // may raise: not deferred
        EXPECT_EQ(g_deferredStorages.load(), 0);
        EXPECT_EQ(i.dataAs<int64_t>()[9], 10);
    }
    EXPECT_EQ(deferredFillsRun(), before);
}

}  // namespace
