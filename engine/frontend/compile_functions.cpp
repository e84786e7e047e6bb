// Code objects for nested scopes: def (decorators, defaults, keyword-only defaults, closures), lambda, class
// bodies (built through __build_class__, with the __class__ cell for super()) and comprehensions (a nested
// function over the first iterable, called at once).
#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "frontend/compiler_internal.h"

namespace eng::frontend {

namespace {

/// co_firstlineno: the first decorator's line, else the def/class line.
int firstLineOf(const SourceRange& statement, const ExprList& decorators) {
    return decorators.empty() ? statement.begin.line : decorators.front()->range.begin.line;
}

}  // namespace

uint32_t Compiler::compileDefaults(const Parameters& params) {
    uint32_t flags = 0;
    if (!params.defaults.empty()) {
        for (const ExprPtr& value : params.defaults) compileExpr(*value);
        emit(Opcode::BuildTuple, static_cast<uint32_t>(params.defaults.size()));
        flags |= kMakeFunctionDefaults;
    }
    uint32_t keywordDefaults = 0;
    for (size_t i = 0; i < params.keywordOnly.size(); ++i) {
        if (!params.keywordOnlyDefaults[i]) continue;
        emitConstant(Constant{params.keywordOnly[i].name});
        compileExpr(*params.keywordOnlyDefaults[i]);
        ++keywordDefaults;
    }
    if (keywordDefaults > 0) {
        emit(Opcode::BuildMap, keywordDefaults);
        flags |= kMakeFunctionKeywordDefaults;
    }
    return flags;
}

void Compiler::makeFunction(const std::shared_ptr<const CodeObject>& child, uint32_t flags) {
    if (!child->freeVars.empty()) {
        for (const std::string& name : child->freeVars) {
            int index = scope().derefIndex(name);
            if (index < 0)
                throw std::logic_error(fmt::format("{} needs the cell '{}' that {} lacks", child->qualifiedName, name,
                                                   scope().qualifiedName));
            emit(Opcode::LoadClosure, static_cast<uint32_t>(index));
        }
        emit(Opcode::BuildTuple, static_cast<uint32_t>(child->freeVars.size()));
        flags |= kMakeFunctionClosure;
    }
    emitConstant(Constant{child});
    emit(Opcode::MakeFunction, flags);
}

void Compiler::compileFunctionDef(const FunctionDefStmt& node, const Stmt& statement) {
    // Decorators are evaluated first, each followed by the NULL of the call that applies it.
    for (const ExprPtr& decorator : node.decorators) {
        LocationScope at(code(), decorator->range);
        compileExpr(*decorator);
        emit(Opcode::PushNull);
    }
    uint32_t flags = compileDefaults(node.params);
    openUnit(CodeKind::Function, scopes_.scopeOf(&statement), firstLineOf(statement.range, node.decorators));
    if (const std::string* doc = docstringOf(node.body)) code().code().docstring = *doc;
    compileBody(node.body, true);
    compileReturnImplicitly(node.body);
    makeFunction(closeUnit(), flags);
    for (auto decorator = node.decorators.rbegin(); decorator != node.decorators.rend(); ++decorator) {
        LocationScope at(code(), (*decorator)->range);
        emit(Opcode::Call, 1);
    }
    compileName(node.name, NameAccess::Store);
}

void Compiler::compileLambda(const LambdaExpr& node, const Expr& expr) {
    uint32_t flags = compileDefaults(node.params);
    openUnit(CodeKind::Lambda, scopes_.scopeOf(&expr), expr.range.begin.line);
    compileExpr(*node.body);
    {
        LocationScope at(code(), node.body->range);
        emit(Opcode::ReturnValue);
    }
    makeFunction(closeUnit(), flags);
}

/// __build_class__(body_function, name, *bases); the body runs in the class namespace and returns the
/// __class__ cell (also stored as __classcell__) when a method uses super(), so that the cell can be filled
/// with the new class.
void Compiler::compileClassDef(const ClassDefStmt& node, const Stmt& statement) {
    for (const ExprPtr& decorator : node.decorators) {
        LocationScope at(code(), decorator->range);
        compileExpr(*decorator);
        emit(Opcode::PushNull);
    }
    emit(Opcode::LoadBuildClass);
    emit(Opcode::PushNull);
    const Scope& classScope = scopes_.scopeOf(&statement);
    openUnit(CodeKind::Class, classScope, firstLineOf(statement.range, node.decorators));
    {
        LocationScope at(code(), statement.range);
        compileNamespaceName("__name__", NameAccess::Load);
        compileNamespaceName("__module__", NameAccess::Store);
        emitConstant(Constant{classScope.qualifiedName});
        compileNamespaceName("__qualname__", NameAccess::Store);
        if (const std::string* doc = docstringOf(node.body)) {
            emitConstant(Constant{*doc});
            compileNamespaceName("__doc__", NameAccess::Store);
        }
    }
    // SETUP_ANNOTATIONS: a body that annotates names gets its own __annotations__ dict (dataclasses and
    // typing.NamedTuple read their fields from it).
    bool annotates = std::any_of(node.body.begin(), node.body.end(), [](const StmtPtr& s) {
        const auto* ann = std::get_if<AnnAssignStmt>(&s->node);
        return ann && ann->target->is<NameExpr>();
    });
    if (annotates) {
        LocationScope at(code(), statement.range);
        emit(Opcode::BuildMap, 0);
        compileNamespaceName("__annotations__", NameAccess::Store);
    }
    compileBody(node.body, true);
    if (code().reachable()) {
        LocationScope at(code(), node.body.back()->range);
        int classCell = classScope.derefIndex("__class__");
        if (classCell >= 0) {
            emit(Opcode::LoadClosure, static_cast<uint32_t>(classCell));
            emit(Opcode::Copy, 1);
            compileNamespaceName("__classcell__", NameAccess::Store);
            emit(Opcode::ReturnValue);
        } else {
            emit(Opcode::ReturnConst, code().addConstant(Constant{NoneValue{}}));
        }
    }
    makeFunction(closeUnit(), 0);
    emitConstant(Constant{node.name});
    for (const ExprPtr& base : node.bases) compileExpr(*base);
    if (node.metaclass) {
        // __build_class__(body, name, *bases, metaclass=M)
        compileExpr(*node.metaclass);
        ConstantTuple names;
        names.items.push_back(Constant{std::string("metaclass")});
        emitConstant(Constant{std::move(names)});
        emit(Opcode::CallKw, static_cast<uint32_t>(3 + node.bases.size()));
    } else {
        emit(Opcode::Call, static_cast<uint32_t>(2 + node.bases.size()));
    }
    for (auto decorator = node.decorators.rbegin(); decorator != node.decorators.rend(); ++decorator) {
        LocationScope at(code(), (*decorator)->range);
        emit(Opcode::Call, 1);
    }
    compileName(node.name, NameAccess::Store);
}

/// The comprehension is a function of one parameter, ".0", the iterator over the first iterable (evaluated
/// in the enclosing scope); it builds the list, set or dict and returns it. A generator expression is a
/// generator function instead: it yields each element as it is asked for, as in Python.
void Compiler::compileComprehension(const ComprehensionExpr& node, const Expr& expr) {
    openUnit(CodeKind::Comprehension, scopes_.scopeOf(&expr), expr.range.begin.line);
    {
        LocationScope at(code(), expr.range);
        switch (node.kind) {
            case ComprehensionKind::List: emit(Opcode::BuildList, 0); break;
            case ComprehensionKind::Set: emit(Opcode::BuildSet, 0); break;
            case ComprehensionKind::Dict: emit(Opcode::BuildMap, 0); break;
            case ComprehensionKind::Generator: break;
        }
        compileComprehensionClause(node, 0);
        if (node.kind == ComprehensionKind::Generator) {
            emit(Opcode::ReturnConst, code().addConstant(Constant{NoneValue{}}));
        } else {
            emit(Opcode::ReturnValue);
        }
    }
    makeFunction(closeUnit(), 0);
    emit(Opcode::PushNull);
    const Expr& iterable = *node.clauses.front().iter;
    compileExpr(iterable);
    {
        LocationScope at(code(), iterable.range);
        emit(Opcode::GetIter);
    }
    emit(Opcode::Call, 1);
}

void Compiler::compileYield(const YieldExpr& node) {
    if (!node.from) {
        if (node.value) {
            compileExpr(*node.value);
        } else {
            emitNone();
        }
        emit(Opcode::YieldValue);
        return;
    }
    compileExpr(*node.value);
    emit(Opcode::GetIter);
    emitNone();
    Label loop = code().newLabel();
    Label done = code().newLabel();
    code().bind(loop);
    code().emitJump(Opcode::Send, done);
    emit(Opcode::YieldValue);
    code().emitJump(Opcode::JumpForward, loop);  // made JUMP_BACKWARD when the labels are placed
    code().bind(done);
}

void Compiler::compileComprehensionClause(const ComprehensionExpr& node, size_t index) {
    const ComprehensionClause& clause = node.clauses[index];
    Label head = code().newLabel();
    Label exit = code().newLabel();
    {
        LocationScope at(code(), clause.iter->range);
        if (index == 0) {
            emit(Opcode::LoadFast, 0);  // ".0"
        } else {
            compileExpr(*clause.iter);
            emit(Opcode::GetIter);
        }
        code().bind(head);
        code().emitJump(Opcode::ForIter, exit);
    }
    compileStore(*clause.target);
    for (const ExprPtr& condition : clause.conditions) compileJumpIf(*condition, head, false);
    if (index + 1 < node.clauses.size()) {
        compileComprehensionClause(node, index + 1);
    } else {
        // The result sits below one iterator per clause.
        auto depth = static_cast<uint32_t>(node.clauses.size() + 1);
        LocationScope at(code(), node.element->range);
        switch (node.kind) {
            case ComprehensionKind::List:
                compileExpr(*node.element);
                emit(Opcode::ListAppend, depth);
                break;
            case ComprehensionKind::Generator:
                compileExpr(*node.element);
                emit(Opcode::YieldValue);
                emit(Opcode::PopTop);
                break;
            case ComprehensionKind::Set:
                compileExpr(*node.element);
                emit(Opcode::SetAdd, depth);
                break;
            case ComprehensionKind::Dict:
                compileExpr(*node.element);
                compileExpr(*node.value);
                emit(Opcode::MapAdd, depth);
                break;
        }
    }
    LocationScope at(code(), clause.range);
    code().emitJump(Opcode::JumpForward, head);
    code().bind(exit);
}

}  // namespace eng::frontend
