// Reductions by hand: sum over leading / trailing / negative dims with keepdim, integer sums widening to
// int64, max/min indices, unbiased vs population variance, and softmax's numerics at extreme inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/nn_functional.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace eng::tensor {
namespace {

TEST(Reduction, SumDimsAndKeepdim) {
    const Tensor x = reshape(arange(Scalar(int64_t{24}), TensorOptions{DType::Float32}), {2, 3, 4});
    EXPECT_EQ(toDoubles(sum(x, std::vector<int64_t>{0})), (std::vector<double>{12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34}));
    EXPECT_EQ(toDoubles(sum(x, std::vector<int64_t>{0, 1})), (std::vector<double>{60, 66, 72, 78}));
    const Tensor kept = sum(x, std::vector<int64_t>{-1}, true);
    EXPECT_EQ(kept.sizes(), (Shape{2, 3, 1}));
    EXPECT_EQ(toDoubles(kept), (std::vector<double>{6, 22, 38, 54, 70, 86}));
    EXPECT_EQ(toDoubles(mean(x, std::vector<int64_t>{1, -1})), (std::vector<double>{5.5, 17.5}));
    EXPECT_EQ(sum(fromInts({1, 2}, {2}, DType::Int32)).dtype(), DType::Int64);
    EXPECT_EQ(item(sum(fromInts({1, 1, 0}, {3}, DType::Bool))).toInt(), 2);
    EXPECT_THROW(sum(x, std::vector<int64_t>{3}), TensorError);
}

TEST(Reduction, MaxMinVarStd) {
    const Tensor x = fromDoubles({3, 9, 9, -1, 4, -1}, {2, 3});
    const ValuesIndices m = maxDim(x, 1);
    EXPECT_EQ(toDoubles(m.values), (std::vector<double>{9, 4}));
    EXPECT_EQ(toInts(m.indices), (std::vector<int64_t>{1, 1}));  // first of equal maxima
    EXPECT_EQ(toInts(minDim(x, 1, true).indices), (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(toInts(argmax(x)), (std::vector<int64_t>{1}));
    const Tensor v = fromDoubles({1, 2, 3, 4}, {4});
    EXPECT_FLOAT_EQ(static_cast<float>(item(var(v)).toDouble()), 5.0f / 3.0f);
    EXPECT_DOUBLE_EQ(item(var(v, std::nullopt, 0.0)).toDouble(), 1.25);
    EXPECT_FLOAT_EQ(static_cast<float>(item(stdDev(v)).toDouble()), std::sqrt(5.0f / 3.0f));
}

TEST(Reduction, SoftmaxIsStableAtExtremes) {
    const std::vector<double> p = toDoubles(softmax(fromDoubles({1000, 0, -1000}, {3}), 0));
    EXPECT_EQ(p[0], 1.0);
    EXPECT_EQ(p[1], 0.0);
    const std::vector<double> q = toDoubles(softmax(fromDoubles({-INFINITY, 0, 0}, {3}), 0));
    EXPECT_EQ(q, (std::vector<double>{0.0, 0.5, 0.5}));
    const std::vector<double> l = toDoubles(logSoftmax(fromDoubles({0, 0}, {2}), 0));
    EXPECT_FLOAT_EQ(static_cast<float>(l[0]), -std::log(2.0f));
}

}  // namespace
}  // namespace eng::tensor
