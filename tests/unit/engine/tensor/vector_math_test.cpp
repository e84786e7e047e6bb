// The vectorisable float32 exp/tanh/erf/sigmoid against libm in double precision over dense grids: every
// value must be within a few float ulps (relative), or a tiny absolute error where the result is near 0.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "tensor/vector_math.h"

namespace {

using eng::tensor::vecmath::erf;
using eng::tensor::vecmath::exp;
using eng::tensor::vecmath::sigmoid;
using eng::tensor::vecmath::tanh;

constexpr double kFloatEpsilon = std::numeric_limits<float>::epsilon();

// Largest error over [lo, hi] in units of float epsilon, relative to max(|reference|, absoluteFloor).
template <typename Ours, typename Reference>
double worstError(Ours ours, Reference reference, float lo, float hi, double absoluteFloor, float* worstInput) {
    constexpr int kSamples = 400000;
    double worst = 0;
    for (int i = 0; i <= kSamples; ++i) {
        const float x = lo + (hi - lo) * static_cast<float>(i) / kSamples;
        const double want = reference(static_cast<double>(x));
        const double got = ours(x);
        const double error = std::fabs(got - want) / std::max(std::fabs(want), absoluteFloor) / kFloatEpsilon;
        if (error > worst) {
            worst = error;
            *worstInput = x;
        }
    }
    return worst;
}

TEST(VectorMath, ExpIsWithinFourUlpsOverTheWholeFloatRange) {
    float at = 0;
    EXPECT_LT(worstError(exp, [](double x) { return std::exp(x); }, -87.0f, 88.5f, 0.0, &at), 4.0) << "at x=" << at;
    EXPECT_EQ(exp(0.0f), 1.0f);
    EXPECT_EQ(exp(100.0f), std::numeric_limits<float>::infinity());
    EXPECT_EQ(exp(-100.0f), 0.0f);
    EXPECT_EQ(exp(-std::numeric_limits<float>::infinity()), 0.0f);
}

TEST(VectorMath, TanhIsWithinFourUlpsAndKeepsItsSign) {
    float at = 0;
    EXPECT_LT(worstError(tanh, [](double x) { return std::tanh(x); }, -12.0f, 12.0f, 0.0, &at), 4.0) << "at x=" << at;
    EXPECT_LT(worstError(tanh, [](double x) { return std::tanh(x); }, -1e-3f, 1e-3f, 0.0, &at), 2.0) << "at x=" << at;
    EXPECT_EQ(tanh(50.0f), 1.0f);
    EXPECT_EQ(tanh(-50.0f), -1.0f);
    EXPECT_EQ(tanh(0.0f), 0.0f);
}

TEST(VectorMath, ErfIsWithinFourUlpsNearZeroAndOnTheTails) {
    float at = 0;
    EXPECT_LT(worstError(erf, [](double x) { return std::erf(x); }, -6.0f, 6.0f, 0.0, &at), 4.0) << "at x=" << at;
    EXPECT_LT(worstError(erf, [](double x) { return std::erf(x); }, -1e-3f, 1e-3f, 0.0, &at), 2.0) << "at x=" << at;
    EXPECT_EQ(erf(20.0f), 1.0f);
    EXPECT_EQ(erf(-20.0f), -1.0f);
}

TEST(VectorMath, NanPropagatesAndInfinitiesSaturate) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(std::isnan(exp(nan)));
    EXPECT_TRUE(std::isnan(tanh(nan)));
    EXPECT_TRUE(std::isnan(erf(nan)));
    EXPECT_TRUE(std::isnan(sigmoid(nan)));
    EXPECT_EQ(exp(inf), inf);
    EXPECT_EQ(tanh(inf), 1.0f);
    EXPECT_EQ(tanh(-inf), -1.0f);
    EXPECT_EQ(erf(inf), 1.0f);
    EXPECT_EQ(erf(-inf), -1.0f);
    EXPECT_EQ(sigmoid(inf), 1.0f);
    EXPECT_EQ(sigmoid(-inf), 0.0f);
}

// Error of got in units in the last place of the float nearest to the double reference want (the spacing of floats
// at |want|, 2^-149 among subnormals): a correctly rounded result is within 0.5.
double ulpError(float got, double want) {
    const double magnitude = std::fabs(want);
    const int exponent = magnitude < std::numeric_limits<float>::min() ? -126 : std::ilogb(magnitude);
    return std::fabs(static_cast<double>(got) - want) / std::ldexp(1.0, exponent - 23);
}

// Largest ulp error over every stride-th float bit pattern of one sign, from the smallest subnormal to the largest
// finite float (the whole range: tiny inputs where erf and tanh are linear, the series/tail switch points, and
// the saturated tails where the result must round to exactly +-1).
template <typename Ours, typename Reference>
double worstUlpOverAllFloats(Ours ours, Reference reference, bool negative, float* worstInput) {
    constexpr uint32_t kStride = 97;
    double worst = 0;
    for (uint32_t bits = 1; bits < 0x7f800000u; bits += kStride) {
        const float x = std::bit_cast<float>(bits | (negative ? 0x80000000u : 0u));
        const double error = ulpError(ours(x), reference(static_cast<double>(x)));
        if (error > worst) {
            worst = error;
            *worstInput = x;
        }
    }
    return worst;
}

TEST(VectorMath, ErfAndTanhAreWithinAFewUlpsOverEveryFloatMagnitude) {
    const auto erfReference = [](double x) { return std::erf(x); };
    const auto tanhReference = [](double x) { return std::tanh(x); };
    for (bool negative : {false, true}) {
        float at = 0;
        // Measured 2026-11-27 over every 7th float: erf 2.8 ulps (at 0.4586, its series), tanh 5.1 (at 0.2517, just
        // past its series, where 1 - 2/(e^{2x} + 1) cancels).
        EXPECT_LT(worstUlpOverAllFloats(erf, erfReference, negative, &at), 4.0) << "erf at x=" << at;
        EXPECT_LT(worstUlpOverAllFloats(tanh, tanhReference, negative, &at), 6.0) << "tanh at x=" << at;
    }
    // Near the switch points a dense grid (every float of [0.7, 0.8] and [0.2, 0.3], and [3.9, 4.1] where erf's
    // tail is clamped).
    for (const auto& [lo, hi] : {std::pair{0.2f, 0.3f}, std::pair{0.7f, 0.8f}, std::pair{3.9f, 4.1f}}) {
        for (float x = lo; x <= hi; x = std::nextafter(x, 1e30f)) {
            ASSERT_LT(ulpError(erf(x), std::erf(static_cast<double>(x))), 4.0) << "erf at x=" << x;
            ASSERT_LT(ulpError(tanh(x), std::tanh(static_cast<double>(x))), 6.0) << "tanh at x=" << x;
            ASSERT_LT(ulpError(erf(-x), std::erf(-static_cast<double>(x))), 4.0) << "erf at x=" << -x;
        }
    }
}

TEST(VectorMath, ErfAndTanhSpecialValues) {
    const float inf = std::numeric_limits<float>::infinity();
    const float tiny = std::numeric_limits<float>::denorm_min();
    const float max = std::numeric_limits<float>::max();
    // Signed zeros keep their sign, as libm's.
    EXPECT_EQ(std::bit_cast<uint32_t>(erf(0.0f)), 0u);
    EXPECT_EQ(std::bit_cast<uint32_t>(erf(-0.0f)), 0x80000000u);
    EXPECT_EQ(std::bit_cast<uint32_t>(tanh(0.0f)), 0u);
    EXPECT_EQ(std::bit_cast<uint32_t>(tanh(-0.0f)), 0x80000000u);
    // Tiny inputs: erf(x) = 2x/sqrt(pi) and tanh(x) = x, rounded.
    EXPECT_EQ(tanh(tiny), tiny);
    EXPECT_EQ(tanh(-1e-30f), -1e-30f);
    EXPECT_LT(ulpError(erf(1e-30f), 1e-30f * 1.1283791670955126), 1.0);
    EXPECT_GT(erf(tiny), 0.0f);
    // Large magnitudes, infinities and NaN.
    for (float big : {4.0f, 4.5f, 10.0f, 1e10f, max, inf}) {
        EXPECT_EQ(erf(big), 1.0f) << big;
        EXPECT_EQ(erf(-big), -1.0f) << big;
        EXPECT_EQ(tanh(big * 3), 1.0f) << big;
        EXPECT_EQ(tanh(-big * 3), -1.0f) << big;
    }
    EXPECT_TRUE(std::isnan(erf(-std::numeric_limits<float>::quiet_NaN())));
    EXPECT_TRUE(std::isnan(tanh(-std::numeric_limits<float>::quiet_NaN())));
}

TEST(VectorMath, SigmoidIsWithinFourUlpsWhereItIsNotTiny) {
    float at = 0;
    auto reference = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
    EXPECT_LT(worstError(sigmoid, reference, -80.0f, 30.0f, 0.0, &at), 4.0) << "at x=" << at;
    EXPECT_EQ(sigmoid(200.0f), 1.0f);
    EXPECT_EQ(sigmoid(-200.0f), 0.0f);
}

}  // namespace
