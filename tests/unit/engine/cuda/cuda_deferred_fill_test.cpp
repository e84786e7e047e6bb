// The capture's example values on CUDA (tensor/deferred_fill.h): inside a DeferredFillScope eager CUDA ops launch
// (and compile) nothing until their elements are read, and then give eager's bits; an input written first, or an
// in-place op on a pending value, keeps eager's order. Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cuda/driver.h"
#include "tensor/conversion.h"
#include "tensor/deferred_fill.h"
#include "tensor/linalg.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace {

using namespace eng::tensor;  // NOLINT: test file
using Inputs = std::vector<Tensor>;
using Op = std::function<Tensor(const Inputs&)>;

const Device kCuda = Device::parse("cuda:0");

class CudaDeferredFill : public ::testing::Test {
protected:
    void SetUp() override {
        if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
        manualSeed(4321);
    }
};

Tensor onCuda(const Tensor& cpu, DType dtype = DType::Float32) { return to(to(cpu, dtype), std::nullopt, kCuda); }

void expectSameBits(const Tensor& want, const Tensor& got, const std::string& what) {
    ASSERT_EQ(want.sizes(), got.sizes()) << what;
    ASSERT_EQ(want.strides(), got.strides()) << what;
    ASSERT_EQ(want.dtype(), got.dtype()) << what;
    ASSERT_EQ(got.device().type(), DeviceType::CUDA) << what;
    const Tensor a = to(want, std::nullopt, kCpu), b = to(got, std::nullopt, kCpu);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.nbytes()), 0) << what;
}

// op eagerly, then inside a scope (nothing runs), then the deferred result read: eager's bits.
void expectDeferredMatchesEager(const std::string& what, const Op& op, const Inputs& inputs) {
    const Tensor eager = op(inputs);
    const int64_t before = deferredFillsRun();
    Tensor deferred;
    {
        const DeferredFillScope scope;
        deferred = op(inputs);
    }
    EXPECT_EQ(deferredFillsRun(), before) << what << ": nothing launches until the elements are read";
    expectSameBits(eager, deferred, what);
    EXPECT_GT(deferredFillsRun(), before) << what << ": reading ran the deferred launches";
}

TEST_F(CudaDeferredFill, ThePointwiseReductionAndProductWorkloadsDeferAndMatchEager) {
    const Tensor x = onCuda(randn({4, 70000}));
    expectDeferredMatchesEager(
        "b1",
        [](const Inputs& in) {
            const Tensor a = binary(BinaryOp::Add, binary(BinaryOp::Mul, in[0], Scalar(2.0)), Scalar(1.0));
            return binary(BinaryOp::Mul, unary(UnaryOp::Sin, unary(UnaryOp::Relu, a)), unary(UnaryOp::Sigmoid, in[0]));
        },
        {x});
    const Tensor rows = onCuda(randn({64, 300}));
    expectDeferredMatchesEager("softmax", [](const Inputs& in) { return softmax(in[0], -1); }, {rows});
    expectDeferredMatchesEager("sum(dim=1) + mean(dim=0).sum()",
                               [](const Inputs& in) { return binary(BinaryOp::Add, sum(in[0], std::vector<int64_t>{1}), sum(mean(in[0], std::vector<int64_t>{0}))); },
                               {rows});
    const Tensor w = onCuda(randn({300})), b = onCuda(randn({300}));
    expectDeferredMatchesEager("layer_norm", [](const Inputs& in) { return layerNorm(in[0], {300}, in[1], in[2]); }, {rows, w, b});
    const Tensor weight = onCuda(randn({96, 300})), bias = onCuda(randn({96}));
    expectDeferredMatchesEager("gelu(linear)", [](const Inputs& in) { return gelu(linear(in[0], in[1], in[2])); }, {rows, weight, bias});
    expectDeferredMatchesEager("matmul of a transposed view", [](const Inputs& in) { return matmul(in[0], transpose(in[1], 0, 1)); },
                               {rows, weight});
}

TEST_F(CudaDeferredFill, AttentionDefersAndMatchesEager) {
    const Tensor q = onCuda(randn({2, 4, 80, 64}), DType::BFloat16), k = onCuda(randn({2, 4, 80, 64}), DType::BFloat16);
    expectDeferredMatchesEager(
        "causal sdpa, transposed and reshaped",
        [](const Inputs& in) {
            const Tensor a = scaledDotProductAttention(in[0], in[1], in[1], Tensor(), 0.0, true);
            return reshape(transpose(a, 1, 2), {2, 80, 256});
        },
        {q, k});
}

TEST_F(CudaDeferredFill, WritingAnInputFirstRunsThePendingReadersOnItsOldContents) {
    const Tensor x = onCuda(randn({1000}));
    const Tensor want = binary(BinaryOp::Mul, x, Scalar(2.0));
    Tensor y;
    {
        const DeferredFillScope scope;
        y = binary(BinaryOp::Mul, x, Scalar(2.0));
        binaryInPlace(BinaryOp::Add, x, Scalar(1.0));  // x changes before anyone read y
    }
    expectSameBits(want, y, "y = x * 2 read after x += 1");
}

TEST_F(CudaDeferredFill, InPlaceOpsOnAPendingResultSeeItsValue) {
    const Tensor x = onCuda(randn({3, 500}));
    const Tensor want = binary(BinaryOp::Add, binary(BinaryOp::Mul, unary(UnaryOp::Exp, x), Scalar(3.0)), Scalar(1.0));
    Tensor y;
    {
        const DeferredFillScope scope;
        y = binary(BinaryOp::Mul, unary(UnaryOp::Exp, x), Scalar(3.0));
        binaryInPlace(BinaryOp::Add, y, Scalar(1.0));  // writes the pending result itself
    }
    expectSameBits(want, y, "y = exp(x) * 3, then y += 1");
}

}  // namespace
