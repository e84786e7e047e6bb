// The fused CUDA attention (F.scaled_dot_product_attention on float16/bfloat16 without mask or dropout) equals
// the composite path computed in float32 on the same (rounded) inputs, for causal and not, L != S, tails, every
// head dim, and strided batch views; what it does not handle still takes the composite path; the forward's per-row
// logsumexp equals the scores' own; the flash backward equals the composite derivative, with the forward's logsumexp
// or computing its own. Needs a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cuda/driver.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_attention.h"
#include "tensor/nn_functional.h"
#include "tensor/random.h"
#include "tensor/registry.h"
#include "tensor/shape.h"

namespace {

using namespace eng::tensor;

const Device kCuda = Device::parse("cuda:0");

class CudaAttention : public ::testing::Test {
protected:
    void SetUp() override {
        if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
        manualSeed(4321);
    }

    static Tensor random(const Shape& shape, DType dtype) { return to(randn(shape), dtype, kCuda); }

    // sdpa on the 16-bit operands (the fused kernel) against sdpa on their float32 values (the composite path).
    static void expectMatchesComposite(const std::string& what, const Tensor& q, const Tensor& k, const Tensor& v, bool causal,
                                       std::optional<double> scale = std::nullopt) {
        SCOPED_TRACE(what);
        ASSERT_TRUE(cudaops::flashAttentionSupported(q, k, v));
        const Tensor got = scaledDotProductAttention(q, k, v, Tensor(), 0.0, causal, scale);
        const Tensor want = scaledDotProductAttention(to(q, DType::Float32), to(k, DType::Float32), to(v, DType::Float32), Tensor(), 0.0,
                                                      causal, scale);
        ASSERT_EQ(got.dtype(), q.dtype());
        ASSERT_EQ(got.sizes(), want.sizes());
        if (q.dim() == 4) {
            // PyTorch's flash layout: [b, L, h, E] in memory.
            const int64_t h = q.size(1), l = q.size(2), e = q.size(3);
            EXPECT_EQ(got.strides(), (Shape{l * h * e, e, h * e, 1}));
        } else {
            EXPECT_TRUE(got.isContiguous());
        }
        // One rounding of the output to 16 bits, plus the probabilities rounded for the second product.
        const double tolerance = q.dtype() == DType::BFloat16 ? 1.2e-2 : 2e-3;
        const std::vector<double> a = toDoubles(to(got, DType::Float32, kCpu)), b = toDoubles(to(want, std::nullopt, kCpu));
        double worst = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            ASSERT_TRUE(std::isfinite(a[i])) << "element " << i;
            worst = std::max(worst, std::abs(a[i] - b[i]) / (1.0 + std::abs(b[i])));
        }
        EXPECT_LT(worst, tolerance);
    }
};

TEST_F(CudaAttention, TransformerShapeBFloat16) {
    const Shape s{8, 12, 512, 64};
    expectMatchesComposite("[8,12,512,64] bf16", random(s, DType::BFloat16), random(s, DType::BFloat16), random(s, DType::BFloat16), false);
    expectMatchesComposite("[8,12,512,64] bf16 causal", random(s, DType::BFloat16), random(s, DType::BFloat16), random(s, DType::BFloat16), true);
}

TEST_F(CudaAttention, CausalFloat16WithTails) {
    const Shape s{2, 3, 77, 64};
    expectMatchesComposite("[2,3,77,64] f16 causal", random(s, DType::Float16), random(s, DType::Float16), random(s, DType::Float16), true);
}

TEST_F(CudaAttention, QueriesAndKeysOfDifferentLengths) {
    for (DType d : {DType::BFloat16, DType::Float16})
        for (bool causal : {false, true}) {
            const std::string name = std::string(dtypeName(d)) + (causal ? " causal" : "");
            expectMatchesComposite("L=33 S=100 " + name, random({2, 2, 33, 64}, d), random({2, 2, 100, 64}, d), random({2, 2, 100, 64}, d), causal);
            expectMatchesComposite("L=100 S=33 " + name, random({2, 2, 100, 64}, d), random({2, 2, 33, 64}, d), random({2, 2, 33, 64}, d), causal);
            expectMatchesComposite("L=1 S=1 " + name, random({1, 1, 1, 64}, d), random({1, 1, 1, 64}, d), random({1, 1, 1, 64}, d), causal);
        }
}

TEST_F(CudaAttention, EveryHeadDimAndAnExplicitScale) {
    for (int64_t e : {16, 32, 64, 128})
        for (bool causal : {false, true}) {
            const Shape qs{2, 3, 130, e}, ks{2, 3, 70, e};
            expectMatchesComposite("E=" + std::to_string(e), random(qs, DType::BFloat16), random(ks, DType::BFloat16), random(ks, DType::BFloat16),
                                   causal);
        }
    const Shape s{1, 4, 65, 32};
    expectMatchesComposite("scale=0.3", random(s, DType::Float16), random(s, DType::Float16), random(s, DType::Float16), false, 0.3);
}

TEST_F(CudaAttention, BatchDimsOfTransposedViewsAndOtherRanks) {
    // As a transformer block makes them: one [b, s, 3 * h * d] projection, chunked and split into heads.
    const int64_t b = 2, s = 90, h = 4, d = 64;
    const Tensor qkv = random({b, s, 3 * h * d}, DType::BFloat16);
    std::vector<Tensor> parts = chunk(qkv, 3, -1);
    for (Tensor& p : parts) p = transpose(view(p, {b, s, h, d}), 1, 2);
    EXPECT_FALSE(parts[0].isContiguous());
    expectMatchesComposite("chunked heads", parts[0], parts[1], parts[2], true);
    // The head dim not dense (a transposed [E, L] operand): copied first.
    const Tensor qt = transpose(random({2, 64, 40}, DType::Float16), 1, 2);
    expectMatchesComposite("strided head dim", qt, random({2, 50, 64}, DType::Float16), random({2, 50, 64}, DType::Float16), false);
    expectMatchesComposite("2-D", random({40, 32}, DType::BFloat16), random({70, 32}, DType::BFloat16), random({70, 32}, DType::BFloat16), true);
    const Shape five{2, 2, 3, 40, 64};
    expectMatchesComposite("5-D", random(five, DType::Float16), random(five, DType::Float16), random(five, DType::Float16), false);
}

TEST_F(CudaAttention, WhatTheKernelDoesNotHandleTakesTheCompositePath) {
    const Shape s{1, 2, 20, 64};
    const Tensor q32 = random(s, DType::Float32);
    EXPECT_FALSE(cudaops::flashAttentionSupported(q32, q32, q32));
    const Tensor q = random(s, DType::BFloat16);
    EXPECT_FALSE(cudaops::flashAttentionSupported(q, random({1, 2, 20, 48}, DType::BFloat16), q)) << "head dims differ";
    EXPECT_FALSE(cudaops::flashAttentionSupported(random({1, 2, 20, 48}, DType::BFloat16), random({1, 2, 20, 48}, DType::BFloat16),
                                                  random({1, 2, 20, 48}, DType::BFloat16)))
        << "head dim 48";
    EXPECT_FALSE(cudaops::flashAttentionSupported(q, random({1, 1, 20, 64}, DType::BFloat16), random({1, 1, 20, 64}, DType::BFloat16)))
        << "broadcast batch dims";
    const Tensor cpu = to(q, std::nullopt, kCpu);
    EXPECT_FALSE(cudaops::flashAttentionSupported(cpu, cpu, cpu));
    // A boolean mask: composite, and it still applies.
    const Tensor mask = to(tril(ones({20, 20}, TensorOptions{DType::Bool, kCpu})), std::nullopt, kCuda);
    const Tensor masked = scaledDotProductAttention(q, q, q, mask, 0.0, false, std::nullopt);
    const Tensor causal = scaledDotProductAttention(q, q, q, Tensor(), 0.0, true, std::nullopt);
    const std::vector<double> a = toDoubles(to(masked, DType::Float32, kCpu)), b = toDoubles(to(causal, DType::Float32, kCpu));
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 2e-2 * (1 + std::abs(b[i]))) << i;
}

// The flash backward's dQ, dK, dV against the composite derivative of sdpa on the float32 values (autograd
// through the registry), for an upstream gradient g; worst error relative to the largest reference element.
void expectBackwardMatchesComposite(const std::string& what, const Shape& shape, DType dtype, bool causal, std::optional<double> scale = std::nullopt) {
    SCOPED_TRACE(what);
    const OpRegistry& ops = OpRegistry::instance();
    auto random = [&](const Shape& s) { return to(randn(s), dtype, kCuda); };
    const Tensor q = random(shape), k = random(shape), v = random(shape), g = random(shape);
    ASSERT_TRUE(cudaops::flashAttentionBackwardSupported(q, k, v));
    const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(shape.back())));
    Tensor logsumexp;
    const Tensor out = cudaops::flashAttention(q, k, v, causal, factor, &logsumexp);
    ASSERT_EQ(logsumexp.sizes(), (Shape{shape[0], shape[1], shape[2]}));
    ASSERT_EQ(logsumexp.dtype(), DType::Float32);
    // The statistics the forward saved: logsumexp over the keys of the scaled (causally masked) scores of the rounded
    // operands, in double precision here.
    {
        const std::vector<double> qd = toDoubles(to(q, DType::Float32, kCpu)), kd = toDoubles(to(k, DType::Float32, kCpu));
        const std::vector<double> got = toDoubles(to(logsumexp, std::nullopt, kCpu));
        const int64_t rows = shape[2], e = shape[3];
        for (int64_t bh = 0; bh < shape[0] * shape[1]; ++bh)
            for (int64_t i = 0; i < rows; ++i) {
                std::vector<double> scores;
                for (int64_t j = 0; j <= (causal ? i : rows - 1); ++j) {
                    double dot = 0;
                    for (int64_t c = 0; c < e; ++c) dot += qd[static_cast<size_t>((bh * rows + i) * e + c)] * kd[static_cast<size_t>((bh * rows + j) * e + c)];
                    scores.push_back(dot * factor);
                }
                const double top = *std::max_element(scores.begin(), scores.end());
                double sum = 0;
                for (double x : scores) sum += std::exp(x - top);
                const double want = top + std::log(sum);
                ASSERT_NEAR(got[static_cast<size_t>(bh * rows + i)], want, 1e-3 * (1 + std::abs(want))) << "logsumexp of row " << i << " of head " << bh;
            }
    }
    const Tensor grads = cudaops::flashAttentionBackward(g, q, k, v, out, causal, factor, logsumexp);
    const Tensor ownStatistics = cudaops::flashAttentionBackward(g, q, k, v, out, causal, factor);
    ASSERT_EQ(grads.sizes(), (Shape{3, shape[0], shape[2], shape[1], shape[3]}));
    {
        // Reading the saved statistics or computing them gives the same gradients, to the last rounding.
        const std::vector<double> a = toDoubles(to(grads, DType::Float32, kCpu)), b = toDoubles(to(ownStatistics, DType::Float32, kCpu));
        double largest = 0, worst = 0;
        for (size_t j = 0; j < a.size(); ++j) {
            largest = std::max(largest, std::abs(b[j]));
            worst = std::max(worst, std::abs(a[j] - b[j]));
        }
        EXPECT_LE(worst, (dtype == DType::BFloat16 ? 8e-3 : 1e-3) * largest + 1e-6) << "saved against recomputed logsumexp";
    }
    std::vector<Tensor> leaves;
    for (const Tensor* t : {&q, &k, &v}) {
        leaves.push_back(to(*t, DType::Float32));
        leaves.back().setRequiresGrad(true);
    }
    const std::vector<Value> args{Value(leaves[0]), Value(leaves[1]), Value(leaves[2])};
    const Value result = ops.call("F.scaled_dot_product_attention", args, KeywordArgs{{"is_causal", Value(causal)}, {"scale", Value(factor)}});
    const std::vector<Value> backwardArgs{result, Value(to(g, DType::Float32))};
    ops.call("Tensor.backward", backwardArgs);
    const double tolerance = dtype == DType::BFloat16 ? 2e-2 : 4e-3;
    for (int64_t i = 0; i < 3; ++i) {
        SCOPED_TRACE("gradient " + std::to_string(i));
        const std::vector<double> a = toDoubles(to(transpose(select(grads, 0, i), 1, 2), DType::Float32, kCpu));
        const std::vector<double> b = toDoubles(to(gradOf(leaves[static_cast<size_t>(i)]), std::nullopt, kCpu));
        ASSERT_EQ(a.size(), b.size());
        double largest = 0, worst = 0;
        for (double x : b) largest = std::max(largest, std::abs(x));
        for (size_t j = 0; j < a.size(); ++j) {
            ASSERT_TRUE(std::isfinite(a[j])) << "element " << j;
            worst = std::max(worst, std::abs(a[j] - b[j]));
        }
        EXPECT_LE(worst, tolerance * largest + 1e-5) << "largest " << largest;  // (a single key: dQ and dK are 0)
    }
}

TEST_F(CudaAttention, FlashBackwardEqualsTheCompositeDerivative) {
    expectBackwardMatchesComposite("[2,12,256,64] bf16 causal", {2, 12, 256, 64}, DType::BFloat16, true);
    expectBackwardMatchesComposite("[2,3,77,64] f16 causal, tails", {2, 3, 77, 64}, DType::Float16, true);
    expectBackwardMatchesComposite("[1,2,130,64] bf16", {1, 2, 130, 64}, DType::BFloat16, false);
    for (int64_t e : {16, 32, 128}) expectBackwardMatchesComposite("E=" + std::to_string(e), {1, 2, 100, e}, DType::Float16, e != 32);
    expectBackwardMatchesComposite("scale=0.3", {1, 4, 65, 32}, DType::BFloat16, false, 0.3);
    expectBackwardMatchesComposite("L=1", {1, 1, 1, 64}, DType::BFloat16, true);
    // Many key tiles adding into each dQ row (the fused pass's float32 sums), causal and not, with a tail.
    expectBackwardMatchesComposite("[1,2,1024,64] bf16 causal", {1, 2, 1024, 64}, DType::BFloat16, true);
    expectBackwardMatchesComposite("[2,1,600,32] f16", {2, 1, 600, 32}, DType::Float16, false);
    // Head dim 64 takes the warpgroup products on sm_90 (flashBackwardWarpgroup): both dtypes, causal and not, odd
    // lengths (a tail tile in the key block and in the query walk).
    expectBackwardMatchesComposite("[1,3,333,64] f16", {1, 3, 333, 64}, DType::Float16, false);
    expectBackwardMatchesComposite("[2,2,191,64] f16 causal", {2, 2, 191, 64}, DType::Float16, true);
    expectBackwardMatchesComposite("[1,2,517,64] bf16 causal", {1, 2, 517, 64}, DType::BFloat16, true);
    expectBackwardMatchesComposite("[1,1,64,64] bf16, one tile", {1, 1, 64, 64}, DType::BFloat16, false);
    EXPECT_FALSE(cudaops::flashAttentionBackwardSupported(random({1, 2, 30, 64}, DType::BFloat16), random({1, 2, 40, 64}, DType::BFloat16),
                                                         random({1, 2, 40, 64}, DType::BFloat16)))
        << "L != S";
}

TEST_F(CudaAttention, GradientsStillFlowThroughTheRegistry) {
    const OpRegistry& ops = OpRegistry::instance();
    Tensor q = random({1, 2, 30, 64}, DType::BFloat16);
    q.setRequiresGrad(true);
    const Tensor k = random({1, 2, 30, 64}, DType::BFloat16), v = random({1, 2, 30, 64}, DType::BFloat16);
    const std::vector<Value> args{Value(q), Value(k), Value(v)};
    const Value out = ops.call("F.scaled_dot_product_attention", args, KeywordArgs{{"is_causal", Value(true)}});
    const std::vector<Value> sumArgs{out};
    const std::vector<Value> backwardArgs{ops.call("torch.sum", sumArgs)};
    ops.call("Tensor.backward", backwardArgs);
    const Tensor g = gradOf(q);
    ASSERT_TRUE(g.defined());
    EXPECT_EQ(g.sizes(), q.sizes());
}

}  // namespace
