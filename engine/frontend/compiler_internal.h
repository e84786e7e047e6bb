// The AST -> bytecode compiler, one class split by concern over compiler.cpp (units, names, simple statements),
// compile_control.cpp, compile_expressions.cpp and compile_functions.cpp. Internal: the entry point is compiler.h.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/code_builder.h"
#include "frontend/scope.h"

namespace eng::frontend {

enum class NameAccess { Load, Store, Delete };

/// What a return, break or continue must undo on its way out of enclosing statements (CPython's fblocks).
enum class FBlockKind {
    WhileLoop,       ///< nothing to undo; break/continue stop here
    ForLoop,         ///< the iterator is on the stack
    TryExcept,       ///< the try body's handler is active
    FinallyTry,      ///< the try body of a try/finally: run the finally body inline
    FinallyEnd,      ///< inside the exceptional copy of a finally body: [prev_exc, exc] on the stack
    With,            ///< the bound __exit__ is on the stack: call it with three Nones
    HandlerCleanup,  ///< inside an except body: [prev_exc] on the stack, maybe a name to clear
    PopValue,        ///< a return value kept on the stack while an inline finally body runs
};

struct FBlock {
    FBlockKind kind;
    Label loopHead;                       ///< loops: where continue goes
    Label loopExit;                       ///< loops: where break goes
    const StmtList* finalBody = nullptr;  ///< FinallyTry
    std::string exceptName;               ///< HandlerCleanup of `except E as name`
};

/// The constant-pool form of a literal.
Constant toConstant(const ConstantValue& value);

class Compiler {
public:
    Compiler(const SourceFile& file, const ScopeTable& scopes) : file_(file), scopes_(scopes) {}

    std::shared_ptr<const CodeObject> compileModule(const Module& module);

private:
    struct Unit {
        std::unique_ptr<CodeBuilder> builder;
        const Scope* scope;
        std::vector<FBlock> fblocks;
    };

    /// Sets the location of the instructions emitted while it lives; restores the previous one after.
    class LocationScope {
    public:
        LocationScope(CodeBuilder& builder, SourceRange range) : builder_(builder), saved_(builder.location()) {
            builder.setLocation(range);
        }
        ~LocationScope() { builder_.setLocation(saved_); }
        LocationScope(const LocationScope&) = delete;
        LocationScope& operator=(const LocationScope&) = delete;

    private:
        CodeBuilder& builder_;
        SourceRange saved_;
    };

    // ---- units and names (compiler.cpp)
    CodeBuilder& code() { return *units_.back().builder; }
    const Scope& scope() const { return *units_.back().scope; }
    void openUnit(CodeKind kind, const Scope& scope, int firstLine);
    std::shared_ptr<const CodeObject> closeUnit();
    void emit(Opcode opcode, uint32_t arg = 0) { code().emit(opcode, arg); }
    void emitConstant(Constant constant) { emit(Opcode::LoadConst, code().addConstant(std::move(constant))); }
    void emitNone() { emitConstant(Constant{NoneValue{}}); }
    void compileName(const std::string& name, NameAccess access);
    void compileNamespaceName(const std::string& name, NameAccess access);
    /// Body statements, skipping a leading docstring when asked (functions keep it on the code object).
    void compileBody(const StmtList& body, bool skipDocstring = false);
    /// `x: T [= v]`; in a class body the annotation of a name is evaluated into __annotations__.
    void compileAnnotatedAssign(const AnnAssignStmt& node);
    void compileStatement(const Stmt& statement);
    void compileImport(const ImportStmt& node);
    void compileImportFrom(const ImportFromStmt& node);
    void compileAssert(const AssertStmt& node);
    void compileReturnImplicitly(const StmtList& body);

    // ---- control flow (compile_control.cpp)
    void compileIf(const IfStmt& node);
    void compileWhile(const WhileStmt& node);
    void compileFor(const ForStmt& node, const Stmt& statement);
    void compileBreak();
    void compileContinue();
    void compileReturn(const ReturnStmt& node);
    void compileRaise(const RaiseStmt& node);
    void compileTry(const TryStmt& node);
    void compileTryExcept(const TryStmt& node);
    void compileTryFinally(const TryStmt& node);
    void compileWith(const WithStmt& node, size_t item, const Stmt& statement);
    void compileExceptionCleanup(Label cleanup);
    void callExitWithNones();
    void unwindFBlock(const FBlock& block, bool preserveTop);
    std::optional<FBlock> unwindFBlockStack(bool preserveTop, bool stopAtLoop);

    // ---- expressions (compile_expressions.cpp)
    void compileExpr(const Expr& expr);
    void compileJumpIf(const Expr& test, Label target, bool jumpIfTrue);
    void compileBoolOp(const BoolOpExpr& node);
    void compileCompare(const CompareExpr& node);
    void emitComparison(CompareOperator op);
    void compileCall(const CallExpr& node, const Expr& expr);
    void compileStarredSequence(const ExprList& elements, Opcode build, Opcode add, Opcode extend);
    void compileDictItems(const std::vector<DictItem>& items);
    void compileFString(const ExprList& parts);
    void compileStore(const Expr& target);
    void compileDelete(const Expr& target);
    void compileAugAssign(const AugAssignStmt& node);

    // ---- functions, classes, comprehensions (compile_functions.cpp)
    void compileFunctionDef(const FunctionDefStmt& node, const Stmt& statement);
    void compileLambda(const LambdaExpr& node, const Expr& expr);
    void compileClassDef(const ClassDefStmt& node, const Stmt& statement);
    void compileComprehension(const ComprehensionExpr& node, const Expr& expr);
    /// `yield v`: YIELD_VALUE; `yield from it`: GET_ITER, then SEND/YIELD_VALUE until the delegate returns.
    void compileYield(const YieldExpr& node);
    void compileComprehensionClause(const ComprehensionExpr& node, size_t index);
    /// Evaluates defaults (and keyword-only defaults); returns the MAKE_FUNCTION flags they need.
    uint32_t compileDefaults(const Parameters& params);
    /// Loads the closure cells `child` needs and the code object, then MAKE_FUNCTION.
    void makeFunction(const std::shared_ptr<const CodeObject>& child, uint32_t flags);

    const SourceFile& file_;
    const ScopeTable& scopes_;
    std::vector<Unit> units_;
};

}  // namespace eng::frontend
