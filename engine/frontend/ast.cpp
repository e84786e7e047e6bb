// Operator spellings and small queries on the syntax tree.
#include "frontend/ast.h"

namespace eng::frontend {

std::string_view operatorSymbol(BinaryOperator op) {
    return ops::info(op).symbol;
}

std::string_view operatorSymbol(UnaryOperator op) {
    return ops::info(op).symbol;
}

std::string_view operatorSymbol(BoolOperator op) {
    switch (op) {
        case BoolOperator::And: return "and";
        case BoolOperator::Or: return "or";
    }
    return "?";
}

std::string_view operatorSymbol(CompareOperator op) {
    switch (op) {
        case CompareOperator::Less: return "<";
        case CompareOperator::LessEqual: return "<=";
        case CompareOperator::Equal: return "==";
        case CompareOperator::NotEqual: return "!=";
        case CompareOperator::Greater: return ">";
        case CompareOperator::GreaterEqual: return ">=";
        case CompareOperator::In: return "in";
        case CompareOperator::NotIn: return "not in";
        case CompareOperator::Is: return "is";
        case CompareOperator::IsNot: return "is not";
    }
    return "?";
}

const std::string* docstringOf(const StmtList& body) {
    if (body.empty()) return nullptr;
    const auto* statement = body.front()->as<ExprStmt>();
    if (!statement) return nullptr;
    const auto* constant = statement->value->as<ConstantExpr>();
    return constant ? std::get_if<std::string>(&constant->value) : nullptr;
}

}  // namespace eng::frontend
