// Printing as PyTorch does it (hand-checked strings; the conformance test adds ~40 recorded from torch 2.11).
#include <gtest/gtest.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/printing.h"
#include "tensor/shape.h"

namespace eng::tensor {
namespace {

TEST(Printing, BasicFormats) {
    EXPECT_EQ(repr(fromDoubles({1, 2, 3}, {3})), "tensor([1., 2., 3.])");
    EXPECT_EQ(repr(fromInts({1, 2}, {2})), "tensor([1, 2])");
    EXPECT_EQ(repr(fromInts({1, 0}, {2}, DType::Bool)), "tensor([ True, False])");
    EXPECT_EQ(repr(fromDoubles({1.5, 2}, {2}, DType::BFloat16)), "tensor([1.5000, 2.0000], dtype=torch.bfloat16)");
    EXPECT_EQ(repr(fromDoubles({1, 2, 3, 4}, {2, 2})), "tensor([[1., 2.],\n        [3., 4.]])");
    EXPECT_EQ(repr(fromInts({1, 2}, {2}, DType::Int32)), "tensor([1, 2], dtype=torch.int32)");
    EXPECT_EQ(repr(scalarTensor(3.5)), "tensor(3.5000)");
    EXPECT_EQ(repr(fromDoubles({1e-5, 1}, {2})), "tensor([1.0000e-05, 1.0000e+00])");
    EXPECT_EQ(repr(zeros({0, 3})), "tensor([], size=(0, 3))");
    EXPECT_EQ(repr(ones({2}, TensorOptions{std::nullopt, kCpu, true})), "tensor([1., 1.], requires_grad=True)");
}

TEST(Printing, SummarisesAboveThreshold) {
    EXPECT_EQ(repr(arange(Scalar(int64_t{2000}))), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
    const std::string big = repr(reshape(arange(Scalar(int64_t{1200})), {40, 30}));
    EXPECT_EQ(big.substr(0, 51), "tensor([[   0,    1,    2,  ...,   27,   28,   29],");
    // Floats spanning more than three decades switch to scientific notation.
    EXPECT_EQ(repr(fromDoubles({0.5, 1000}, {2})), "tensor([5.0000e-01, 1.0000e+03])");
    EXPECT_NE(big.find("        ...,\n"), std::string::npos);
}

}  // namespace
}  // namespace eng::tensor
