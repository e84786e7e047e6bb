// Integer expressions over a trace's symbols: construction, evaluation with Python's floor semantics, and the
// Python text shape guards print.
#include "capture/sym_expr.h"

#include <fmt/core.h>

#include <algorithm>

namespace eng::capture {

namespace {

int64_t floorDivide(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

int64_t floorModulo(int64_t a, int64_t b) { return a - floorDivide(a, b) * b; }

bool keeps(ops::BinaryOperator op) {
    using B = ops::BinaryOperator;
    return op == B::Add || op == B::Subtract || op == B::Multiply || op == B::FloorDivide || op == B::Remainder;
}

void collect(const SymExpr& e, std::vector<const SymExpr*>& out) {
    if (e.kind == SymExpr::Kind::Symbol) {
        const std::string name = e.symbolName();
        if (std::none_of(out.begin(), out.end(), [&](const SymExpr* s) { return s->symbolName() == name; })) out.push_back(&e);
    }
    if (e.lhs) collect(*e.lhs, out);
    if (e.rhs) collect(*e.rhs, out);
}

}  // namespace

SymExprRef SymExpr::constant(int64_t value) {
    auto e = std::make_shared<SymExpr>();
    e->kind = Kind::Constant;
    e->value = value;
    return e;
}

SymExprRef SymExpr::symbol(SourceRef source, int dimension, int64_t hint) {
    auto e = std::make_shared<SymExpr>();
    e->kind = Kind::Symbol;
    e->source = std::move(source);
    e->dimension = dimension;
    e->value = hint;
    return e;
}

SymExprRef SymExpr::binary(ops::BinaryOperator op, SymExprRef lhs, SymExprRef rhs) {
    if (!keeps(op) || !lhs || !rhs) return nullptr;
    // Constants fold and offsets combine, as sympy keeps `s0 - 3` for `s0 - 1 - 1 - 1`.
    using B = ops::BinaryOperator;
    if (lhs->kind == Kind::Constant && rhs->kind == Kind::Constant) {
        auto folded = std::make_shared<SymExpr>(SymExpr{Kind::Binary, 0, nullptr, -1, op, lhs, rhs});
        std::optional<int64_t> value = folded->evaluate([](const SymExpr&) { return std::optional<int64_t>(); });
        if (value) return constant(*value);
    }
    if (op == B::Multiply && (lhs->kind == Kind::Constant && lhs->value == 1)) return rhs;
    if (op == B::Multiply && (rhs->kind == Kind::Constant && rhs->value == 1)) return lhs;
    if ((op == B::Add || op == B::Subtract) && rhs->kind == Kind::Constant) {
        int64_t offset = op == B::Add ? rhs->value : -rhs->value;
        if (lhs->kind == Kind::Binary && (lhs->op == B::Add || lhs->op == B::Subtract) && lhs->rhs->kind == Kind::Constant) {
            offset += lhs->op == B::Add ? lhs->rhs->value : -lhs->rhs->value;
            lhs = lhs->lhs;
        }
        if (offset == 0) return lhs;
        rhs = constant(offset < 0 ? -offset : offset);
        op = offset < 0 ? B::Subtract : B::Add;
    }
    auto e = std::make_shared<SymExpr>();
    e->kind = Kind::Binary;
    e->op = op;
    e->lhs = std::move(lhs);
    e->rhs = std::move(rhs);
    return e;
}

SymExprRef SymExpr::negate(SymExprRef operand) {
    if (!operand) return nullptr;
    auto e = std::make_shared<SymExpr>();
    e->kind = Kind::Negate;
    e->lhs = std::move(operand);
    return e;
}

std::string SymExpr::symbolName() const {
    return dimension >= 0 ? fmt::format("{}.size()[{}]", source->str(), dimension) : source->str();
}

std::vector<const SymExpr*> SymExpr::symbols() const {
    std::vector<const SymExpr*> out;
    collect(*this, out);
    return out;
}

std::optional<int64_t> SymExpr::evaluate(const std::function<std::optional<int64_t>(const SymExpr& symbol)>& symbolValue) const {
    switch (kind) {
        case Kind::Constant: return value;
        case Kind::Symbol: return symbolValue(*this);
        case Kind::Negate: {
            std::optional<int64_t> a = lhs->evaluate(symbolValue);
            return a ? std::optional<int64_t>(-*a) : std::nullopt;
        }
        case Kind::Binary: break;
    }
    std::optional<int64_t> a = lhs->evaluate(symbolValue);
    std::optional<int64_t> b = rhs->evaluate(symbolValue);
    if (!a || !b) return std::nullopt;
    switch (op) {
        case ops::BinaryOperator::Add: return *a + *b;
        case ops::BinaryOperator::Subtract: return *a - *b;
        case ops::BinaryOperator::Multiply: return *a * *b;
        case ops::BinaryOperator::FloorDivide: return *b == 0 ? std::nullopt : std::optional<int64_t>(floorDivide(*a, *b));
        case ops::BinaryOperator::Remainder: return *b == 0 ? std::nullopt : std::optional<int64_t>(floorModulo(*a, *b));
        default: return std::nullopt;
    }
}

int64_t SymExpr::hint() const {
    return evaluate([](const SymExpr& symbol) { return std::optional<int64_t>(symbol.value); }).value_or(0);
}

std::string SymExpr::text() const {
    auto operand = [](const SymExpr& e) { return e.kind == Kind::Binary || e.kind == Kind::Negate ? "(" + e.text() + ")" : e.text(); };
    switch (kind) {
        case Kind::Constant: return std::to_string(value);
        case Kind::Symbol: return symbolName();
        case Kind::Negate: return "-" + operand(*lhs);
        case Kind::Binary: break;
    }
    // + and - chain left to right without parentheses, as Python prints them (`L['n'] - 1 - 1`).
    const bool additive = op == ops::BinaryOperator::Add || op == ops::BinaryOperator::Subtract;
    const bool leftChains = additive && lhs->kind == Kind::Binary &&
                            (lhs->op == ops::BinaryOperator::Add || lhs->op == ops::BinaryOperator::Subtract);
    return fmt::format("{} {} {}", leftChains ? lhs->text() : operand(*lhs), ops::info(op).symbol, operand(*rhs));
}

}  // namespace eng::capture
