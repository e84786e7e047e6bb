// The vectorisable float32 exp/tanh/erf/sigmoid against libm in double precision over dense grids: every
// value must be within a few float ulps (relative), or a tiny absolute error where the result is near 0.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

TEST(VectorMath, SigmoidIsWithinFourUlpsWhereItIsNotTiny) {
    float at = 0;
    auto reference = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
    EXPECT_LT(worstError(sigmoid, reference, -80.0f, 30.0f, 0.0, &at), 4.0) << "at x=" << at;
    EXPECT_EQ(sigmoid(200.0f), 1.0f);
    EXPECT_EQ(sigmoid(-200.0f), 0.0f);
}

}  // namespace
