// Eager float32 sin and cos through libmvec (tensor/vector_libm.h) on every SIMD level the host runs: within 4
// float ulps of libm in double over a dense grid and at large arguments, signed zero, infinities and NaN as libm,
// each element's value independent of its position (a tail element as in a full vector) and in place as not.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/pointwise.h"
#include "tensor/simd_dispatch.h"
#include "tensor/vector_libm.h"

namespace {

using namespace eng::tensor;  // NOLINT: test file

constexpr double kFloatEpsilon = std::numeric_limits<float>::epsilon();

// Float values as a float32 tensor (each exactly representable, so fromDoubles keeps them).
Tensor floats(const std::vector<float>& values) {
    return fromDoubles(std::vector<double>(values.begin(), values.end()), {static_cast<int64_t>(values.size())}, DType::Float32);
}

std::vector<float> grid() {
    std::vector<float> values;
    constexpr int kSamples = 200003;  // odd: the last vector is partial, and the pool splits it
    for (int i = 0; i < kSamples; ++i) values.push_back(-120.0f + 240.0f * static_cast<float>(i) / kSamples);
    for (float big : {1e4f, -3.5e5f, 1e7f, 3e20f, 1e-30f, 0.0f}) values.push_back(big);
    return values;
}

class VectorLibm : public ::testing::TestWithParam<UnaryOp> {
protected:
    void TearDown() override { setSimdLevel(saved_); }
    SimdLevel saved_ = simdLevel();
};

TEST_P(VectorLibm, FloatSinCosAreWithinFourUlpsOnEveryLevel) {
    const UnaryOp op = GetParam();
    if (!vectorlibm::covers(op)) GTEST_SKIP() << "libmvec is not loadable here";
    const std::vector<float> values = grid();
    const Tensor x = floats(values);
    for (SimdLevel level : {SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512}) {
        if (static_cast<int>(level) > static_cast<int>(hostSimdLevel())) continue;
        setSimdLevel(level);
        SCOPED_TRACE(std::string(simdLevelName(level)));
        const std::vector<double> got = toDoubles(unary(op, x));
        for (size_t i = 0; i < values.size(); ++i) {
            const double want = op == UnaryOp::Sin ? std::sin(static_cast<double>(values[i])) : std::cos(static_cast<double>(values[i]));
            ASSERT_LE(std::fabs(got[i] - want) / std::max(std::fabs(want), 1e-6) / kFloatEpsilon, 4.0) << "at x=" << values[i];
        }
        // The tail element (the last, in a padded vector) as the same value computed alone and in place.
        const Tensor last = floats({values.back()});
        EXPECT_EQ(toDoubles(unary(op, last))[0], got.back());
        const Tensor copy = clone(x);
        unaryInPlace(op, copy);
        EXPECT_EQ(toDoubles(copy), got);
    }
}

TEST_P(VectorLibm, SpecialValuesFollowLibm) {
    const UnaryOp op = GetParam();
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<double> got = toDoubles(unary(op, floats({-0.0f, inf, -inf, nan})));
    if (op == UnaryOp::Sin) {
        EXPECT_EQ(got[0], 0.0);
        EXPECT_TRUE(std::signbit(got[0]));
    } else {
        EXPECT_EQ(got[0], 1.0);
    }
    for (size_t i = 1; i < got.size(); ++i) EXPECT_TRUE(std::isnan(got[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(SinCos, VectorLibm, ::testing::Values(UnaryOp::Sin, UnaryOp::Cos));

}  // namespace
