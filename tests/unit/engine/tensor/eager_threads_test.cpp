// Eager CPU kernels split large tensors over the worker pool's threads: every pointwise row, copies, where/clamp,
// reductions, cumsum, softmax and layer_norm give bit for bit the same result on one thread and on several, for
// contiguous and strided inputs whose sizes split rows between threads; torch.set_num_threads sets the count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "elementwise_rows.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/reduction.h"
#include "tensor/registry.h"
#include "tensor/shape.h"
#include "tensor/worker_pool.h"

namespace {

using namespace eng::tensor;  // NOLINT: test file

using elementwise_rows::kBinaryOps;
using elementwise_rows::kUnaryOps;

// Same sizes, strides' effect and bytes (NaNs included, as bits).
void expectIdentical(const Tensor& want, const Tensor& got, const std::string& what) {
    ASSERT_EQ(want.sizes(), got.sizes()) << what;
    ASSERT_EQ(want.dtype(), got.dtype()) << what;
    const Tensor w = contiguous(want), g = contiguous(got);
    EXPECT_EQ(std::memcmp(w.data(), g.data(), w.nbytes()), 0) << what << " differs between one thread and several";
}

class EagerThreads : public ::testing::Test {
protected:
    void TearDown() override { setWorkerThreadCount(saved_); }

    // fn() on one thread and on `threads`, compared byte for byte.
    void expectSameOnThreads(const std::function<Tensor()>& fn, const std::string& what) {
        setWorkerThreadCount(1);
        const Tensor single = fn();
        for (int threads : {3, 8}) {
            setWorkerThreadCount(threads);
            expectIdentical(single, fn(), what + " on " + std::to_string(threads) + " threads");
        }
    }

    const int saved_ = workerThreadCount();
};

// 2 x 65537 + 3 elements in rows of 389: past the grain, with ranges that start inside rows.
Tensor largeInput(DType dtype, double scale) {
    return to(mul(randn({337, 389}), Scalar(scale)), dtype);
}

TEST_F(EagerThreads, EveryFloatPointwiseRowIsBitIdentical) {
    for (DType dtype : {DType::Float32, DType::Float64}) {
        const Tensor x = largeInput(dtype, 3.0);
        const Tensor y = largeInput(dtype, 2.0);
        const Tensor xt = t(y);  // strided: iterated through the transposed layout
        for (UnaryOp op : kUnaryOps) {
            if (rowOf(op).typing == eng::ops::ElementTyping::Integral) continue;
            expectSameOnThreads([&] { return unary(op, x); }, std::string(rowOf(op).call));
            expectSameOnThreads([&] { return unary(op, xt); }, std::string(rowOf(op).call) + " (transposed)");
        }
        for (BinaryOp op : kBinaryOps) {
            if (rowOf(op).typing == eng::ops::ElementTyping::Integral) continue;
            expectSameOnThreads([&] { return binary(op, x, y); }, std::string(rowOf(op).call));
            expectSameOnThreads([&] { return binary(op, x, fromDoubles({1.5}, {1}, dtype)); }, std::string(rowOf(op).call) + " scalar");
            expectSameOnThreads([&] { return binary(op, t(x), contiguous(t(y))); }, std::string(rowOf(op).call) + " strided");
        }
    }
}

TEST_F(EagerThreads, CopiesSelectionsAndIntegerMathAreBitIdentical) {
    const Tensor x = largeInput(DType::Float32, 4.0);
    const Tensor ints = to(mul(x, Scalar(100.0)), DType::Int64);
    expectSameOnThreads([&] { return contiguous(t(x)); }, "contiguous of a transpose");
    expectSameOnThreads([&] { return to(x, DType::Float16); }, "to(float16)");
    expectSameOnThreads([&] { return clone(x); }, "clone");
    expectSameOnThreads([&] { return where(gt(x, Scalar(0.5)), Operand(x), Operand(Scalar(-1.0))); }, "where");
    expectSameOnThreads([&] { return clamp(x, Operand(Scalar(-1.0)), Operand(Scalar(2.0))); }, "clamp");
    expectSameOnThreads([&] { return binary(BinaryOp::FloorDiv, ints, fromDoubles({7}, {1}, DType::Int64)); }, "int floor_divide");
    // In-place writes over a shifted view of their own input depend on the order of the writes: one thread's.
    expectSameOnThreads([&] {
        const Tensor running = arange(Scalar(int64_t{200000}), TensorOptions{DType::Int64});
        binaryInPlace(BinaryOp::Add, narrow(running, 0, 1, 199999), narrow(running, 0, 0, 199999));
        copyInto(narrow(running, 0, 0, 199999), narrow(running, 0, 1, 199999));
        return running;
    }, "x[1:] += x[:-1]; x[:-1] = x[1:]");
}

TEST_F(EagerThreads, ReductionsAreBitIdenticalAndDeterministic) {
    for (DType dtype : {DType::Float32, DType::Float64}) {
        const Tensor x = largeInput(dtype, 5.0);
        const Tensor xt = t(x);
        for (const Tensor& input : {x, xt}) {
            const std::string layout = input.isContiguous() ? "" : " (transposed)";
            expectSameOnThreads([&] { return sum(input, std::vector<int64_t>{1}); }, "sum(dim=1)" + layout);
            expectSameOnThreads([&] { return mean(input, std::vector<int64_t>{0}); }, "mean(dim=0)" + layout);
            expectSameOnThreads([&] { return amax(input, std::vector<int64_t>{1}); }, "amax(dim=1)" + layout);
            expectSameOnThreads([&] { return argmax(input, 0); }, "argmax(dim=0)" + layout);
            expectSameOnThreads([&] { return var(input, std::vector<int64_t>{1}); }, "var(dim=1)" + layout);
            expectSameOnThreads([&] { return cumsum(input, 1); }, "cumsum(dim=1)" + layout);
            expectSameOnThreads([&] { return cumsum(input, 0); }, "cumsum(dim=0)" + layout);
        }
        expectSameOnThreads([&] { return sum(reshape(x, {-1})); }, "sum of everything");
    }
}

TEST_F(EagerThreads, ReductionsOfLongRangesCombineBlocksAsOnePassWould) {
    // 3 blocks and a part of 2**16 elements, in a 3-d tensor whose reduced rows (of 389) straddle the blocks.
    const Tensor x = largeInput(DType::Float32, 5.0);
    const Tensor cube = reshape(randn({4, 337, 389}), {4, 337, 389});
    for (const Tensor& input : {x, t(x), cube}) {
        expectSameOnThreads([&] { return sum(input); }, "sum()");
        expectSameOnThreads([&] { return mean(input, std::vector<int64_t>{-2, -1}); }, "mean(dim=(-2, -1))");
        expectSameOnThreads([&] { return amax(input); }, "amax()");
        expectSameOnThreads([&] { return argmin(input); }, "argmin()");
        expectSameOnThreads([&] { return all(gt(input, Scalar(-4.0))); }, "all()");
    }
    // Float sums: the blocks' partial sums, in double, against one serial double sum.
    std::vector<double> values = toDoubles(x);
    double serial = 0;
    for (double v : values) serial += v;
    EXPECT_NEAR(toDoubles(sum(to(x, DType::Float64)))[0], serial, 1e-9 * values.size());
    // Among equal extremes the first wins, and the first NaN over everything; each pair in two blocks.
    ASSERT_EQ(values.size(), 131093u);
    values.assign(values.size(), 1.0);
    values[70000] = 7.0;
    values[131080] = 7.0;
    Tensor ties = fromDoubles(values, {static_cast<int64_t>(values.size())});
    expectSameOnThreads([&] { return argmax(ties); }, "argmax with ties");
    EXPECT_EQ(toDoubles(argmax(ties))[0], 70000);
    values[80000] = std::numeric_limits<double>::quiet_NaN();
    values[131090] = std::numeric_limits<double>::quiet_NaN();
    ties = fromDoubles(values, {static_cast<int64_t>(values.size())});
    EXPECT_EQ(toDoubles(argmax(ties))[0], 80000);
    EXPECT_EQ(toDoubles(argmin(ties))[0], 80000);
    EXPECT_TRUE(std::isnan(toDoubles(amax(ties))[0]));
    // Integer sums are exact whichever way they are split.
    const Tensor ints = to(mul(x, Scalar(1000.0)), DType::Int64);
    int64_t exact = 0;
    for (double v : toDoubles(ints)) exact += static_cast<int64_t>(v);
    EXPECT_EQ(toDoubles(sum(ints))[0], static_cast<double>(exact));
}

TEST_F(EagerThreads, SoftmaxAndLayerNormRowsAreBitIdentical) {
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
        const Tensor x = largeInput(dtype, 6.0);
        const Tensor weight = to(randn({389}), dtype), bias = to(randn({389}), dtype);
        expectSameOnThreads([&] { return softmax(x, 1); }, "softmax(dim=1)");
        expectSameOnThreads([&] { return softmax(x, 0); }, "softmax(dim=0)");
        expectSameOnThreads([&] { return logSoftmax(t(x), 1); }, "log_softmax of a transpose");
        expectSameOnThreads([&] { return layerNorm(x, {389}, weight, bias, 1e-5); }, "layer_norm");
    }
}

TEST_F(EagerThreads, SetNumThreadsSetsTheCountAndRefusesNonPositiveCounts) {
    const OpRegistry& ops = OpRegistry::instance();
    const Value three[] = {Value(int64_t{3})}, zero[] = {Value(int64_t{0})};
    ops.call("torch.set_num_threads", three);
    EXPECT_EQ(ops.call("torch.get_num_threads", std::span<const Value>()).toInt(), 3);
    EXPECT_EQ(workerThreadCount(), 3);
    try {
        ops.call("torch.set_num_threads", zero);
        FAIL() << "set_num_threads(0) was accepted";
    } catch (const TensorError& e) {
        EXPECT_EQ(std::string(e.pythonClass()), "RuntimeError");
        EXPECT_STREQ(e.what(), "set_num_threads expects a positive integer");
    }
    EXPECT_EQ(workerThreadCount(), 3);
}

}  // namespace
