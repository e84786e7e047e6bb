// The operators FX prints infix ("a * b", "out += x"), for the FX graph text parser (fx_graph_text.cpp).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace traces::fx_operators {

struct InfixOperator {
    std::string_view token;
    std::string_view target;
};

// FX prints these operator.* calls infix with one blank on each side ("a * b"), which is what we match.
constexpr std::array<InfixOperator, 19> kInfixOperators = {{
    {"**", "operator.pow"},  {"//", "operator.floordiv"}, {"<<", "operator.lshift"}, {">>", "operator.rshift"},
    {"<=", "operator.le"},   {">=", "operator.ge"},       {"==", "operator.eq"},     {"!=", "operator.ne"},
    {"*", "operator.mul"},   {"/", "operator.truediv"},   {"+", "operator.add"},     {"-", "operator.sub"},
    {"%", "operator.mod"},   {"@", "operator.matmul"},    {"&", "operator.and_"},    {"|", "operator.or_"},
    {"^", "operator.xor"},   {"<", "operator.lt"},        {">", "operator.gt"},
}};

/// An in-place operator node as FX prints it: the operation, then the node named after its first argument
/// ("out_4 += x_3;  out_5: \"f32[...]\" = out_4", "x[0] = y;  setitem = x"). Dynamo records a residual add
/// (`out += identity`) this way.
struct InPlaceOperation {
    std::string target;  ///< "operator.iadd", "operator.setitem"
    std::string args;    ///< "out_4, x_3"
};

/// `statement` as an in-place operation (`a += b` for every arithmetic infix operator, `a[i] = v`), if it is one.
std::optional<InPlaceOperation> inPlaceOperationOf(std::string_view statement);

/// Position of the first top-level infix operator (" op "), with the operator it is.
std::optional<std::pair<size_t, const InfixOperator*>> findInfixOperator(std::string_view expr);

}  // namespace traces::fx_operators
