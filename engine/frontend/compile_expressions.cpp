// Expressions: operators, comparisons (chained ones included), boolean short-circuits and conditional jumps,
// calls (CALL, CALL_KW, CALL_FUNCTION_EX), displays with unpacking, f-strings, and assignment/deletion targets.
#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "frontend/compiler_internal.h"

namespace eng::frontend {

Constant toConstant(const ConstantValue& value) {
    return std::visit([](const auto& v) { return Constant{v}; }, value);
}

namespace {

bool isNoneConstant(const Expr& expr) {
    const auto* constant = expr.as<ConstantExpr>();
    return constant && std::holds_alternative<NoneValue>(constant->value);
}

Opcode unaryOpcode(UnaryOperator op) {
    switch (op) {
        case UnaryOperator::Negative: return Opcode::UnaryNegative;
        case UnaryOperator::Positive: return Opcode::UnaryPositive;
        case UnaryOperator::Invert: return Opcode::UnaryInvert;
        case UnaryOperator::Not: return Opcode::UnaryNot;
    }
    return Opcode::UnaryNot;
}

}  // namespace

void Compiler::compileExpr(const Expr& expr) {
    LocationScope at(code(), expr.range);
    std::visit(
        Overloaded{
            [&](const NameExpr& n) { compileName(n.id, NameAccess::Load); },
            [&](const ConstantExpr& c) { emitConstant(toConstant(c.value)); },
            [&](const FStringExpr& f) { compileFString(f.parts); },
            [&](const FormattedValueExpr& f) {
                compileExpr(*f.value);
                uint32_t flags = f.conversion == 's' ? 1 : f.conversion == 'r' ? 2 : f.conversion == 'a' ? 3 : 0;
                if (f.formatSpec) {
                    compileExpr(*f.formatSpec);
                    flags |= kFormatHasSpec;
                }
                emit(Opcode::FormatValue, flags);
            },
            [&](const AttributeExpr& a) {
                compileExpr(*a.value);
                emit(Opcode::LoadAttr, code().addName(a.attr));
            },
            [&](const SubscriptExpr& s) {
                compileExpr(*s.value);
                compileExpr(*s.index);
                emit(Opcode::BinarySubscr);
            },
            [&](const SliceExpr& s) {
                for (const ExprPtr* part : {&s.lower, &s.upper}) {
                    if (*part) {
                        compileExpr(**part);
                    } else {
                        emitNone();
                    }
                }
                if (s.step) compileExpr(*s.step);
                emit(Opcode::BuildSlice, s.step ? 3 : 2);
            },
            [&](const StarredExpr&) { throw std::logic_error("starred expression outside a display or a call"); },
            [&](const CallExpr& c) { compileCall(c, expr); },
            [&](const YieldExpr& y) { compileYield(y); },
            [&](const UnaryExpr& u) {
                // -1 and -0.5 are constants, as CPython folds them; x[-1] then costs one instruction.
                const auto* literal = u.operand->as<ConstantExpr>();
                if (u.op == UnaryOperator::Negative && literal) {
                    if (const int64_t* number = std::get_if<int64_t>(&literal->value))
                        return emitConstant(Constant{-*number});
                    if (const double* number = std::get_if<double>(&literal->value))
                        return emitConstant(Constant{-*number});
                }
                compileExpr(*u.operand);
                emit(unaryOpcode(u.op));
            },
            [&](const BinaryExpr& b) {
                compileExpr(*b.left);
                compileExpr(*b.right);
                emit(Opcode::BinaryOp, binaryOpArg(b.op, false));
            },
            [&](const BoolOpExpr& b) { compileBoolOp(b); },
            [&](const CompareExpr& c) { compileCompare(c); },
            [&](const ConditionalExpr& c) {
                Label orelse = code().newLabel();
                Label end = code().newLabel();
                compileJumpIf(*c.test, orelse, false);
                compileExpr(*c.body);
                code().emitJump(Opcode::JumpForward, end);
                code().bind(orelse);
                compileExpr(*c.orelse);
                code().bind(end);
            },
            [&](const LambdaExpr& l) { compileLambda(l, expr); },
            [&](const NamedExpr& n) {
                compileExpr(*n.value);
                emit(Opcode::Copy, 1);  // the value stays on the stack as the expression's result
                compileStore(*n.target);
            },
            [&](const TupleExpr& t) {
                compileStarredSequence(t.elements, Opcode::BuildTuple, Opcode::ListAppend, Opcode::ListExtend);
            },
            [&](const ListExpr& l) {
                compileStarredSequence(l.elements, Opcode::BuildList, Opcode::ListAppend, Opcode::ListExtend);
            },
            [&](const SetExpr& s) {
                compileStarredSequence(s.elements, Opcode::BuildSet, Opcode::SetAdd, Opcode::SetUpdate);
            },
            [&](const DictExpr& d) { compileDictItems(d.items); },
            [&](const ComprehensionExpr& c) { compileComprehension(c, expr); },
        },
        expr.node);
}

/// Jumps to `target` when `test` is true (jumpIfTrue) or false, without materializing and/or/not results.
void Compiler::compileJumpIf(const Expr& test, Label target, bool jumpIfTrue) {
    LocationScope at(code(), test.range);
    if (const auto* unary = test.as<UnaryExpr>(); unary && unary->op == UnaryOperator::Not)
        return compileJumpIf(*unary->operand, target, !jumpIfTrue);
    if (const auto* boolOp = test.as<BoolOpExpr>()) {
        // `a and b` jumps on false as soon as one is false; on true only when the last one is true.
        bool shortCircuitsOnTrue = boolOp->op == BoolOperator::Or;
        if (shortCircuitsOnTrue == jumpIfTrue) {
            for (const ExprPtr& value : boolOp->values) compileJumpIf(*value, target, jumpIfTrue);
            return;
        }
        Label skip = code().newLabel();
        for (size_t i = 0; i + 1 < boolOp->values.size(); ++i) compileJumpIf(*boolOp->values[i], skip, !jumpIfTrue);
        compileJumpIf(*boolOp->values.back(), target, jumpIfTrue);
        code().bind(skip);
        return;
    }
    if (const auto* compare = test.as<CompareExpr>();
        compare && compare->ops.size() == 1 && isNoneConstant(*compare->comparators[0]) &&
        (compare->ops[0] == CompareOperator::Is || compare->ops[0] == CompareOperator::IsNot)) {
        compileExpr(*compare->left);
        bool jumpOnNone = (compare->ops[0] == CompareOperator::Is) == jumpIfTrue;
        return code().emitJump(jumpOnNone ? Opcode::PopJumpIfNone : Opcode::PopJumpIfNotNone, target);
    }
    compileExpr(test);
    code().emitJump(jumpIfTrue ? Opcode::PopJumpIfTrue : Opcode::PopJumpIfFalse, target);
}

void Compiler::compileBoolOp(const BoolOpExpr& node) {
    Label end = code().newLabel();
    Opcode exitJump = node.op == BoolOperator::And ? Opcode::PopJumpIfFalse : Opcode::PopJumpIfTrue;
    for (size_t i = 0; i + 1 < node.values.size(); ++i) {
        compileExpr(*node.values[i]);
        emit(Opcode::Copy, 1);
        code().emitJump(exitJump, end);
        emit(Opcode::PopTop);
    }
    compileExpr(*node.values.back());
    code().bind(end);
}

void Compiler::emitComparison(CompareOperator op) {
    switch (op) {
        case CompareOperator::Less: return emit(Opcode::CompareOp, static_cast<uint32_t>(CompareOpArg::Less));
        case CompareOperator::LessEqual: return emit(Opcode::CompareOp, static_cast<uint32_t>(CompareOpArg::LessEqual));
        case CompareOperator::Equal: return emit(Opcode::CompareOp, static_cast<uint32_t>(CompareOpArg::Equal));
        case CompareOperator::NotEqual: return emit(Opcode::CompareOp, static_cast<uint32_t>(CompareOpArg::NotEqual));
        case CompareOperator::Greater: return emit(Opcode::CompareOp, static_cast<uint32_t>(CompareOpArg::Greater));
        case CompareOperator::GreaterEqual:
            return emit(Opcode::CompareOp, static_cast<uint32_t>(CompareOpArg::GreaterEqual));
        case CompareOperator::In: return emit(Opcode::ContainsOp, 0);
        case CompareOperator::NotIn: return emit(Opcode::ContainsOp, 1);
        case CompareOperator::Is: return emit(Opcode::IsOp, 0);
        case CompareOperator::IsNot: return emit(Opcode::IsOp, 1);
    }
}

/// a < b < c evaluates b once and stops at the first false comparison (CPython 3.12's sequence).
void Compiler::compileCompare(const CompareExpr& node) {
    compileExpr(*node.left);
    if (node.ops.size() == 1) {
        compileExpr(*node.comparators[0]);
        return emitComparison(node.ops[0]);
    }
    Label cleanup = code().newLabel();
    Label end = code().newLabel();
    for (size_t i = 0; i + 1 < node.ops.size(); ++i) {
        compileExpr(*node.comparators[i]);  // [a, b]
        emit(Opcode::Swap, 2);
        emit(Opcode::Copy, 2);        // [b, a, b]
        emitComparison(node.ops[i]);  // [b, a<b]
        emit(Opcode::Copy, 1);
        code().emitJump(Opcode::PopJumpIfFalse, cleanup);
        emit(Opcode::PopTop);  // [b]
    }
    compileExpr(*node.comparators.back());
    emitComparison(node.ops.back());
    code().emitJump(Opcode::JumpForward, end);
    code().bind(cleanup);  // [b, False]
    emit(Opcode::Swap, 2);
    emit(Opcode::PopTop);
    code().bind(end);
}

/// f.attr(...) loads [method, self] with LOAD_METHOD; any other callee is followed by a NULL, so that every
/// call sees [callable, self_or_null, args...].
void Compiler::compileCall(const CallExpr& node, const Expr& expr) {
    if (const auto* method = node.func->as<AttributeExpr>()) {
        compileExpr(*method->value);
        LocationScope at(code(), node.func->range);
        emit(Opcode::LoadMethod, code().addName(method->attr));
    } else {
        compileExpr(*node.func);
        emit(Opcode::PushNull);
    }
    LocationScope at(code(), expr.range);
    bool unpacks =
        std::any_of(node.args.begin(), node.args.end(), [](const ExprPtr& a) { return a->is<StarredExpr>(); }) ||
        std::any_of(node.keywords.begin(), node.keywords.end(), [](const Keyword& k) { return k.name.empty(); });
    if (!unpacks) {
        for (const ExprPtr& arg : node.args) compileExpr(*arg);
        auto count = static_cast<uint32_t>(node.args.size() + node.keywords.size());
        if (node.keywords.empty()) return emit(Opcode::Call, count);
        ConstantTuple names;
        for (const Keyword& keyword : node.keywords) {
            compileExpr(*keyword.value);
            names.items.push_back(Constant{keyword.name});
        }
        emitConstant(Constant{std::move(names)});
        return emit(Opcode::CallKw, count);
    }
    compileStarredSequence(node.args, Opcode::BuildTuple, Opcode::ListAppend, Opcode::ListExtend);
    if (!node.keywords.empty()) {
        // Keywords gather into one dict; DICT_MERGE raises on a repeated keyword, as a call must.
        size_t pending = 0;
        bool built = false;
        auto flush = [&] {
            if (!built || pending > 0) emit(Opcode::BuildMap, static_cast<uint32_t>(pending));
            if (built && pending > 0) emit(Opcode::DictMerge, 1);
            built = true;
            pending = 0;
        };
        for (const Keyword& keyword : node.keywords) {
            if (keyword.name.empty()) {
                flush();
                compileExpr(*keyword.value);
                emit(Opcode::DictMerge, 1);
            } else {
                emitConstant(Constant{keyword.name});
                compileExpr(*keyword.value);
                ++pending;
            }
        }
        if (!built || pending > 0) flush();
    }
    emit(Opcode::CallFunctionEx, node.keywords.empty() ? 0 : kCallExHasKeywords);
}

/// A tuple, list or set display; with *unpacking it is built as a list (or set) and extended piece by piece.
void Compiler::compileStarredSequence(const ExprList& elements, Opcode build, Opcode add, Opcode extend) {
    auto firstStar =
        std::find_if(elements.begin(), elements.end(), [](const ExprPtr& e) { return e->is<StarredExpr>(); });
    if (firstStar == elements.end()) {
        for (const ExprPtr& element : elements) compileExpr(*element);
        return emit(build, static_cast<uint32_t>(elements.size()));
    }
    bool isTuple = build == Opcode::BuildTuple;
    auto before = static_cast<size_t>(firstStar - elements.begin());
    for (size_t i = 0; i < before; ++i) compileExpr(*elements[i]);
    emit(isTuple ? Opcode::BuildList : build, static_cast<uint32_t>(before));
    for (size_t i = before; i < elements.size(); ++i) {
        if (const auto* starred = elements[i]->as<StarredExpr>()) {
            compileExpr(*starred->value);
            emit(extend, 1);
        } else {
            compileExpr(*elements[i]);
            emit(add, 1);
        }
    }
    if (isTuple) emit(Opcode::ListToTuple);
}

void Compiler::compileDictItems(const std::vector<DictItem>& items) {
    size_t pending = 0;
    bool built = false;
    auto flush = [&] {
        if (!built || pending > 0) emit(Opcode::BuildMap, static_cast<uint32_t>(pending));
        if (built && pending > 0) emit(Opcode::DictUpdate, 1);
        built = true;
        pending = 0;
    };
    for (const DictItem& item : items) {
        if (!item.key) {
            flush();
            compileExpr(*item.value);
            emit(Opcode::DictUpdate, 1);
        } else {
            compileExpr(*item.key);
            compileExpr(*item.value);
            ++pending;
        }
    }
    if (!built || pending > 0) flush();
}

void Compiler::compileFString(const ExprList& parts) {
    if (parts.empty()) return emitConstant(Constant{std::string()});
    // One part is already a str (a literal, or FORMAT_VALUE's result): no BUILD_STRING needed.
    for (const ExprPtr& part : parts) compileExpr(*part);
    if (parts.size() > 1) emit(Opcode::BuildString, static_cast<uint32_t>(parts.size()));
}

// ---- targets ----------------------------------------------------------------------------------------------

void Compiler::compileStore(const Expr& target) {
    LocationScope at(code(), target.range);
    if (const auto* name = target.as<NameExpr>()) return compileName(name->id, NameAccess::Store);
    if (const auto* attribute = target.as<AttributeExpr>()) {
        compileExpr(*attribute->value);
        return emit(Opcode::StoreAttr, code().addName(attribute->attr));
    }
    if (const auto* subscript = target.as<SubscriptExpr>()) {
        compileExpr(*subscript->value);
        compileExpr(*subscript->index);
        return emit(Opcode::StoreSubscr);
    }
    const ExprList* elements = nullptr;
    if (const auto* tuple = target.as<TupleExpr>()) elements = &tuple->elements;
    if (const auto* list = target.as<ListExpr>()) elements = &list->elements;
    if (!elements) throw std::logic_error("invalid assignment target reached the compiler");
    auto star = std::find_if(elements->begin(), elements->end(), [](const ExprPtr& e) { return e->is<StarredExpr>(); });
    if (star == elements->end()) {
        emit(Opcode::UnpackSequence, static_cast<uint32_t>(elements->size()));
    } else {
        auto before = static_cast<uint32_t>(star - elements->begin());
        auto after = static_cast<uint32_t>(elements->end() - star - 1);
        // UNPACK_EX packs both counts into its operand, CPython's limits included.
        if (before > 0xFF || after > 0xFFFFFF)
            throwError(file_, target.range.begin, "too many expressions in star-unpacking assignment");
        emit(Opcode::UnpackEx, before | (after << 8));
    }
    for (const ExprPtr& element : *elements) {
        const auto* starred = element->as<StarredExpr>();
        compileStore(starred ? *starred->value : *element);
    }
}

void Compiler::compileDelete(const Expr& target) {
    LocationScope at(code(), target.range);
    if (const auto* name = target.as<NameExpr>()) return compileName(name->id, NameAccess::Delete);
    if (const auto* attribute = target.as<AttributeExpr>()) {
        compileExpr(*attribute->value);
        return emit(Opcode::DeleteAttr, code().addName(attribute->attr));
    }
    if (const auto* subscript = target.as<SubscriptExpr>()) {
        compileExpr(*subscript->value);
        compileExpr(*subscript->index);
        return emit(Opcode::DeleteSubscr);
    }
    const ExprList* elements = nullptr;
    if (const auto* tuple = target.as<TupleExpr>()) elements = &tuple->elements;
    if (const auto* list = target.as<ListExpr>()) elements = &list->elements;
    if (!elements) throw std::logic_error("invalid deletion target reached the compiler");
    for (const ExprPtr& element : *elements) compileDelete(*element);
}

/// x op= v reads the target once: attribute and subscript targets keep their object (and key) on the stack.
void Compiler::compileAugAssign(const AugAssignStmt& node) {
    uint32_t op = binaryOpArg(node.op, true);
    if (const auto* name = node.target->as<NameExpr>()) {
        compileName(name->id, NameAccess::Load);
        compileExpr(*node.value);
        emit(Opcode::BinaryOp, op);
        return compileName(name->id, NameAccess::Store);
    }
    if (const auto* attribute = node.target->as<AttributeExpr>()) {
        uint32_t attr = code().addName(attribute->attr);
        compileExpr(*attribute->value);
        emit(Opcode::Copy, 1);
        emit(Opcode::LoadAttr, attr);
        compileExpr(*node.value);
        emit(Opcode::BinaryOp, op);
        emit(Opcode::Swap, 2);
        return emit(Opcode::StoreAttr, attr);
    }
    const auto* subscript = node.target->as<SubscriptExpr>();
    if (!subscript) throw std::logic_error("invalid augmented assignment target reached the compiler");
    compileExpr(*subscript->value);
    compileExpr(*subscript->index);
    emit(Opcode::Copy, 2);
    emit(Opcode::Copy, 2);
    emit(Opcode::BinarySubscr);  // [obj, key, old]
    compileExpr(*node.value);
    emit(Opcode::BinaryOp, op);  // [obj, key, new]
    emit(Opcode::Swap, 3);
    emit(Opcode::Swap, 2);  // [new, obj, key]
    emit(Opcode::StoreSubscr);
}

}  // namespace eng::frontend
