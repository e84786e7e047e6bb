// Element types of tensors: names as PyTorch prints them, sizes, categories, PyTorch's promotion lattice,
// and dispatch from a runtime DType to a templated kernel body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "tensor/error.h"
#include "tensor/half.h"

namespace eng::tensor {

// Ordered by promotion category (bool < integral < floating < complex) so that category tests are range checks.
// A complex element is two floats of its value type (real, imaginary), as torch.view_as_real shows it.
enum class DType : uint8_t { Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64, Complex64, Complex128 };

constexpr int kDTypeCount = 12;
constexpr DType kDefaultFloat = DType::Float32;

size_t itemSize(DType dtype);
// "float32", "int64", ... : the name after "torch." in PyTorch's repr.
std::string_view dtypeName(DType dtype);
// Accepts PyTorch's names and aliases ("float", "long", "half", "torch.float32", ...).
std::optional<DType> parseDType(std::string_view name);
// Letter-case name used in PyTorch's kernel errors, e.g. "Float", "Long", "Bool", "Half", "BFloat16".
std::string_view dtypeKernelName(DType dtype);

constexpr bool isFloating(DType d) { return d >= DType::Float16 && d <= DType::Float64; }
constexpr bool isComplex(DType d) { return d >= DType::Complex64; }
constexpr bool isIntegral(DType d, bool includeBool) { return d < DType::Float16 && (includeBool || d != DType::Bool); }
constexpr bool isReducedFloat(DType d) { return d == DType::Float16 || d == DType::BFloat16; }
constexpr bool isSigned(DType d) { return d != DType::Bool && d != DType::UInt8; }
// The float type of a complex type's parts (complex64 -> float32), and the complex type of a float type
// (PyTorch's toRealValueType / toComplexType; the 16-bit floats go to complex64 as they have no complex32 here).
constexpr DType complexValueType(DType d) { return d == DType::Complex128 ? DType::Float64 : DType::Float32; }
constexpr DType complexTypeOf(DType d) { return d == DType::Float64 || d == DType::Complex128 ? DType::Complex128 : DType::Complex64; }

// torch.promote_types: the smallest type both convert to without losing category.
DType promoteTypes(DType a, DType b);

// The value category of a Python scalar or tensor for PyTorch's result_type rules.
enum class ScalarKind : uint8_t { Bool, Int, Float };

// Accumulates operands as torch.result_type does: tensors with dims outrank zero-dim tensors, which outrank
// Python scalars; a lower rank only matters when it brings a higher category (bool < int < float).
class ResultTypeBuilder {
public:
    void addTensor(DType dtype, int64_t dim);
    void addScalar(ScalarKind kind);
    DType result() const;

private:
    std::optional<DType> dimResult_;
    std::optional<DType> zeroDimResult_;
    std::optional<DType> scalarResult_;
};

// Opmath: the type a kernel computes in for storage type T (float for the 16-bit floats).
template <typename T>
struct OpMathOf {
    using type = T;
};
template <>
struct OpMathOf<Half> {
    using type = float;
};
template <>
struct OpMathOf<BFloat16> {
    using type = float;
};
template <typename T>
using OpMath = typename OpMathOf<T>::type;

template <typename T>
constexpr DType dtypeOf();
template <>
constexpr DType dtypeOf<bool>() { return DType::Bool; }
template <>
constexpr DType dtypeOf<uint8_t>() { return DType::UInt8; }
template <>
constexpr DType dtypeOf<int8_t>() { return DType::Int8; }
template <>
constexpr DType dtypeOf<int16_t>() { return DType::Int16; }
template <>
constexpr DType dtypeOf<int32_t>() { return DType::Int32; }
template <>
constexpr DType dtypeOf<int64_t>() { return DType::Int64; }
template <>
constexpr DType dtypeOf<Half>() { return DType::Float16; }
template <>
constexpr DType dtypeOf<BFloat16>() { return DType::BFloat16; }
template <>
constexpr DType dtypeOf<float>() { return DType::Float32; }
template <>
constexpr DType dtypeOf<double>() { return DType::Float64; }

// The error of a typed kernel that has no complex form: PyTorch's "not implemented for 'ComplexFloat'".
[[noreturn]] void complexNotImplemented(DType dtype);

// Calls body.template operator()<T>() with T the C++ type of dtype. Bodies are C++20 template lambdas:
// dispatchDType(d, [&]<typename T>() { ... }). Complex tensors have no typed kernels: their ops are composed
// from float ops on the (real, imaginary) pairs (complex.h), so dispatching one is an error, never a guess.
template <typename Body>
decltype(auto) dispatchDType(DType dtype, Body&& body) {
    switch (dtype) {
        case DType::Bool: return body.template operator()<bool>();
        case DType::UInt8: return body.template operator()<uint8_t>();
        case DType::Int8: return body.template operator()<int8_t>();
        case DType::Int16: return body.template operator()<int16_t>();
        case DType::Int32: return body.template operator()<int32_t>();
        case DType::Int64: return body.template operator()<int64_t>();
        case DType::Float16: return body.template operator()<Half>();
        case DType::BFloat16: return body.template operator()<BFloat16>();
        case DType::Float32: return body.template operator()<float>();
        case DType::Float64: return body.template operator()<double>();
        case DType::Complex64:
        case DType::Complex128: complexNotImplemented(dtype);
    }
    throw TensorError(ErrorKind::Runtime, "unknown dtype");
}

// Converts between element types the way PyTorch's casts do (float to int truncates toward zero; anything
// to bool is "non-zero"; the 16-bit floats round to nearest even).
template <typename To, typename From>
constexpr To castValue(From value) {
    if constexpr (std::is_same_v<To, bool>) {
        return static_cast<double>(value) != 0.0;
    } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
        return To(static_cast<float>(value));
    } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
        return static_cast<To>(static_cast<float>(value));
    } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
        // Out-of-range float to int is undefined in C++; PyTorch on x86 yields the wrapped/min value. Going
        // through int64 keeps small types wrapping like PyTorch's CPU casts.
        if (!(value > -9.3e18 && value < 9.3e18)) return static_cast<To>(INT64_MIN);
        return static_cast<To>(static_cast<int64_t>(value));
    } else {
        return static_cast<To>(value);
    }
}

// The conversion methods x.float(), x.double(), ...: each is x.to(dtype).
struct ConversionMethod {
    std::string_view name;
    DType dtype;
};
std::span<const ConversionMethod> conversionMethods();
std::optional<DType> dtypeOfConversionMethod(std::string_view name);

}  // namespace eng::tensor
