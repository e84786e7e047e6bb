// A Python number (bool, int or float) as an operand of tensor ops. Its kind takes part in type promotion
// as a "wrapped number": it can raise a tensor's category but never its width.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "tensor/dtype.h"

namespace eng::tensor {

class Scalar {
public:
    constexpr Scalar() : kind_(ScalarKind::Int), int_(0) {}
    constexpr Scalar(bool value) : kind_(ScalarKind::Bool), int_(value ? 1 : 0) {}  // NOLINT
    template <typename I>
        requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
    constexpr Scalar(I value) : kind_(ScalarKind::Int), int_(static_cast<int64_t>(value)) {}  // NOLINT
    constexpr Scalar(double value) : kind_(ScalarKind::Float), double_(value) {}  // NOLINT
    constexpr Scalar(float value) : Scalar(static_cast<double>(value)) {}  // NOLINT

    constexpr ScalarKind kind() const { return kind_; }
    constexpr bool isFloat() const { return kind_ == ScalarKind::Float; }
    constexpr bool isIntegral() const { return kind_ != ScalarKind::Float; }
    constexpr bool isBool() const { return kind_ == ScalarKind::Bool; }

    constexpr double toDouble() const { return isFloat() ? double_ : static_cast<double>(int_); }
    constexpr int64_t toInt() const { return isFloat() ? static_cast<int64_t>(double_) : int_; }
    constexpr bool toBool() const { return isFloat() ? double_ != 0.0 : int_ != 0; }

    // The value as element type T, converted as a cast of a tensor would.
    template <typename T>
    T to() const {
        return isFloat() ? castValue<T>(double_) : castValue<T>(int_);
    }
    // The dtype a tensor made from this scalar alone gets: bool, int64 or the default float.
    DType defaultDType() const {
        return kind_ == ScalarKind::Float ? kDefaultFloat : kind_ == ScalarKind::Int ? DType::Int64 : DType::Bool;
    }
    // As Python's repr: "True", "3", "2.5", "1e-05", "inf", "nan".
    std::string str() const;

private:
    ScalarKind kind_;
    union {
        int64_t int_;
        double double_;
    };
};

}  // namespace eng::tensor
