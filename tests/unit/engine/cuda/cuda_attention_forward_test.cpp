// The flash forward's output and per-row logsumexp against a double-precision reference on the same 16-bit inputs,
// at lengths that are not a multiple of its query block or key tile (1, 127, 129 and mixes of them), causal and not,
// every head dim, both dtypes. Needs a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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
// and its logsumexp in double precision (causal: top-left aligned, row i sees keys 0..i).
void expectMatchesReference(DType dtype, int64_t l, int64_t s, int64_t e, bool causal) {
    const std::string what = std::string(dtypeName(dtype)) + " L=" + std::to_string(l) + " S=" + std::to_string(s) + " E=" + std::to_string(e) +
                             (causal ? " causal" : "");
    SCOPED_TRACE(what);
    const int64_t heads = 2 * 3;
    const Tensor q = to(randn({2, 3, l, e}), dtype, kCuda), k = to(randn({2, 3, s, e}), dtype, kCuda), v = to(randn({2, 3, s, e}), dtype, kCuda);
    const double scale = 1.0 / std::sqrt(static_cast<double>(e));
    Tensor lse;
    const Tensor out = cudaops::flashAttention(q, k, v, causal, scale, &lse);
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

}  // namespace
