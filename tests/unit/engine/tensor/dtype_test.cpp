// Element types: float16/bfloat16 rounding (nearest even, subnormals, overflow, NaN), PyTorch's promotion
// lattice and result_type rules for Python scalars and zero-dim tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/dtype.h"
#include "tensor/pointwise.h"

namespace eng::tensor {
namespace {

TEST(Half, RoundsToNearestEven) {
    EXPECT_EQ(Half(1.0f).bits, 0x3c00);
    EXPECT_EQ(Half(-2.0f).bits, 0xc000);
    EXPECT_EQ(Half(65504.0f).bits, 0x7bff);
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1.0).
    EXPECT_EQ(Half(1.00048828125f).bits, 0x3c00);
    // 1 + 3 * 2^-11 is halfway between odd 1 + 2^-10 and even 1 + 2^-9: rounds up to even.
    EXPECT_EQ(Half(1.00146484375f).bits, 0x3c02);
    EXPECT_EQ(Half(65519.0f).bits, 0x7bff);
    EXPECT_EQ(Half(65520.0f).bits, 0x7c00);  // overflows to +inf
    EXPECT_EQ(Half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
    EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::nanf("")))));
}

TEST(Half, SubnormalsRoundTrip) {
    const float smallest = std::ldexp(1.0f, -24);
    EXPECT_EQ(Half(smallest).bits, 0x0001);
    EXPECT_EQ(static_cast<float>(Half::fromBits(0x0001)), smallest);
    EXPECT_EQ(Half(smallest * 0.5f).bits, 0x0000);  // a tie with zero: even wins
    EXPECT_EQ(Half(smallest * 1.5f).bits, 0x0002);  // a tie between 1 and 2 units: even wins
    EXPECT_EQ(Half(-1e-8f).bits, 0x8000);           // underflows to -0
    EXPECT_EQ(static_cast<float>(Half::fromBits(0x03ff)), 1023 * smallest);
    for (uint32_t bits = 0; bits < 0x7c00; ++bits) {  // every finite half survives float and back
        const Half h = Half::fromBits(static_cast<uint16_t>(bits));
        ASSERT_EQ(Half(static_cast<float>(h)).bits, bits);
    }
}

TEST(BFloat16, RoundsToNearestEven) {
    EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
    EXPECT_EQ(BFloat16(1.00390625f).bits, 0x3f80);    // halfway, even stays
    EXPECT_EQ(BFloat16(1.01171875f).bits, 0x3f82);    // halfway above an odd mantissa: rounds up
    EXPECT_EQ(BFloat16(3.0e38f).bits, 0x7f62);  // large but finite: bfloat16 keeps float's exponent range
    EXPECT_EQ(static_cast<float>(BFloat16(std::numeric_limits<float>::max())), std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
    EXPECT_EQ(static_cast<float>(BFloat16::fromBits(0x4049)), 3.140625f);
}

TEST(Promotion, PromoteTypesTable) {
    EXPECT_EQ(promoteTypes(DType::Bool, DType::Int8), DType::Int8);
    EXPECT_EQ(promoteTypes(DType::UInt8, DType::Int8), DType::Int16);
    EXPECT_EQ(promoteTypes(DType::UInt8, DType::Int32), DType::Int32);
    EXPECT_EQ(promoteTypes(DType::Int64, DType::Float16), DType::Float16);
    EXPECT_EQ(promoteTypes(DType::Float16, DType::BFloat16), DType::Float32);
    EXPECT_EQ(promoteTypes(DType::BFloat16, DType::Float64), DType::Float64);
    EXPECT_EQ(promoteTypes(DType::Int32, DType::Int64), DType::Int64);
    EXPECT_EQ(promoteTypes(DType::Bool, DType::Bool), DType::Bool);
}

TEST(Promotion, PythonScalarsDoNotWidenTensors) {
    const Tensor f32 = ones({2});
    const Tensor i64 = ones({2}, TensorOptions{DType::Int64});
    const Tensor i32 = ones({2}, TensorOptions{DType::Int32});
    const Tensor f16 = ones({2}, TensorOptions{DType::Float16});
    const Tensor b = ones({2}, TensorOptions{DType::Bool});
    EXPECT_EQ(resultType(f32, 2.0), DType::Float32);
    EXPECT_EQ(resultType(i64, 2.5), DType::Float32);  // int tensor * float -> default float
    EXPECT_EQ(resultType(i32, 5), DType::Int32);
    EXPECT_EQ(resultType(f16, 2.5), DType::Float16);
    EXPECT_EQ(resultType(b, true), DType::Bool);
    EXPECT_EQ(resultType(b, 1), DType::Int64);
    EXPECT_EQ(resultType(b, b), DType::Bool);
    // Zero-dim tensors only count when they bring a higher category.
    EXPECT_EQ(resultType(f32, scalarTensor(1.5, DType::Float64)), DType::Float32);
    EXPECT_EQ(resultType(i32, scalarTensor(1.5, DType::Float64)), DType::Float64);
    EXPECT_EQ(resultType(scalarTensor(int64_t{1}), scalarTensor(true)), DType::Int64);
    EXPECT_EQ(mul(i64, 2.5).dtype(), DType::Float32);
    EXPECT_EQ(add(b, b).dtype(), DType::Bool);
    EXPECT_EQ(div(i64, i64).dtype(), DType::Float32);
}

TEST(Promotion, ComplexTypesWidenToHoldTheOtherValueType) {
    EXPECT_EQ(promoteTypes(DType::Complex64, DType::Float64), DType::Complex128);
    EXPECT_EQ(promoteTypes(DType::Int64, DType::Complex64), DType::Complex64);
    EXPECT_EQ(promoteTypes(DType::Complex64, DType::Float16), DType::Complex64);
    EXPECT_EQ(promoteTypes(DType::Complex128, DType::Complex64), DType::Complex128);
    EXPECT_FALSE(isFloating(DType::Complex64));
    EXPECT_TRUE(isComplex(DType::Complex128));
    const Tensor z = zeros({2}, TensorOptions{DType::Complex64});
    // A zero-dim complex tensor brings its category, at the precision of a float64 tensor (combine_categories).
    EXPECT_EQ(resultType(ones({2}, TensorOptions{DType::Float64}), zeros({}, TensorOptions{DType::Complex64})), DType::Complex128);
    EXPECT_EQ(resultType(z, 2.5), DType::Complex64);
    EXPECT_EQ(resultType(ones({2}, TensorOptions{DType::Int32}), z), DType::Complex64);
    EXPECT_FALSE(canCast(DType::Complex64, DType::Float64));
    EXPECT_EQ(parseDType("cfloat"), DType::Complex64);
    EXPECT_EQ(dtypeKernelName(DType::Complex128), "ComplexDouble");
}

TEST(Conversion, FloatToIntTruncatesAndHalfRoundTrips) {
    const Tensor x = fromDoubles({-1.7, 2.9, 0.5}, {3});
    EXPECT_EQ(toInts(to(x, DType::Int64)), (std::vector<int64_t>{-1, 2, 0}));
    const Tensor h = to(fromDoubles({0.1, 1000.3, -3.0e-6}, {3}), DType::Float16);
    const std::vector<double> back = toDoubles(h);
    EXPECT_EQ(back[0], static_cast<double>(static_cast<float>(Half(0.1f))));
    EXPECT_EQ(back[1], 1000.5);  // half spacing at 1000 is 0.5; 1000.3 rounds to 1000.5
    EXPECT_EQ(toDoubles(to(to(h, DType::Float32), DType::Float16)), back);
    EXPECT_EQ(toDoubles(to(fromDoubles({1.005859375}, {1}), DType::BFloat16))[0], 1.0078125);
}

}  // namespace
}  // namespace eng::tensor
