// DType tables and PyTorch's type promotion (torch.promote_types and torch.result_type).
#include "tensor/dtype.h"

#include <array>

namespace eng::tensor {

namespace {

struct DTypeInfo {
    size_t size;
    std::string_view name;
    std::string_view kernelName;
};

constexpr std::array<DTypeInfo, kDTypeCount> kInfo = {{
    {1, "bool", "Bool"},
    {1, "uint8", "Byte"},
    {1, "int8", "Char"},
    {2, "int16", "Short"},
    {4, "int32", "Int"},
    {8, "int64", "Long"},
    {2, "float16", "Half"},
    {2, "bfloat16", "BFloat16"},
    {4, "float32", "Float"},
    {8, "float64", "Double"},
    {8, "complex64", "ComplexFloat"},
    {16, "complex128", "ComplexDouble"},
}};

std::optional<DType> promoteOptional(std::optional<DType> a, DType b) { return a ? promoteTypes(*a, b) : b; }

// PyTorch's combine_categories: the higher-priority result wins unless the lower one is of a higher category.
std::optional<DType> combineCategories(std::optional<DType> higher, std::optional<DType> lower) {
    if (!higher) return lower;
    if (!lower) return higher;
    if (isComplex(*higher)) return higher;
    // A complex operand of lower priority keeps a floating higher one's precision (float64 + complex64 -> complex128).
    if (isComplex(*lower)) return isFloating(*higher) ? complexTypeOf(*higher) : *lower;
    if (isFloating(*higher)) return higher;
    if (*higher == DType::Bool || isFloating(*lower)) return promoteTypes(*higher, *lower);
    return higher;
}

}  // namespace

std::string_view TensorError::pythonClass() const {
    switch (kind_) {
        case ErrorKind::Runtime: return "RuntimeError";
        case ErrorKind::Index: return "IndexError";
        case ErrorKind::Type: return "TypeError";
        case ErrorKind::Value: return "ValueError";
        case ErrorKind::NotImplemented: return "NotImplementedError";
        case ErrorKind::ZeroDivision: return "ZeroDivisionError";
    }
    return "RuntimeError";
}

void fail(ErrorKind kind, const std::string& message) { throw TensorError(kind, message); }

void complexNotImplemented(DType dtype) {
    fail(ErrorKind::Runtime, "kernel not implemented for '" + std::string(dtypeKernelName(dtype)) + "'");
}

size_t itemSize(DType dtype) { return kInfo[static_cast<size_t>(dtype)].size; }
std::string_view dtypeName(DType dtype) { return kInfo[static_cast<size_t>(dtype)].name; }
std::string_view dtypeKernelName(DType dtype) { return kInfo[static_cast<size_t>(dtype)].kernelName; }

std::optional<DType> parseDType(std::string_view name) {
    if (name.starts_with("torch.")) name.remove_prefix(6);
    for (int i = 0; i < kDTypeCount; ++i)
        if (kInfo[static_cast<size_t>(i)].name == name) return static_cast<DType>(i);
    struct Alias {
        std::string_view name;
        DType dtype;
    };
    static constexpr std::array<Alias, 8> kAliases = {{{"float", DType::Float32},
                                                       {"cfloat", DType::Complex64},
                                                       {"cdouble", DType::Complex128},
                                                       {"double", DType::Float64},
                                                       {"half", DType::Float16},
                                                       {"long", DType::Int64},
                                                       {"int", DType::Int32},
                                                       {"short", DType::Int16}}};
    for (const Alias& alias : kAliases)
        if (alias.name == name) return alias.dtype;
    return std::nullopt;
}

DType promoteTypes(DType a, DType b) {
    if (a == b) return a;
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    if (isComplex(a) || isComplex(b)) {
        // The complex type wide enough for both value types (complex64 + float64 -> complex128).
        const DType wider = promoteTypes(isComplex(a) ? complexValueType(a) : a, isComplex(b) ? complexValueType(b) : b);
        return complexTypeOf(wider);
    }
    const bool aFloat = isFloating(a);
    const bool bFloat = isFloating(b);
    if (aFloat && bFloat) {
        // float16 and bfloat16 have no common 16-bit type; float32 holds both.
        if (isReducedFloat(a) && isReducedFloat(b)) return DType::Float32;
        return a > b ? a : b;
    }
    if (aFloat) return a;
    if (bFloat) return b;
    // Both integral. uint8 is the only unsigned type: with int8 it needs int16, otherwise the signed one wins.
    if (a == DType::UInt8 || b == DType::UInt8) {
        const DType other = a == DType::UInt8 ? b : a;
        return other == DType::Int8 ? DType::Int16 : other;
    }
    return a > b ? a : b;
}

void ResultTypeBuilder::addTensor(DType dtype, int64_t dim) {
    if (dim > 0) dimResult_ = promoteOptional(dimResult_, dtype);
    else zeroDimResult_ = promoteOptional(zeroDimResult_, dtype);
}

void ResultTypeBuilder::addScalar(ScalarKind kind) {
    // A Python float counts as the default dtype, an int as int64, a bool as bool.
    const DType asType = kind == ScalarKind::Float ? kDefaultFloat
                         : kind == ScalarKind::Int ? DType::Int64
                                                   : DType::Bool;
    scalarResult_ = promoteOptional(scalarResult_, asType);
}

DType ResultTypeBuilder::result() const {
    std::optional<DType> combined = combineCategories(dimResult_, combineCategories(zeroDimResult_, scalarResult_));
    return combined.value_or(kDefaultFloat);
}

namespace {

constexpr ConversionMethod kConversionMethods[] = {
    {"float", DType::Float32}, {"double", DType::Float64}, {"half", DType::Float16}, {"bfloat16", DType::BFloat16},
    {"int", DType::Int32},     {"long", DType::Int64},     {"short", DType::Int16}, {"char", DType::Int8},
    {"byte", DType::UInt8},    {"bool", DType::Bool},
};

}  // namespace

std::span<const ConversionMethod> conversionMethods() { return kConversionMethods; }

std::optional<DType> dtypeOfConversionMethod(std::string_view name) {
    for (const ConversionMethod& c : kConversionMethods)
        if (c.name == name) return c.dtype;
    return std::nullopt;
}

}  // namespace eng::tensor
