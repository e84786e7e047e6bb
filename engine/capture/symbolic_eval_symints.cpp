// Symbolic ints in the trace (Dynamo's SymNodeVariable over a ShapeEnv): int arithmetic on symbols stays a graph
// value that remembers its expression (sym_expr.h), and a comparison of such values becomes a guard on the symbols
// it reads, so `depth - 1 == 0` or `s % 2 == 0` on a dynamic size keeps the size symbolic instead of breaking.
#include <fmt/core.h>

#include <algorithm>

#include "capture/symbolic_eval.h"
#include "fx/graph_runner.h"

namespace eng::capture {

SymExprRef Tracer::symExprOf(const VarRef& v) const {
    if (v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Int)) return SymExpr::constant(v->value.asInt());
    if (v->kind != Variable::Kind::SymScalar || !v->value.is(vm::Kind::Int)) return nullptr;
    if (v->node) {
        if (auto it = symExprs_.find(v->node); it != symExprs_.end()) return it->second;
        if (auto it = symbolSizes_.find(v->node); it != symbolSizes_.end())
            return SymExpr::symbol(it->second.source, it->second.dimension, v->value.asInt());
        if (v->node->op != NodeOp::Placeholder) return nullptr;  // an int the graph computed some other way (.item(), size())
    }
    return v->source ? SymExpr::symbol(v->source, -1, v->value.asInt()) : nullptr;
}

VarRef Tracer::noteSymExpr(const VarRef& result, SymExprRef expr) {
    if (expr && result->kind == Variable::Kind::SymScalar && result->node && result->value.is(vm::Kind::Int))
        symExprs_[result->node] = std::move(expr);
    return result;
}

VarRef Tracer::unaryOp(ops::UnaryOperator op, const VarRef& v) {
    if (isUserInstance(v)) {
        // -obj on a user object: obj.__neg__() inlined (__pos__, __invert__ likewise).
        const std::string dunder = "__" + std::string(ops::info(op).function) + "__";
        if (std::optional<VarRef> r = callDunder(*current_, v, dunder, {})) return *r;
        unsupported("Unsupported unary operator", fmt::format("Dynamo cannot trace `{}` on this operand type.", ops::info(op).function), {},
                    "operator." + std::string(ops::info(op).function));
    }
    if (v->kind != Variable::Kind::Tensor && v->kind != Variable::Kind::SymScalar) {
        argOf(v);
        return constant(fx::applyUnary(op, exampleOf(v)));
    }
    const std::string target = "operator." + std::string(ops::info(op).function);
    return noteSymExpr(callTensorOp(NodeOp::CallFunction, target, {v}, {}, vm::Value(), CallKind::Unary),
                       op == ops::UnaryOperator::Negative ? SymExpr::negate(symExprOf(v)) : nullptr);
}

SymExprRef Tracer::symExprOfBinary(uint32_t op, const VarRef& a, const VarRef& b) const {
    const auto operand = ops::decodeBinaryOpArg(op);
    if (!operand) return nullptr;
    SymExprRef lhs = symExprOf(a);
    return lhs ? SymExpr::binary(operand->op, lhs, symExprOf(b)) : nullptr;
}

SymExprRef Tracer::numelExpr(const VarRef& tensor) {
    SymExprRef product = SymExpr::constant(1);
    const VarRef shape = getAttr(*current_, tensor, "shape");
    for (const VarRef& size : shape->items)
        if (!(product = SymExpr::binary(ops::BinaryOperator::Multiply, product, symExprOf(size)))) return nullptr;
    return product;
}

std::optional<VarRef> Tracer::compareSymbolic(uint32_t op, const VarRef& a, const VarRef& b) {
    if (a->kind != Variable::Kind::SymScalar && b->kind != Variable::Kind::SymScalar) return std::nullopt;
    SymExprRef lhs = symExprOf(a), rhs = symExprOf(b);
    if (!lhs || !rhs || op >= ops::kCompareOpArgCount) return std::nullopt;
    for (const VarRef& v : {a, b})
        if (v->kind == Variable::Kind::SymScalar && v->source && !v->node) guardValue(v);  // its TYPE_MATCH
    vm::Value result = vm_.compare(op, exampleOf(a), exampleOf(b));
    std::vector<const SymExpr*> symbols = lhs->symbols();
    for (const SymExpr* s : rhs->symbols())
        if (std::none_of(symbols.begin(), symbols.end(), [&](const SymExpr* t) { return t->symbolName() == s->symbolName(); }))
            symbols.push_back(s);
    auto guardOn = [&](const SymExpr& symbol) {
        GuardSpec g;
        g.kind = GuardKind::ScalarCompare;
        g.source = symbol.source;
        g.dimension = symbol.dimension;
        g.origin = originHere();
        return g;
    };
    if (symbols.size() == 1) {
        // One symbol: the comparison itself is the guard, evaluated on that symbol's value in each call.
        GuardSpec g = guardOn(*symbols.front());
        g.compareOp = op;
        g.lhs = lhs;
        g.rhs = rhs;
        g.outcome = vm_.truthy(result);
        guards_.push_back(std::move(g));
    } else {
        // Several symbols: a guard here reads one source, so each symbol is guarded to its value in this call
        // (specialized), which fixes the outcome as well.
        for (const SymExpr* symbol : symbols) {
            GuardSpec g = guardOn(*symbol);
            g.compareOp = static_cast<uint32_t>(ops::CompareOperator::Equal);
            g.expected = vm::Value(symbol->value);
            guards_.push_back(std::move(g));
        }
    }
    return constant(result);
}

}  // namespace eng::capture
