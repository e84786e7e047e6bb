// The CPU flash attention kernel against a double reference of softmax(q k^T * scale) v from the operands' own
// values: float32, bfloat16 and float16, causal or not, odd lengths and head dims, strided views, every SIMD level
// (on an AVX512-BF16 host the AVX-512 level runs bfloat16 through the vdpbf16ps path, the lower levels through FMAs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/cpu_attention.h"
#include "tensor/cpu_attention_kernels.h"
#include "tensor/creation.h"
#include "tensor/nn_functional.h"
#include "tensor/random.h"
#include "tensor/shape.h"
#include "tensor/simd_dispatch.h"

namespace eng::tensor {
namespace {

// |out - reference| within tolerance * max |v| for every element of the [B, H, L, Ev] result.
void expectAttention(const Tensor& out, const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double scale, double tolerance,
                     const std::string& what) {
    const int64_t B = q.size(0), H = q.size(1), L = q.size(2), S = k.size(2), E = q.size(3), Ev = v.size(3);
    ASSERT_EQ(out.sizes(), (Shape{B, H, L, Ev})) << what;
    const std::vector<double> qv = toDoubles(contiguous(q)), kv = toDoubles(contiguous(k)), vv = toDoubles(contiguous(v));
    const std::vector<double> ov = toDoubles(contiguous(out));
    double vMax = 0;
    for (double x : vv) vMax = std::max(vMax, std::abs(x));
    int failures = 0;
    std::vector<double> weights(S);
    for (int64_t bh = 0; bh < B * H; ++bh)
        for (int64_t i = 0; i < L; ++i) {
            double top = -std::numeric_limits<double>::infinity();
            const int64_t keys = causal ? std::min(S, i + 1) : S;
            for (int64_t j = 0; j < keys; ++j) {
                double dot = 0;
                for (int64_t e = 0; e < E; ++e) dot += qv[(bh * L + i) * E + e] * kv[(bh * S + j) * E + e];
                weights[j] = dot * scale;
                top = std::max(top, weights[j]);
            }
            double total = 0;
            for (int64_t j = 0; j < keys; ++j) total += weights[j] = std::exp(weights[j] - top);
            for (int64_t e = 0; e < Ev; ++e) {
                double expected = 0;
                for (int64_t j = 0; j < keys; ++j) expected += weights[j] / total * vv[(bh * S + j) * Ev + e];
                const double got = ov[(bh * L + i) * Ev + e];
                if (!(std::abs(got - expected) <= tolerance * vMax) && ++failures <= 3)
                    ADD_FAILURE() << what << ": [" << bh << ", " << i << ", " << e << "] = " << got << ", expected " << expected;
            }
        }
    EXPECT_EQ(failures, 0) << what;
}

double toleranceFor(DType dtype) { return dtype == DType::Float32 ? 2e-5 : dtype == DType::Float16 ? 2e-3 : 1.6e-2; }

struct Case {
    int64_t B, H, L, S, E, Ev;
};

TEST(CpuAttention, EqualsTheReferenceForOddShapesDtypesAndMasks) {
    const Case cases[] = {{1, 1, 1, 1, 8, 8}, {2, 3, 70, 133, 17, 40}, {1, 2, 133, 70, 64, 64}, {1, 1, 129, 129, 96, 200}, {2, 1, 5, 300, 32, 16}};
    for (DType dtype : {DType::Float32, DType::BFloat16, DType::Float16})
        for (const Case& c : cases)
            for (bool causal : {false, true}) {
                const Tensor q = to(randn({c.B, c.H, c.L, c.E}), dtype), k = to(randn({c.B, c.H, c.S, c.E}), dtype);
                const Tensor v = to(randn({c.B, c.H, c.S, c.Ev}), dtype);
                ASSERT_TRUE(cpuops::flashAttentionSupported(q, k, v));
                const double scale = 1.0 / std::sqrt(static_cast<double>(c.E));
                const std::string what = fmt::format("{} B{} H{} L{} S{} E{} Ev{} causal {}", dtypeName(dtype), c.B, c.H, c.L, c.S, c.E, c.Ev, causal);
                expectAttention(cpuops::flashAttention(q, k, v, causal, scale), q, k, v, causal, scale, toleranceFor(dtype), what);
            }
}

// q, k and v as a transformer block makes them: views of one [B, L, 3, H, E] projection, permuted (no unit stride
// between heads, rows 3 H E apart), read in place; on every SIMD level the host has; with a large scale the
// online softmax's running maximum moves across key tiles.
TEST(CpuAttention, ReadsPermutedViewsOnEverySimdLevel) {
    const int64_t B = 2, L = 150, H = 3, E = 64;
    const Tensor qkv = permute(to(randn({B, L, 3, H, E}), DType::BFloat16), {2, 0, 3, 1, 4});
    const Tensor q = select(qkv, 0, 0), k = select(qkv, 0, 1), v = select(qkv, 0, 2);
    const SimdLevel host = hostSimdLevel();
    for (SimdLevel level : {SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512}) {
        if (level > host) continue;
        const SimdLevel before = setSimdLevel(level);
        for (double scale : {0.125, 2.0})
            expectAttention(cpuops::flashAttention(q, k, v, true, scale), q, k, v, true, scale, toleranceFor(DType::BFloat16),
                            fmt::format("{} scale {}", simdLevelName(level), scale));
        setSimdLevel(before);
    }
}

// The AMX path's own code (16-row groups, tile products, the softmax of 16 rows at once) on the scalar model of the
// tiles, so that hosts without AMX test it too: whole-tile head dims, causal or not, odd lengths, permuted views.
TEST(CpuAttention, AmxPathOnTheTileModel) {
    if (!cpuops::flash::bf16KernelApplies()) GTEST_SKIP() << "no AVX512-BF16 here";
    const cpuops::flash::TilePath before = cpuops::flash::setTilePath(cpuops::flash::TilePath::Soft);
    const Case cases[] = {{2, 3, 70, 133, 32, 48}, {1, 2, 133, 70, 64, 64}, {1, 1, 129, 129, 96, 208}, {2, 1, 5, 300, 32, 16}};
    for (const Case& c : cases)
        for (bool causal : {false, true}) {
            const Tensor q = to(randn({c.B, c.H, c.L, c.E}), DType::BFloat16), k = to(randn({c.B, c.H, c.S, c.E}), DType::BFloat16);
            const Tensor v = to(randn({c.B, c.H, c.S, c.Ev}), DType::BFloat16);
            const double scale = 1.0 / std::sqrt(static_cast<double>(c.E));
            const std::string what = fmt::format("tiles B{} H{} L{} S{} E{} Ev{} causal {}", c.B, c.H, c.L, c.S, c.E, c.Ev, causal);
            expectAttention(cpuops::flashAttention(q, k, v, causal, scale), q, k, v, causal, scale, toleranceFor(DType::BFloat16), what);
        }
    const Tensor qkv = permute(to(randn({2, 150, 3, 3, 64}), DType::BFloat16), {2, 0, 3, 1, 4});
    const Tensor q = select(qkv, 0, 0), k = select(qkv, 0, 1), v = select(qkv, 0, 2);
    for (double scale : {0.125, 2.0})
        expectAttention(cpuops::flashAttention(q, k, v, true, scale), q, k, v, true, scale, toleranceFor(DType::BFloat16), fmt::format("tiles, views, scale {}", scale));
    cpuops::flash::setTilePath(before);
}

// F.scaled_dot_product_attention takes the kernel for 4-D CPU operands without a mask and leaves PyTorch's flash
// layout ([B, L, H, E] in memory); with a mask it keeps the composite path, which the kernel's results equal.
TEST(CpuAttention, ScaledDotProductAttentionUsesItWithoutAMask) {
    const Tensor q = randn({2, 4, 33, 16}), k = randn({2, 4, 47, 16}), v = randn({2, 4, 47, 16});
    const Tensor fused = scaledDotProductAttention(q, k, v, Tensor(), 0.0, false, std::nullopt);
    EXPECT_EQ(fused.strides(), (Shape{33 * 4 * 16, 16, 4 * 16, 1}));
    const Tensor composite = scaledDotProductAttention(q, k, v, ones({33, 47}, TensorOptions{DType::Bool}), 0.0, false, std::nullopt);
    EXPECT_TRUE(composite.isContiguous());
    const std::vector<double> a = toDoubles(contiguous(fused)), b = toDoubles(composite);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5) << i;
}

// Operands the kernel does not take: 3-D, mixed dtypes, unequal heads, float64, head dims past 256.
TEST(CpuAttention, SupportedOnlyWhereItApplies) {
    const Tensor q = randn({1, 2, 4, 8}), k = randn({1, 2, 5, 8}), v = randn({1, 2, 5, 8});
    EXPECT_TRUE(cpuops::flashAttentionSupported(q, k, v));
    EXPECT_FALSE(cpuops::flashAttentionSupported(reshape(q, {2, 4, 8}), reshape(k, {2, 5, 8}), reshape(v, {2, 5, 8})));
    EXPECT_FALSE(cpuops::flashAttentionSupported(q, to(k, DType::BFloat16), v));
    EXPECT_FALSE(cpuops::flashAttentionSupported(q, randn({1, 1, 5, 8}), randn({1, 1, 5, 8})));
    EXPECT_FALSE(cpuops::flashAttentionSupported(to(q, DType::Float64), to(k, DType::Float64), to(v, DType::Float64)));
    EXPECT_FALSE(cpuops::flashAttentionSupported(randn({1, 1, 4, 300}), randn({1, 1, 5, 300}), randn({1, 1, 5, 8})));
}

}  // namespace
}  // namespace eng::tensor
