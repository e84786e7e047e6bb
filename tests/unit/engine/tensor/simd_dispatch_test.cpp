// The eager CPU loops give the same values on every vector instruction set the host runs (SSE2, AVX2+FMA,
// AVX-512): each float row of ops/unary_math.def and ops/elementwise.def, on float32 and float64, over a grid
// with signed zeros, infinities, NaN and both tails, against the baseline loop within a few ulps.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/pointwise.h"
#include "tensor/simd_dispatch.h"

namespace {

using namespace eng::tensor;  // NOLINT: test file

std::vector<double> gridValues(int count, double lo, double hi) {
    std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.5, 20.0, 20.5, -87.5, 89.0, 1e-30, -1e-30,
                                  std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
    for (int i = 0; i < count; ++i) values.push_back(lo + (hi - lo) * i / (count - 1));
    return values;
}

// a and b agree: both NaN, or equal, or within `ulps` float/double ulps relative (an absolute floor near 0).
void expectClose(const Tensor& want, const Tensor& got, DType dtype, const std::string& what) {
    const std::vector<double> w = toDoubles(want), g = toDoubles(got);
    ASSERT_EQ(w.size(), g.size()) << what;
    const double epsilon = dtype == DType::Float32 ? std::numeric_limits<float>::epsilon()
                                                   : std::numeric_limits<double>::epsilon();
    for (size_t i = 0; i < w.size(); ++i) {
        if (std::isnan(w[i]) || std::isnan(g[i])) {
            EXPECT_EQ(std::isnan(w[i]), std::isnan(g[i])) << what << " at " << i;
            continue;
        }
        if (w[i] == g[i]) continue;
        const double scale = std::max(std::fabs(w[i]), 1e-6);
        EXPECT_LE(std::fabs(w[i] - g[i]) / scale, 8 * epsilon) << what << " at " << i << ": " << w[i] << " vs " << g[i];
    }
}

class SimdLevels : public ::testing::Test {
protected:
    void TearDown() override { setSimdLevel(saved_); }
    std::vector<SimdLevel> widerLevels() const {
        std::vector<SimdLevel> levels;
        for (SimdLevel level : {SimdLevel::Avx2, SimdLevel::Avx512})
            if (static_cast<int>(level) <= static_cast<int>(hostSimdLevel())) levels.push_back(level);
        return levels;
    }
    SimdLevel saved_ = simdLevel();
};

constexpr UnaryOp kUnaryOps[] = {
#define CWB_UNARY_MATH(Name, ...) UnaryOp::Name,
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, ...) UnaryOp::Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_UNARY
};
constexpr BinaryOp kBinaryOps[] = {
#define CWB_ELEMENTWISE_BINARY(Name, ...) BinaryOp::Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
};

TEST_F(SimdLevels, UnaryRowsMatchTheBaselineLoopOnEveryLevel) {
    if (widerLevels().empty()) GTEST_SKIP() << "the host has no AVX2";
    for (DType dtype : {DType::Float32, DType::Float64}) {
        const std::vector<double> values = gridValues(1001, -30.0, 30.0);
        const Tensor x = fromDoubles(values, {static_cast<int64_t>(values.size())}, dtype);
        for (UnaryOp op : kUnaryOps) {
            if (rowOf(op).typing == eng::ops::ElementTyping::Integral) continue;
            setSimdLevel(SimdLevel::Baseline);
            const Tensor want = unary(op, x);
            for (SimdLevel level : widerLevels()) {
                setSimdLevel(level);
                expectClose(want, unary(op, x), dtype,
                            std::string(rowOf(op).call) + " " + std::string(simdLevelName(level)));
            }
        }
    }
}

TEST_F(SimdLevels, BinaryRowsMatchTheBaselineLoopOnEveryLevelAndScalarSide) {
    if (widerLevels().empty()) GTEST_SKIP() << "the host has no AVX2";
    for (DType dtype : {DType::Float32, DType::Float64}) {
        const std::vector<double> values = gridValues(301, -7.0, 7.0);
        const auto n = static_cast<int64_t>(values.size());
        std::vector<double> reversed(values.rbegin(), values.rend());
        const Tensor a = fromDoubles(values, {n}, dtype), b = fromDoubles(reversed, {n}, dtype);
        const Tensor scalar = fromDoubles({2.5}, {1}, dtype);
        for (BinaryOp op : kBinaryOps) {
            if (rowOf(op).typing == eng::ops::ElementTyping::Integral) continue;
            // Tensor with tensor, and with a broadcast scalar on either side (the loops' three contiguous forms).
            const std::pair<Tensor, Tensor> operands[] = {{a, b}, {a, scalar}, {scalar, b}};
            for (const auto& [left, right] : operands) {
                setSimdLevel(SimdLevel::Baseline);
                const Tensor want = binary(op, left, right);
                for (SimdLevel level : widerLevels()) {
                    setSimdLevel(level);
                    expectClose(want, binary(op, left, right), dtype,
                                std::string(rowOf(op).call) + " " + std::string(simdLevelName(level)));
                }
            }
        }
    }
}

}  // namespace
