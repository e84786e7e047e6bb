// The flash forward's output and per-row logsumexp against a double-precision reference on the same 16-bit inputs,
// at lengths that are not a multiple of its query block or key tile (1, 127, 129 and mixes of them), causal and not,
// every head dim, both dtypes, the 128-key tile shapes (64 KiB of dynamic shared memory) up to L = 1031, and scales
// of either sign and zero. Needs a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_attention.h"
#include "tensor/random.h"

namespace {

using namespace eng::tensor;

const Device kCuda = Device::parse("cuda:0");

class CudaAttentionForward : public ::testing::Test {
protected:
    void SetUp() override {
        if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
        manualSeed(977);
    }
};

// flashAttention on random [2, 3, L, E] queries and [2, 3, S, E] keys and values against softmax(q k^T * scale) v
// and its logsumexp in double precision (causal: top-left aligned, row i sees keys 0..i). Scale 1/sqrt(E) unless
// given; `shape`: a block shape other than the default.
void expectMatchesReference(DType dtype, int64_t l, int64_t s, int64_t e, bool causal, const cudagen::FlashForwardShape* shape = nullptr,
                            std::optional<double> givenScale = std::nullopt) {
    const double scale = givenScale ? *givenScale : 1.0 / std::sqrt(static_cast<double>(e));
    std::string what = std::string(dtypeName(dtype)) + " L=" + std::to_string(l) + " S=" + std::to_string(s) + " E=" + std::to_string(e) +
                       (causal ? " causal" : "") + " scale=" + std::to_string(scale);
    if (shape)
        what += " warps=" + std::to_string(shape->warps) + ",slices=" + std::to_string(shape->slices) + ",keys=" + std::to_string(shape->keys) +
                ",stages=" + std::to_string(shape->stages);
    SCOPED_TRACE(what);
    const int64_t heads = 2 * 3;
    const Tensor q = to(randn({2, 3, l, e}), dtype, kCuda), k = to(randn({2, 3, s, e}), dtype, kCuda), v = to(randn({2, 3, s, e}), dtype, kCuda);
    Tensor lse;
    const Tensor out = cudaops::flashAttention(q, k, v, causal, scale, &lse, shape);
    ASSERT_EQ(out.sizes(), (Shape{2, 3, l, e}));
    ASSERT_EQ(lse.sizes(), (Shape{2, 3, l}));
    const std::vector<double> qd = toDoubles(to(q, DType::Float32, kCpu)), kd = toDoubles(to(k, DType::Float32, kCpu)),
                              vd = toDoubles(to(v, DType::Float32, kCpu));
    const std::vector<double> got = toDoubles(to(out, DType::Float32, kCpu)), gotLse = toDoubles(to(lse, std::nullopt, kCpu));
    // One rounding of the output to 16 bits, plus the probabilities rounded for the second product.
    const double tolerance = dtype == DType::BFloat16 ? 1.2e-2 : 2e-3;
    double worst = 0, worstLse = 0;
    std::vector<double> scores, want(static_cast<size_t>(e));
    for (int64_t bh = 0; bh < heads; ++bh)
        for (int64_t i = 0; i < l; ++i) {
            const int64_t keys = causal ? std::min(i + 1, s) : s;
            scores.assign(static_cast<size_t>(keys), 0.0);
            for (int64_t j = 0; j < keys; ++j) {
                double dot = 0;
                for (int64_t c = 0; c < e; ++c) dot += qd[static_cast<size_t>((bh * l + i) * e + c)] * kd[static_cast<size_t>((bh * s + j) * e + c)];
                scores[static_cast<size_t>(j)] = dot * scale;
            }
            const double top = *std::max_element(scores.begin(), scores.end());
            double sum = 0;
            std::fill(want.begin(), want.end(), 0.0);
            for (int64_t j = 0; j < keys; ++j) {
                const double p = std::exp(scores[static_cast<size_t>(j)] - top);
                sum += p;
                for (int64_t c = 0; c < e; ++c) want[static_cast<size_t>(c)] += p * vd[static_cast<size_t>((bh * s + j) * e + c)];
            }
            for (int64_t c = 0; c < e; ++c) {
                const double a = got[static_cast<size_t>((bh * l + i) * e + c)], b = want[static_cast<size_t>(c)] / sum;
                ASSERT_TRUE(std::isfinite(a)) << "row " << i << " of head " << bh;
                worst = std::max(worst, std::abs(a - b) / (1.0 + std::abs(b)));
            }
            const double wantLse = top + std::log(sum);
            ASSERT_TRUE(std::isfinite(gotLse[static_cast<size_t>(bh * l + i)])) << "logsumexp of row " << i << " of head " << bh;
            worstLse = std::max(worstLse, std::abs(gotLse[static_cast<size_t>(bh * l + i)] - wantLse) / (1.0 + std::abs(wantLse)));
        }
    EXPECT_LT(worst, tolerance);
    EXPECT_LT(worstLse, 1e-3);
}

TEST_F(CudaAttentionForward, LengthsOffTheBlockAndTileSizes) {
    const int64_t lengths[][2] = {{1, 1}, {127, 127}, {129, 129}, {1, 129}, {129, 1}, {127, 129}, {129, 127}, {300, 257}};
    for (DType dtype : {DType::BFloat16, DType::Float16})
        for (const auto& ls : lengths)
            for (bool causal : {false, true}) expectMatchesReference(dtype, ls[0], ls[1], 64, causal);
}

TEST_F(CudaAttentionForward, EveryHeadDimOffTheBlockSize) {
    for (int64_t e : {16, 32, 128})
        for (bool causal : {false, true}) {
            expectMatchesReference(DType::BFloat16, 129, 129, e, causal);
            expectMatchesReference(DType::Float16, 127, 33, e, causal);
        }
}

// The 128-key tiles (CWB_FLASH_TUNING=keys=128: one slice a warp causal, two without the mask; 64 KiB of shared
// memory), at lengths off the tile and block sizes and at GPT-2's 1024 and past it.
TEST_F(CudaAttentionForward, WideKeyTilesOffTheBlockAndTileSizes) {
    const eng::cuda::DeviceContext& context = eng::cuda::DeviceContext::get(0);
    const cudagen::FlashForwardShape shapes[] = {{4, 1, 128, 2}, {4, 2, 128, 2}};
    if (context.sharedPerBlockOptin() < shapes[0].sharedBytes(64)) GTEST_SKIP() << "the device allows " << context.sharedPerBlockOptin() << " bytes a block";
    const int64_t lengths[][2] = {{1, 1}, {127, 127}, {129, 129}, {1024, 1024}, {1031, 1031}, {1, 1031}, {1031, 129}, {129, 1031}};
    for (const cudagen::FlashForwardShape& shape : shapes)
        for (const auto& ls : lengths)
            for (bool causal : {false, true}) expectMatchesReference(DType::BFloat16, ls[0], ls[1], 64, causal, &shape);
    for (const cudagen::FlashForwardShape& shape : shapes)
        for (bool causal : {false, true}) expectMatchesReference(DType::Float16, 1031, 1031, 64, causal, &shape);
}

// The default shapes at GPT-2's length.
TEST_F(CudaAttentionForward, DefaultShapesAtLength1024) {
    for (bool causal : {false, true}) {
        expectMatchesReference(DType::BFloat16, 1024, 1024, 64, causal);
        expectMatchesReference(DType::Float16, 1031, 1031, 64, causal);
    }
}

// The scale folds into each exp2's FMA with the maxima kept in raw score units: a negative scale runs as the
// positive one on -Q, a zero one as uniform weights over the allowed keys (not NaN from -inf * 0).
TEST_F(CudaAttentionForward, ScalesOfEitherSignAndZero) {
    const cudagen::FlashForwardShape wide{4, 1, 128, 2};
    const bool wideFits = eng::cuda::DeviceContext::get(0).sharedPerBlockOptin() >= wide.sharedBytes(64);
    for (double scale : {-0.3, 0.0, 0.7})
        for (bool causal : {false, true}) {
            expectMatchesReference(DType::BFloat16, 129, 127, 64, causal, nullptr, scale);
            expectMatchesReference(DType::Float16, 127, 129, 32, causal, nullptr, scale);
            expectMatchesReference(DType::BFloat16, 129, 129, 128, causal, nullptr, scale);
            if (wideFits) expectMatchesReference(DType::Float16, 300, 257, 64, causal, &wide, scale);
        }
}

}  // namespace
