// The eager CPU loops give the same values on every vector instruction set the host runs (SSE2, AVX2+FMA,
// AVX-512): each float row of ops/unary_math.def and ops/elementwise.def, on float32 and float64, over a grid
// with signed zeros, infinities, NaN and both tails, against the baseline loop within a few ulps; softmax,
// log_softmax and layer_norm rows (vectorised when contiguous) against the same rows computed through a strided
// view, which takes the scalar path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "elementwise_rows.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_functional.h"
#include "tensor/random.h"
#include "tensor/shape.h"
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

// want and got agree: both NaN, or equal, or within 8 float/double ulps relative to max(|want|, floor).
void expectClose(const Tensor& want, const Tensor& got, DType dtype, const std::string& what, double floor = 1e-6) {
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
        const double scale = std::max(std::fabs(w[i]), floor);
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

using elementwise_rows::kBinaryOps;
using elementwise_rows::kUnaryOps;

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

TEST_F(SimdLevels, SoftmaxAndLayerNormRowsMatchTheStridedPathOnEveryLevel) {
    std::vector<SimdLevel> levels = widerLevels();
    levels.push_back(SimdLevel::Baseline);
    for (DType dtype : {DType::Float32, DType::Float64}) {
        // Rows of 77 (not a multiple of the lanes) with a large spread; row 3 holds a NaN, row 5 an infinity.
        std::vector<double> values = toDoubles(randn({9, 77}));
        for (double& v : values) v *= 6.0;
        values[3 * 77 + 40] = std::numeric_limits<double>::quiet_NaN();
        values[5 * 77 + 2] = std::numeric_limits<double>::infinity();
        const Tensor x = fromDoubles(values, {9, 77}, dtype);
        // The same values as the columns of a transposed tensor: dim 0 of xt is strided.
        const Tensor xt = t(contiguous(t(x)));
        const Tensor weight = fromDoubles(toDoubles(randn({77})), {77}, dtype);
        const Tensor bias = fromDoubles(toDoubles(randn({77})), {77}, dtype);
        for (SimdLevel level : levels) {
            setSimdLevel(level);
            const std::string at(simdLevelName(level));
            expectClose(softmax(xt, 1), softmax(x, 1), dtype, "softmax " + at);
            // log_softmax is x - (max + log(sum)): its error is relative to the inputs' size, not the result's.
            expectClose(logSoftmax(xt, 1), logSoftmax(x, 1), dtype, "log_softmax " + at, 30.0);
            // layer_norm's strided reference: the scalar formula, through the baseline level.
            setSimdLevel(SimdLevel::Baseline);
            const Tensor want = layerNorm(x, {77}, weight, bias, 1e-5);
            setSimdLevel(level);
            // x * rstd - mean * rstd cancels (FMA contracts it on AVX2): errors are relative to the normalised
            // values' size, a few units.
            expectClose(want, layerNorm(x, {77}, weight, bias, 1e-5), dtype, "layer_norm " + at, 10.0);
            expectClose(add(mul(layerNorm(x, {77}), weight), bias), layerNorm(x, {77}, weight, bias, 1e-5), dtype,
                        "layer_norm's affine forms " + at, 10.0);
        }
    }
}

}  // namespace
