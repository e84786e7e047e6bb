// Python's operators as enums and lookups, generated from ops/operators.def: BINARY_OP/COMPARE_OP operand
// numbers, symbols, `operator` functions (FX targets) and dunder names.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace eng::ops {

enum class BinaryOperator : uint8_t {
#define CWB_BINARY_OPERATOR(Name, symbol, function, dunder) Name,
#include "ops/operators.def"
#undef CWB_BINARY_OPERATOR
};

enum class CompareOperator : uint8_t {
#define CWB_COMPARE_OPERATOR(Name, symbol, function, Reflected) Name,
#include "ops/operators.def"
#undef CWB_COMPARE_OPERATOR
};

enum class UnaryOperator : uint8_t {
#define CWB_UNARY_OPERATOR(Name, symbol, function) Name,
#include "ops/operators.def"
#undef CWB_UNARY_OPERATOR
};

struct UnaryOperatorInfo {
    std::string_view symbol;    // "-"
    std::string_view function;  // "neg": operator.neg
};

inline constexpr std::array kUnaryOperators = {
#define CWB_UNARY_OPERATOR(Name, symbol, function) UnaryOperatorInfo{symbol, function},
#include "ops/operators.def"
#undef CWB_UNARY_OPERATOR
};

constexpr const UnaryOperatorInfo& info(UnaryOperator op) { return kUnaryOperators[static_cast<size_t>(op)]; }
constexpr std::optional<UnaryOperator> unaryOperatorByFunction(std::string_view function) {
    for (size_t i = 0; i < kUnaryOperators.size(); ++i)
        if (function == kUnaryOperators[i].function) return static_cast<UnaryOperator>(i);
    return std::nullopt;
}

struct BinaryOperatorInfo {
    std::string_view symbol;          // "+"
    std::string_view inplaceSymbol;   // "+="
    std::string_view function;        // "add", "and_": operator.<function>
    std::string_view dunder;          // "add": __add__, __radd__, __iadd__
};

struct CompareOperatorInfo {
    std::string_view symbol;    // "<"
    std::string_view function;  // "lt": operator.lt and __lt__
    CompareOperator reflected;  // a < b is b > a
};

inline constexpr std::array kBinaryOperators = {
#define CWB_BINARY_OPERATOR(Name, symbol, function, dunder) BinaryOperatorInfo{symbol, symbol "=", function, dunder},
#include "ops/operators.def"
#undef CWB_BINARY_OPERATOR
};

inline constexpr std::array kCompareOperators = {
#define CWB_COMPARE_OPERATOR(Name, symbol, function, Reflected) \
    CompareOperatorInfo{symbol, function, CompareOperator::Reflected},
#include "ops/operators.def"
#undef CWB_COMPARE_OPERATOR
};

/// BINARY_OP's in-place operands follow the plain ones, as CPython's NB_INPLACE_* do.
inline constexpr uint32_t kBinaryOpInplaceOffset = kBinaryOperators.size();
inline constexpr uint32_t kBinaryOpArgCount = 2 * kBinaryOperators.size();
inline constexpr uint32_t kCompareOpArgCount = kCompareOperators.size();

constexpr const BinaryOperatorInfo& info(BinaryOperator op) { return kBinaryOperators[static_cast<size_t>(op)]; }
constexpr const CompareOperatorInfo& info(CompareOperator op) { return kCompareOperators[static_cast<size_t>(op)]; }

/// BINARY_OP's operand for `op` (or its augmented assignment `op=`).
constexpr uint32_t binaryOpArg(BinaryOperator op, bool inplace) {
    return static_cast<uint32_t>(op) + (inplace ? kBinaryOpInplaceOffset : 0);
}
/// The operator of a BINARY_OP operand and whether it is the in-place form; nullopt when out of range.
struct BinaryOpOperand {
    BinaryOperator op;
    bool inplace;
};
constexpr std::optional<BinaryOpOperand> decodeBinaryOpArg(uint32_t arg) {
    if (arg >= kBinaryOpArgCount) return std::nullopt;
    const bool inplace = arg >= kBinaryOpInplaceOffset;
    return BinaryOpOperand{static_cast<BinaryOperator>(inplace ? arg - kBinaryOpInplaceOffset : arg), inplace};
}
/// "+", "+=", ...; "?" for an out-of-range operand.
constexpr std::string_view binaryOpArgSymbol(uint32_t arg) {
    auto operand = decodeBinaryOpArg(arg);
    if (!operand) return "?";
    return operand->inplace ? info(operand->op).inplaceSymbol : info(operand->op).symbol;
}
constexpr std::string_view compareOpArgSymbol(uint32_t arg) {
    return arg < kCompareOpArgCount ? kCompareOperators[arg].symbol : "?";
}

/// The `operator` module's function of an operand: "add", "iadd", "and_", "iand".
inline std::string operatorFunction(BinaryOperator op, bool inplace) {
    return inplace ? "i" + std::string(info(op).dunder) : std::string(info(op).function);
}
/// The operator an `operator` module function applies, by name without "operator.": "add", "iadd", "lt".
constexpr std::optional<BinaryOpOperand> binaryOperatorByFunction(std::string_view function) {
    for (size_t i = 0; i < kBinaryOperators.size(); ++i) {
        const auto op = static_cast<BinaryOperator>(i);
        if (function == kBinaryOperators[i].function) return BinaryOpOperand{op, false};
        if (function.starts_with('i') && function.substr(1) == kBinaryOperators[i].dunder) return BinaryOpOperand{op, true};
    }
    return std::nullopt;
}
constexpr std::optional<CompareOperator> compareOperatorByFunction(std::string_view function) {
    for (size_t i = 0; i < kCompareOperators.size(); ++i)
        if (function == kCompareOperators[i].function) return static_cast<CompareOperator>(i);
    return std::nullopt;
}
/// Dunder method names: "__add__", "__radd__", "__iadd__".
inline std::string dunder(BinaryOperator op) { return "__" + std::string(info(op).dunder) + "__"; }
inline std::string reflectedDunder(BinaryOperator op) { return "__r" + std::string(info(op).dunder) + "__"; }
inline std::string inplaceDunder(BinaryOperator op) { return "__i" + std::string(info(op).dunder) + "__"; }

}  // namespace eng::ops
