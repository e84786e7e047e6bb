// Every CUDA op equals the CPU op on random inputs: same shape, dtype and strides, values within float
// rounding (float32 rtol 1e-5; matmul with TF32 off). Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "cuda/driver.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/linalg.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace {

using namespace eng::tensor;
using Inputs = std::vector<Tensor>;
using Op = std::function<Tensor(const Inputs&)>;

const Device kCuda = Device::parse("cuda:0");

class CudaOps : public ::testing::Test {
protected:
    void SetUp() override {
        if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
        manualSeed(1234);
    }

    // Runs op on the CPU inputs and on copies of them on the GPU, and compares the results.
    static void expectSame(const std::string& what, const Op& op, const Inputs& cpuInputs, double rtol = 1e-5, double atol = 1e-6) {
        SCOPED_TRACE(what);
        const Tensor expected = op(cpuInputs);
        Inputs onGpu;
        for (const Tensor& t : cpuInputs) onGpu.push_back(to(t, std::nullopt, kCuda));
        const Tensor actual = op(onGpu);
        ASSERT_EQ(actual.device().type(), DeviceType::CUDA);
        expectMatches(expected, to(actual, std::nullopt, kCpu), rtol, atol);
    }

    static void expectMatches(const Tensor& expected, const Tensor& actual, double rtol, double atol) {
        ASSERT_EQ(actual.sizes(), expected.sizes());
        ASSERT_EQ(actual.dtype(), expected.dtype());
        EXPECT_EQ(actual.strides(), expected.strides());
        const std::vector<double> want = toDoubles(expected), got = toDoubles(actual);
        for (size_t i = 0; i < want.size(); ++i) {
            if (std::isnan(want[i])) {
                EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
                continue;
            }
            if (std::isinf(want[i])) {
                EXPECT_EQ(got[i], want[i]) << "element " << i;
                continue;
            }
            ASSERT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << "element " << i;
        }
    }
};

Tensor randomFloats(const Shape& shape, DType dtype = DType::Float32) { return to(randn(shape), dtype); }
Tensor randomInts(const Shape& shape, int64_t low, int64_t high, DType dtype = DType::Int64) {
    return randint(low, high, shape, TensorOptions{dtype, kCpu, false});
}

// Inputs inside each unary op's domain, so that both sides compare numbers rather than NaNs.
Tensor domainInput(UnaryOp op) {
    const Tensor x = randomFloats({6, 7});
    switch (op) {
        case UnaryOp::Log:
        case UnaryOp::Log2:
        case UnaryOp::Log10:
        case UnaryOp::Sqrt:
        case UnaryOp::Rsqrt: return add(unary(UnaryOp::Abs, x), Scalar(0.1));
        case UnaryOp::Log1p: return unary(UnaryOp::Abs, x);
        case UnaryOp::Asin:
        case UnaryOp::Acos: return mul(unary(UnaryOp::Tanh, x), Scalar(0.9));
        default: return x;
    }
}

TEST_F(CudaOps, EveryUnaryOpOnFloat32) {
    for (int i = 0; i <= static_cast<int>(UnaryOp::IsFinite); ++i) {
        const auto op = static_cast<UnaryOp>(i);
        if (op == UnaryOp::BitNot) continue;  // integers and bools only
        // Transposed input: the kernels index arbitrary strides, and outputs keep the input's layout.
        expectSame("unary " + std::to_string(i), [op](const Inputs& in) { return unary(op, transpose(in[0], 0, 1)); }, {domainInput(op)});
    }
}

TEST_F(CudaOps, UnaryOpsOnIntegersBoolsAndOtherFloats) {
    for (UnaryOp op : {UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sign, UnaryOp::Relu, UnaryOp::Square, UnaryOp::BitNot,
                       UnaryOp::LogicalNot, UnaryOp::Sin, UnaryOp::Exp})
        expectSame("int32 unary " + std::to_string(static_cast<int>(op)), [op](const Inputs& in) { return unary(op, in[0]); },
                   {randomInts({5, 4}, -50, 50, DType::Int32)});
    expectSame("bool not", [](const Inputs& in) { return unary(UnaryOp::LogicalNot, in[0]); }, {gt(randomFloats({9}), Scalar(0.0))});
    for (DType d : {DType::Float64, DType::Float16, DType::BFloat16})
        for (UnaryOp op : {UnaryOp::Exp, UnaryOp::Tanh, UnaryOp::Gelu, UnaryOp::Sigmoid})
            expectSame(std::string("unary on ") + std::string(dtypeName(d)), [op](const Inputs& in) { return unary(op, in[0]); },
                       {randomFloats({33}, d)}, d == DType::Float64 ? 1e-12 : 1e-2, d == DType::Float64 ? 1e-14 : 1e-3);
}

TEST_F(CudaOps, EveryBinaryOpWithBroadcasting) {
    for (int i = 0; i <= static_cast<int>(BinaryOp::LogicalXor); ++i) {
        const auto op = static_cast<BinaryOp>(i);
        expectSame("float binary " + std::to_string(i), [op](const Inputs& in) { return binary(op, in[0], in[1]); },
                   {randomFloats({4, 1, 5}), add(unary(UnaryOp::Abs, randomFloats({3, 5})), Scalar(0.5))});
    }
    for (int i = 0; i <= static_cast<int>(BinaryOp::ShiftRight); ++i) {
        const auto op = static_cast<BinaryOp>(i);
        if (op == BinaryOp::Div || op == BinaryOp::Atan2) continue;  // promote to float: covered above
        expectSame("int binary " + std::to_string(i), [op](const Inputs& in) { return binary(op, in[0], in[1]); },
                   {randomInts({6, 5}, -40, 40, DType::Int32), randomInts({5}, 1, 7, DType::Int32)});
    }
    expectSame("mixed dtypes and a python scalar", [](const Inputs& in) { return add(mul(in[0], Scalar(2.5)), in[1]); },
               {randomInts({3, 4}, -5, 5), randomFloats({4}, DType::Float64)}, 1e-12, 1e-12);
    expectSame("cpu zero-dim operand", [](const Inputs& in) { return sub(in[0], scalarTensor(Scalar(1.5))); }, {randomFloats({7})});
    expectSame("in place", [](const Inputs& in) {
        const Tensor target = clone(in[0]);
        addInPlace(target, in[1], Scalar(0.5));
        return target;
    }, {randomFloats({4, 3}), randomFloats({3})});
}

TEST_F(CudaOps, SelectionOps) {
    expectSame("where", [](const Inputs& in) { return where(gt(in[0], Scalar(0.0)), in[0], in[1]); },
               {randomFloats({4, 5}), randomFloats({5})});
    expectSame("where scalar", [](const Inputs& in) { return where(lt(in[0], Scalar(0.0)), Scalar(int64_t{0}), in[0]); }, {randomFloats({8})});
    expectSame("clamp scalars", [](const Inputs& in) { return clamp(in[0], Operand(Scalar(-0.5)), Operand(Scalar(0.7))); }, {randomFloats({20})});
    expectSame("clamp tensor low", [](const Inputs& in) { return clamp(in[0], Operand(in[1]), std::nullopt); }, {randomFloats({3, 4}), randomFloats({4})});
    expectSame("masked_fill", [](const Inputs& in) { return maskedFill(in[0], gt(in[1], Scalar(0.0)), Scalar(-7.0)); },
               {randomFloats({3, 4}), randomFloats({4})});
    expectSame("fill_", [](const Inputs& in) { return fillInPlace(clone(in[0]), Scalar(int64_t{3})); }, {randomInts({5}, 0, 9)});
    expectSame("leaky_relu", [](const Inputs& in) { return leakyRelu(in[0], 0.2); }, {randomFloats({11})});
    for (double e : {2.0, 3.0, 0.5, -1.0, 1.7, 0.0})
        expectSame("pow " + std::to_string(e), [e](const Inputs& in) { return pow(in[0], Scalar(e)); },
                   {add(unary(UnaryOp::Abs, randomFloats({9})), Scalar(0.2))});
}

TEST_F(CudaOps, CopiesCastsAndCreation) {
    constexpr DType kTypes[] = {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32,
                                DType::Int64, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
    const Tensor values = mul(randomFloats({4, 6}), Scalar(20.0));
    for (DType from : kTypes)
        for (DType target : kTypes)
            expectSame(std::string("cast ") + std::string(dtypeName(from)) + " to " + std::string(dtypeName(target)),
                       [target](const Inputs& in) { return to(in[0], target); }, {to(values, from)});
    expectSame("contiguous of a permuted view", [](const Inputs& in) { return contiguous(permute(in[0], {2, 0, 1})); },
               {randomFloats({3, 4, 5})});
    expectSame("copy into a strided view", [](const Inputs& in) {
        const Tensor target = zerosLike(in[0], TensorOptions{std::nullopt, in[0].device(), false});
        copyInto(slice(target, 1, 1, std::nullopt, 2), in[1]);
        return target;
    }, {randomFloats({3, 6}), randomFloats({3, 1})});
    const TensorOptions onCuda{std::nullopt, kCuda, false}, onCpu{};
    auto createdAlike = [&](const std::string& what, const std::function<Tensor(const TensorOptions&)>& make) {
        SCOPED_TRACE(what);
        const Tensor gpu = make(onCuda);
        ASSERT_EQ(gpu.device().type(), DeviceType::CUDA);
        expectMatches(make(onCpu), to(gpu, std::nullopt, kCpu), 0, 0);
    };
    createdAlike("zeros", [](const TensorOptions& o) { return zeros({2, 3}, o); });
    createdAlike("ones int", [](const TensorOptions& o) { return ones({4}, TensorOptions{DType::Int32, o.device, false}); });
    createdAlike("full", [](const TensorOptions& o) { return full({3, 2}, Scalar(2.5), o); });
    createdAlike("arange", [](const TensorOptions& o) { return arange(Scalar(int64_t{3}), Scalar(17.5), Scalar(0.5), o); });
    createdAlike("linspace", [](const TensorOptions& o) { return linspace(Scalar(-2.0), Scalar(2.0), 9, o); });
    createdAlike("eye", [](const TensorOptions& o) { return eye(3, 4, o); });
}

TEST_F(CudaOps, Reductions) {
    const Tensor x = randomFloats({5, 6, 7});
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 2}, {-1, 0, 1}})
        for (bool keepdim : {false, true}) {
            const std::string tag = " dims " + std::to_string(dims.size()) + " first " + std::to_string(dims[0]) + (keepdim ? " keep" : "");
            expectSame("sum" + tag, [&](const Inputs& in) { return sum(in[0], dims, keepdim); }, {x});
            expectSame("mean" + tag, [&](const Inputs& in) { return mean(in[0], dims, keepdim); }, {x});
            expectSame("amax" + tag, [&](const Inputs& in) { return amax(in[0], dims, keepdim); }, {x});
            expectSame("amin" + tag, [&](const Inputs& in) { return amin(in[0], dims, keepdim); }, {x});
            expectSame("var" + tag, [&](const Inputs& in) { return var(in[0], dims, 1.0, keepdim); }, {x});
            expectSame("std" + tag, [&](const Inputs& in) { return stdDev(in[0], dims, 0.0, keepdim); }, {x});
            expectSame("any" + tag, [&](const Inputs& in) { return any(gt(in[0], Scalar(2.0)), dims, keepdim); }, {x});
            expectSame("all" + tag, [&](const Inputs& in) { return all(gt(in[0], Scalar(-2.0)), dims, keepdim); }, {x});
        }
    expectSame("sum all", [](const Inputs& in) { return sum(in[0]); }, {randomFloats({1000, 37})}, 1e-5, 1e-4);
    expectSame("sum int", [](const Inputs& in) { return sum(in[0], std::vector<int64_t>{1}); }, {randomInts({4, 9}, -100, 100, DType::Int32)});
    expectSame("prod", [](const Inputs& in) { return prod(in[0], 1); }, {add(mul(randomFloats({3, 5}), Scalar(0.1)), Scalar(1.0))});
    expectSame("sum of a transposed view", [](const Inputs& in) { return sum(transpose(in[0], 0, 1), std::vector<int64_t>{1}); }, {x});
    // max/min with indices: ties go to the first index and NaN wins, as on the CPU.
    const Tensor ties = fromDoubles({1, 3, 3, 2, 5, 5, 0, 5, NAN, 1, NAN, 4}, {3, 4});
    for (const Tensor& input : {x, ties}) {
        expectSame("max values", [](const Inputs& in) { return maxDim(in[0], -1).values; }, {input});
        expectSame("max indices", [](const Inputs& in) { return maxDim(in[0], -1).indices; }, {input});
        expectSame("min indices keepdim", [](const Inputs& in) { return minDim(in[0], 0, true).indices; }, {input});
        expectSame("argmax all", [](const Inputs& in) { return argmax(in[0]); }, {input});
        expectSame("max all", [](const Inputs& in) { return maxAll(in[0]); }, {input});
    }
    expectSame("max int", [](const Inputs& in) { return maxDim(in[0], 1).indices; }, {randomInts({6, 8}, 0, 4)});
    for (int64_t dim : {0, 1, -1}) {
        expectSame("softmax " + std::to_string(dim), [dim](const Inputs& in) { return softmax(in[0], dim); }, {x});
        expectSame("log_softmax " + std::to_string(dim), [dim](const Inputs& in) { return logSoftmax(in[0], dim); }, {x});
    }
    expectSame("softmax f64", [](const Inputs& in) { return softmax(in[0], 1); }, {randomFloats({3, 300}, DType::Float64)}, 1e-12, 1e-15);
}

TEST_F(CudaOps, MatrixProductsThroughCublas) {
    expectSame("mm", [](const Inputs& in) { return mm(in[0], in[1]); }, {randomFloats({7, 5}), randomFloats({5, 9})}, 1e-5, 1e-5);
    expectSame("mm transposed operands", [](const Inputs& in) { return mm(t(in[0]), t(in[1])); },
               {randomFloats({5, 7}), randomFloats({9, 5})}, 1e-5, 1e-5);
    expectSame("mm sliced operand", [](const Inputs& in) { return mm(slice(in[0], 1, 0, std::nullopt, 2), in[1]); },
               {randomFloats({4, 10}), randomFloats({5, 3})}, 1e-5, 1e-5);
    expectSame("bmm", [](const Inputs& in) { return bmm(in[0], in[1]); }, {randomFloats({3, 4, 6}), randomFloats({3, 6, 2})}, 1e-5, 1e-5);
    expectSame("bmm transposed batches", [](const Inputs& in) { return bmm(transpose(in[0], 1, 2), in[1]); },
               {randomFloats({3, 6, 4}), randomFloats({3, 6, 2})}, 1e-5, 1e-5);
    expectSame("bmm strided batches", [](const Inputs& in) { return bmm(slice(in[0], 2, 0, std::nullopt, 2), in[1]); },
               {randomFloats({3, 4, 12}), randomFloats({3, 6, 2})}, 1e-5, 1e-5);
    expectSame("matmul broadcast batch", [](const Inputs& in) { return matmul(in[0], in[1]); },
               {randomFloats({4, 3}), randomFloats({2, 3, 5})}, 1e-5, 1e-5);
    expectSame("matmul batched", [](const Inputs& in) { return matmul(in[0], in[1]); }, {randomFloats({2, 3, 4, 5}), randomFloats({5, 6})},
               1e-5, 1e-5);
    expectSame("linear", [](const Inputs& in) { return linear(in[0], in[1], in[2]); },
               {randomFloats({8, 32}), randomFloats({64, 32}), randomFloats({64})}, 1e-5, 1e-5);
    expectSame("mm float64", [](const Inputs& in) { return mm(in[0], in[1]); },
               {randomFloats({6, 6}, DType::Float64), randomFloats({6, 3}, DType::Float64)}, 1e-12, 1e-12);
    expectSame("mm large k", [](const Inputs& in) { return mm(in[0], in[1]); }, {randomFloats({16, 1024}), randomFloats({1024, 16})}, 1e-5, 1e-4);
}

// float16/bfloat16 products go to cuBLAS in the 16-bit type with float32 accumulation; the CPU computes in
// float32 and rounds. Both round a float32 sum (summed in different orders, and cuBLAS may reduce split-K
// partials in 16 bits as PyTorch allows by default), so they agree to about two units in the last place
// of the 16-bit type (bfloat16 eps 2^-7, float16 eps 2^-10), plus an absolute slack for sums near zero.
// A bias added after rounding keeps the product's one-unit difference where the sum cancels: twice the slack.
// Odd sizes (not multiples of 8) take cuBLAS's unaligned kernels.
TEST_F(CudaOps, HalfAndBFloat16MatrixProductsThroughCublas) {
    for (DType d : {DType::BFloat16, DType::Float16}) {
        SCOPED_TRACE(dtypeKernelName(d));
        const double eps = d == DType::BFloat16 ? 0x1p-7 : 0x1p-10;
        const double rtol = 2 * eps, atol = 2 * eps;
        const auto floats = [d](const Shape& shape) { return randomFloats(shape, d); };
        expectSame("mm", [](const Inputs& in) { return mm(in[0], in[1]); }, {floats({7, 13}), floats({13, 9})}, rtol, atol);
        expectSame("mm aligned", [](const Inputs& in) { return mm(in[0], in[1]); }, {floats({16, 32}), floats({32, 24})}, rtol, atol);
        expectSame("mm transposed operands", [](const Inputs& in) { return mm(t(in[0]), t(in[1])); },
                   {floats({13, 7}), floats({9, 13})}, rtol, atol);
        expectSame("mm sliced operand", [](const Inputs& in) { return mm(slice(in[0], 1, 0, std::nullopt, 2), in[1]); },
                   {floats({5, 10}), floats({5, 3})}, rtol, atol);
        expectSame("mm large k", [](const Inputs& in) { return mm(in[0], in[1]); }, {floats({16, 1024}), floats({1024, 16})},
                   rtol, 16 * atol);
        expectSame("bmm", [](const Inputs& in) { return bmm(in[0], in[1]); }, {floats({3, 5, 11}), floats({3, 11, 6})}, rtol, atol);
        expectSame("bmm transposed batches", [](const Inputs& in) { return bmm(transpose(in[0], 1, 2), in[1]); },
                   {floats({3, 11, 5}), floats({3, 11, 6})}, rtol, atol);
        expectSame("bmm strided batches", [](const Inputs& in) { return bmm(slice(in[0], 2, 0, std::nullopt, 2), in[1]); },
                   {floats({3, 5, 14}), floats({3, 7, 6})}, rtol, atol);
        expectSame("matmul vector", [](const Inputs& in) { return matmul(in[0], in[1]); }, {floats({13}), floats({13, 5})}, rtol, atol);
        expectSame("matmul broadcast batch", [](const Inputs& in) { return matmul(in[0], in[1]); },
                   {floats({4, 3}), floats({2, 3, 5})}, rtol, atol);
        expectSame("matmul broadcast batch dims", [](const Inputs& in) { return matmul(in[0], in[1]); },
                   {floats({2, 1, 5, 7}), floats({3, 7, 9})}, rtol, atol);
        expectSame("matmul batched", [](const Inputs& in) { return matmul(in[0], in[1]); }, {floats({2, 3, 4, 5}), floats({5, 6})},
                   rtol, atol);
        expectSame("linear", [](const Inputs& in) { return linear(in[0], in[1], in[2]); },
                   {floats({8, 32}), floats({64, 32}), floats({64})}, rtol, 2 * atol);
        expectSame("linear 3-D odd sizes", [](const Inputs& in) { return linear(in[0], in[1], in[2]); },
                   {floats({2, 5, 24}), floats({17, 24}), floats({17})}, rtol, 2 * atol);
        expectSame("addmm", [](const Inputs& in) { return addmm(in[0], in[1], in[2], 0.5, 2.0); },
                   {floats({9}), floats({7, 13}), floats({13, 9})}, rtol, 2 * atol);
    }
}

TEST_F(CudaOps, IntegerMatrixProductsRaiseLikePyTorch) {
    const Tensor a = to(randomInts({3, 4}, -5, 5), std::nullopt, kCuda), b = to(randomInts({4, 2}, -5, 5), std::nullopt, kCuda);
    try {
        mm(a, b);
        FAIL() << "expected an error";
    } catch (const TensorError& e) {
        EXPECT_EQ(std::string(e.what()), "\"addmm_cuda\" not implemented for 'Long'");
    }
}

// layer_norm is composed from the device's reduction and pointwise kernels (statistics in float32, where the
// CPU kernel uses double): equal to the CPU within float32 rounding, and 16-bit inputs within one rounding step.
TEST_F(CudaOps, LayerNormRunsOnTheDevice) {
    expectSame("layer_norm affine", [](const Inputs& in) { return layerNorm(in[0], {8}, in[1], in[2], 1e-5); },
               {randomFloats({3, 8}), randomFloats({8}), randomFloats({8})}, 1e-4, 1e-5);
    expectSame("layer_norm long rows, no affine", [](const Inputs& in) { return layerNorm(in[0], {1024}, Tensor(), Tensor(), 1e-5); },
               {randomFloats({5, 1024})}, 1e-4, 1e-5);
    expectSame("layer_norm over two dims", [](const Inputs& in) { return layerNorm(in[0], {3, 7}, in[1], Tensor(), 1e-3); },
               {randomFloats({2, 4, 3, 7}), randomFloats({3, 7})}, 1e-4, 1e-5);
    expectSame("layer_norm bfloat16", [](const Inputs& in) { return layerNorm(in[0], {64}, in[1], in[2], 1e-5); },
               {to(randomFloats({6, 64}), DType::BFloat16), to(randomFloats({64}), DType::BFloat16), to(randomFloats({64}), DType::BFloat16)},
               1e-2, 2e-2);
}

// The losses' results are cuda tensors, as PyTorch's are (a compiled graph's kernel reads a cross_entropy extern's
// result as device memory); their label lookups: cuda_indexing_test.cpp.
TEST_F(CudaOps, LossesStayOnTheDevice) {
    for (const char* reduction : {"mean", "sum", "none"}) {
        expectSame(std::string("cross_entropy ") + reduction, [&](const Inputs& in) { return crossEntropy(in[0], in[1], reduction); },
                   {randomFloats({6, 10}), randomInts({6}, 0, 10)}, 1e-5, 1e-5);
        expectSame(std::string("nll_loss ") + reduction, [&](const Inputs& in) { return nllLoss(logSoftmax(in[0], 1), in[1], reduction, 3); },
                   {randomFloats({6, 10}), randomInts({6}, 0, 10)}, 1e-5, 1e-5);
    }
}

// The indexing kernels: cuda_indexing_test.cpp.
TEST_F(CudaOps, OpsThroughHostCopies) {
    expectSame("nonzero", [](const Inputs& in) { return nonzero(gt(in[0], Scalar(0.0))); }, {randomFloats({4, 5})});
    expectSame("cumsum", [](const Inputs& in) { return cumsum(in[0], 1); }, {randomFloats({3, 8})});
    expectSame("triu", [](const Inputs& in) { return triu(in[0], 1); }, {randomFloats({4, 4})});
    // In-place random fills draw on the host from the same generator: equal under the same seed.
    manualSeed(7);
    const Tensor onCpu = uniformInPlace(empty({6}), -1.0, 1.0);
    manualSeed(7);
    const Tensor onGpu = uniformInPlace(empty({6}, DType::Float32, kCuda), -1.0, 1.0);
    expectMatches(onCpu, to(onGpu, std::nullopt, kCpu), 0, 0);
}

TEST_F(CudaOps, MixingDevicesRaisesPyTorchsError) {
    const Tensor gpu = to(randomFloats({3}), std::nullopt, kCuda);
    try {
        add(gpu, randomFloats({3}));
        FAIL() << "expected an error";
    } catch (const TensorError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
    }
}

}  // namespace
