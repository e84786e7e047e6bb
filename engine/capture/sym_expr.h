// Integer expressions over the symbols of a trace (Dynamo's ShapeEnv sympy expressions, for the int operators the
// trace records on symbolic values: + - * // % and unary -), so that a comparison of a value computed from symbols
// becomes a guard on those symbols (`L['depth'] - 1 != 0`) instead of a graph break.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/source.h"
#include "ops/operators.h"

namespace eng::capture {

struct SymExpr;
using SymExprRef = std::shared_ptr<const SymExpr>;

struct SymExpr {
    enum class Kind { Constant, Symbol, Binary, Negate };
    Kind kind = Kind::Constant;
    int64_t value = 0;  // Constant: the value; Symbol: its value in the traced call (the hint)
    SourceRef source;   // Symbol: the int at this source, or the size of its tensor's `dimension`
    int dimension = -1;
    ops::BinaryOperator op = ops::BinaryOperator::Add;  // Binary
    SymExprRef lhs, rhs;                                // Binary: both; Negate: lhs

    static SymExprRef constant(int64_t value);
    static SymExprRef symbol(SourceRef source, int dimension, int64_t hint);
    /// lhs op rhs for the operators expressions keep (+ - * // %); nullptr for any other.
    static SymExprRef binary(ops::BinaryOperator op, SymExprRef lhs, SymExprRef rhs);
    static SymExprRef negate(SymExprRef operand);

    /// The symbol's identity: its source and dimension (`L['x'].size()[0]`, `L['n']`).
    std::string symbolName() const;
    /// The distinct symbols the expression reads, in first-use order.
    std::vector<const SymExpr*> symbols() const;
    /// The value with each symbol read by `symbolValue` (Python's floor semantics for // and %); nullopt when a
    /// symbol has no int value or a divisor is zero.
    std::optional<int64_t> evaluate(const std::function<std::optional<int64_t>(const SymExpr& symbol)>& symbolValue) const;
    /// The value in the traced call (every symbol at its hint).
    int64_t hint() const;
    /// Python text, as Dynamo's guard printer writes shape guards: `L['x'].size()[0] % 2`, `L['depth'] - 1`.
    std::string text() const;
};

}  // namespace eng::capture
