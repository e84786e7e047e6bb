// The compiler's entry points, code units, name resolution (which load/store opcode a name gets) and the
// simple statements; the rest is in compile_control.cpp, compile_expressions.cpp and compile_functions.cpp.
#include "frontend/compiler.h"

#include <fmt/core.h>

#include <stdexcept>

#include "frontend/compiler_internal.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"

namespace eng::frontend {

// ---- units ------------------------------------------------------------------------------------------------

void Compiler::openUnit(CodeKind kind, const Scope& unitScope, int firstLine) {
    units_.push_back(Unit{std::make_unique<CodeBuilder>(kind, unitScope, file_.name(), firstLine), &unitScope, {}});
}

std::shared_ptr<const CodeObject> Compiler::closeUnit() {
    std::shared_ptr<CodeObject> finished = code().finish();
    units_.pop_back();
    VerifierReport report = verifyCode(*finished);
    if (!report.ok())
        throw std::logic_error(
            fmt::format("{} fails verification: {}", finished->qualifiedName, report.problems.front()));
    finished->maxStackDepth = report.maxStackDepth;
    return finished;
}

std::shared_ptr<const CodeObject> Compiler::compileModule(const Module& module) {
    openUnit(CodeKind::Module, scopes_.module(), 1);
    if (const std::string* doc = docstringOf(module.body)) {
        LocationScope at(code(), module.body.front()->range);
        emitConstant(Constant{*doc});
        compileNamespaceName("__doc__", NameAccess::Store);
    }
    compileBody(module.body, true);
    compileReturnImplicitly(module.body);
    return closeUnit();
}

/// The `return None` a body falls off the end into, located at its last statement as CPython does.
void Compiler::compileReturnImplicitly(const StmtList& body) {
    if (!code().reachable()) return;
    LocationScope at(code(), body.empty() ? code().location() : body.back()->range);
    emit(Opcode::ReturnConst, code().addConstant(Constant{NoneValue{}}));
}

// ---- names ------------------------------------------------------------------------------------------------

void Compiler::compileNamespaceName(const std::string& name, NameAccess access) {
    static constexpr Opcode kOps[] = {Opcode::LoadName, Opcode::StoreName, Opcode::DeleteName};
    emit(kOps[static_cast<int>(access)], code().addName(name));
}

/// CPython's rule: function scopes use fast locals, cells and globals; module and class bodies use their
/// namespace (LOAD_NAME falls back to globals and builtins), except for explicit globals and cells.
void Compiler::compileName(const std::string& name, NameAccess access) {
    static constexpr Opcode kFast[] = {Opcode::LoadFast, Opcode::StoreFast, Opcode::DeleteFast};
    static constexpr Opcode kDeref[] = {Opcode::LoadDeref, Opcode::StoreDeref, Opcode::DeleteDeref};
    static constexpr Opcode kGlobal[] = {Opcode::LoadGlobal, Opcode::StoreGlobal, Opcode::DeleteGlobal};
    auto index = static_cast<size_t>(access);
    const Scope& current = scope();
    SymbolKind kind = current.lookup(name);
    if (kind == SymbolKind::GlobalExplicit) return emit(kGlobal[index], code().addName(name));
    if (current.isFunctionLike()) {
        switch (kind) {
            case SymbolKind::Local: return emit(kFast[index], static_cast<uint32_t>(current.localIndex(name)));
            case SymbolKind::Cell:
            case SymbolKind::Free: return emit(kDeref[index], static_cast<uint32_t>(current.derefIndex(name)));
            case SymbolKind::GlobalExplicit:
            case SymbolKind::GlobalImplicit: return emit(kGlobal[index], code().addName(name));
        }
    }
    if (current.kind == ScopeKind::Class && kind == SymbolKind::Free) {
        // A class body reads its own namespace first, then the enclosing function's cell.
        auto deref = static_cast<uint32_t>(current.derefIndex(name));
        return emit(access == NameAccess::Load ? Opcode::LoadClassDeref : kDeref[index], deref);
    }
    compileNamespaceName(name, access);
}

// ---- statements -------------------------------------------------------------------------------------------

void Compiler::compileAnnotatedAssign(const AnnAssignStmt& n) {
    if (n.value) {
        compileExpr(*n.value);
        compileStore(*n.target);
    }
    if (const auto* name = n.target->as<NameExpr>(); name && scope().kind == ScopeKind::Class) {
        // __annotations__[name] = annotation (the class body made the dict first: compileClassDef).
        compileExpr(*n.annotation);
        compileNamespaceName("__annotations__", NameAccess::Load);
        emitConstant(Constant{name->id});
        emit(Opcode::StoreSubscr);
        return;
    }
    if (n.value) return;
    if (const auto* attribute = n.target->as<AttributeExpr>()) {
        compileExpr(*attribute->value);  // Python evaluates the object even without a value
        emit(Opcode::PopTop);
    } else if (const auto* subscript = n.target->as<SubscriptExpr>()) {
        compileExpr(*subscript->value);
        compileExpr(*subscript->index);
        emit(Opcode::PopTop);
        emit(Opcode::PopTop);
    }
}

void Compiler::compileBody(const StmtList& body, bool skipDocstring) {
    size_t first = skipDocstring && docstringOf(body) ? 1 : 0;
    for (size_t i = first; i < body.size(); ++i) compileStatement(*body[i]);
}

void Compiler::compileStatement(const Stmt& statement) {
    LocationScope at(code(), statement.range);
    std::visit(Overloaded{
                   [&](const FunctionDefStmt& n) { compileFunctionDef(n, statement); },
                   [&](const ClassDefStmt& n) { compileClassDef(n, statement); },
                   [&](const ReturnStmt& n) { compileReturn(n); },
                   [&](const DeleteStmt& n) {
                       for (const ExprPtr& target : n.targets) compileDelete(*target);
                   },
                   [&](const AssignStmt& n) {
                       compileExpr(*n.value);
                       for (size_t i = 0; i < n.targets.size(); ++i) {
                           if (i + 1 < n.targets.size()) emit(Opcode::Copy, 1);
                           compileStore(*n.targets[i]);
                       }
                   },
                   [&](const AugAssignStmt& n) { compileAugAssign(n); },
                   [&](const AnnAssignStmt& n) { compileAnnotatedAssign(n); },
                   [&](const ForStmt& n) { compileFor(n, statement); },
                   [&](const WhileStmt& n) { compileWhile(n); },
                   [&](const IfStmt& n) { compileIf(n); },
                   [&](const WithStmt& n) { compileWith(n, 0, statement); },
                   [&](const RaiseStmt& n) { compileRaise(n); },
                   [&](const TryStmt& n) { compileTry(n); },
                   [&](const AssertStmt& n) { compileAssert(n); },
                   [&](const ImportStmt& n) { compileImport(n); },
                   [&](const ImportFromStmt& n) { compileImportFrom(n); },
                   [&](const GlobalStmt&) {},
                   [&](const NonlocalStmt&) {},
                   [&](const ExprStmt& n) {
                       if (n.value->is<ConstantExpr>()) return;  // a bare literal (a stray docstring) does nothing
                       compileExpr(*n.value);
                       emit(Opcode::PopTop);
                   },
                   [&](const PassStmt&) {},
                   [&](const BreakStmt&) { compileBreak(); },
                   [&](const ContinueStmt&) { compileContinue(); },
               },
               statement.node);
}

/// import a.b.c binds `a` to the top package; import a.b.c as d walks to the leaf with LOAD_ATTR.
void Compiler::compileImport(const ImportStmt& node) {
    for (const ImportAlias& alias : node.names) {
        LocationScope at(code(), alias.range);
        emitNone();
        emit(Opcode::ImportName, code().addName(alias.name));
        if (alias.asName.empty()) {
            compileName(alias.name.substr(0, alias.name.find('.')), NameAccess::Store);
            continue;
        }
        for (size_t dot = alias.name.find('.'); dot != std::string::npos;) {
            size_t next = alias.name.find('.', dot + 1);
            emit(Opcode::LoadAttr,
                 code().addName(alias.name.substr(dot + 1, next == std::string::npos ? next : next - dot - 1)));
            dot = next;
        }
        compileName(alias.asName, NameAccess::Store);
    }
}

/// from m import a, b as c: IMPORT_NAME with a non-None from-list returns m itself.
void Compiler::compileImportFrom(const ImportFromStmt& node) {
    ConstantTuple fromList;
    for (const ImportAlias& alias : node.names) fromList.items.push_back(Constant{alias.name});
    emitConstant(Constant{std::move(fromList)});
    emit(Opcode::ImportName, code().addName(node.module));
    for (const ImportAlias& alias : node.names) {
        LocationScope at(code(), alias.range);
        emit(Opcode::ImportFrom, code().addName(alias.name));
        compileName(alias.asName.empty() ? alias.name : alias.asName, NameAccess::Store);
    }
    emit(Opcode::PopTop);
}

void Compiler::compileAssert(const AssertStmt& node) {
    Label passed = code().newLabel();
    compileJumpIf(*node.test, passed, true);
    emit(Opcode::LoadAssertionError);
    if (node.message) {
        emit(Opcode::PushNull);
        compileExpr(*node.message);
        emit(Opcode::Call, 1);
    }
    emit(Opcode::RaiseVarargs, 1);
    code().bind(passed);
}

// ---- entry points -----------------------------------------------------------------------------------------

Expected<std::shared_ptr<const CodeObject>> compileModule(const Module& module, const ScopeTable& scopes,
                                                          const SourceFile& file) {
    try {
        return Compiler(file, scopes).compileModule(module);
    } catch (const FrontendError& error) {
        return error.diagnostic();
    } catch (const std::logic_error& bug) {
        return makeDiagnostic(file, SourcePos{1, 1}, fmt::format("internal compiler error: {}", bug.what()));
    }
}

Expected<std::shared_ptr<const CodeObject>> compileSource(const SourceFile& file) {
    Expected<Module> module = parseModule(file);
    if (!module) return module.error();
    Expected<ScopeTable> scopes = analyzeScopes(*module, file);
    if (!scopes) return scopes.error();
    return compileModule(*module, *scopes, file);
}

}  // namespace eng::frontend
