// The `typing` and `call` columns of ops/elementwise.def as C++ values, shared by the kernel IR and
// the eager runtime.
#pragma once

#include <optional>
#include <string_view>

#include "ops/operators.h"

namespace eng::ops {

/// How an elementwise op types its operands and result (see ops/elementwise.def for each value).
enum class ElementTyping { Same, Promote, Floating, Integral, Bool };

/// A row's `call` column taken apart: torch.<function>(x, [y,] keyword='value').
struct TorchCall {
    std::string_view function;  // "nn.functional.gelu"
    std::string_view keyword;   // "approximate", or empty
    std::string_view value;     // "tanh"
};

constexpr TorchCall torchCallOf(std::string_view call) {
    const size_t open = call.find('(');
    if (open == std::string_view::npos) return {call, {}, {}};
    const std::string_view argument =
        call.substr(open + 1, call.size() - open - 2);  // keyword='value'
    const size_t equals = argument.find('=');
    return {call.substr(0, open), argument.substr(0, equals),
            argument.substr(equals + 2, argument.size() - equals - 3)};
}

/// The `operator` module's function for the binary row that torch calls `function` (div:
/// operator.truediv, floor_divide: operator.floordiv): a row's function or one of its aliases that
/// ops/operators.def knows. A number on the left of a tensor op has this form only (2 / x).
constexpr std::optional<BinaryOperator> binaryOperatorOfTorchCall(std::string_view function) {
    struct Name {
        std::string_view row;   // the row's function
        std::string_view name;  // the row's function, its torch call or an alias
    };
    constexpr Name kNames[] = {
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, bools, kernel, \
                               call)                                                          \
    {#function, #function},
#define CWB_ELEMENTWISE_ALIAS(alias, function, spelling) {#function, #alias},
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_ALIAS
#undef CWB_ELEMENTWISE_BINARY
    };
    constexpr Name kCalls[] = {
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, bools, kernel, \
                               call)                                                          \
    {#function, call},
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
    };
    for (const Name& call : kCalls) {
        if (call.name != function) continue;
        for (const Name& name : kNames) {
            if (name.row != call.row) continue;
            if (const auto op = binaryOperatorByFunction(name.name); op && !op->inplace)
                return op->op;
        }
    }
    return std::nullopt;
}

}  // namespace eng::ops
