// Control flow: if, while, for, break, continue, return, raise, try/except/else/finally and with, and the
// unwinding of enclosing blocks (fblocks) that return, break and continue compile inline.
#include <stdexcept>

#include "frontend/compiler_internal.h"

namespace eng::frontend {

namespace {

bool isConstantTrue(const Expr& test) {
    const auto* constant = test.as<ConstantExpr>();
    if (!constant) return false;
    if (const bool* flag = std::get_if<bool>(&constant->value)) return *flag;
    if (const int64_t* number = std::get_if<int64_t>(&constant->value)) return *number != 0;
    return false;
}

}  // namespace

void Compiler::compileIf(const IfStmt& node) {
    Label orelse = code().newLabel();
    Label end = code().newLabel();
    compileJumpIf(*node.test, orelse, false);
    compileBody(node.body);
    if (!node.orelse.empty()) code().emitJump(Opcode::JumpForward, end);
    code().bind(orelse);
    compileBody(node.orelse);
    code().bind(end);
}

void Compiler::compileWhile(const WhileStmt& node) {
    Label head = code().newLabel();
    Label orelse = code().newLabel();
    Label exit = code().newLabel();
    code().bind(head);
    // `while True:` needs no test; the code after it is reachable only through break.
    if (!isConstantTrue(*node.test)) compileJumpIf(*node.test, orelse, false);
    units_.back().fblocks.push_back(FBlock{FBlockKind::WhileLoop, head, exit, nullptr, {}});
    compileBody(node.body);
    units_.back().fblocks.pop_back();
    code().emitJump(Opcode::JumpForward, head);
    code().bind(orelse);
    compileBody(node.orelse);
    code().bind(exit);
}

void Compiler::compileFor(const ForStmt& node, const Stmt& statement) {
    Label head = code().newLabel();
    Label orelse = code().newLabel();
    Label exit = code().newLabel();
    {
        LocationScope at(code(), node.iter->range);
        compileExpr(*node.iter);
        emit(Opcode::GetIter);
        code().bind(head);
        code().emitJump(Opcode::ForIter, orelse);  // an exhausted iterator is popped and the loop left
    }
    compileStore(*node.target);
    units_.back().fblocks.push_back(FBlock{FBlockKind::ForLoop, head, exit, nullptr, {}});
    compileBody(node.body);
    units_.back().fblocks.pop_back();
    {
        LocationScope at(code(), statement.range);
        code().emitJump(Opcode::JumpForward, head);
    }
    code().bind(orelse);
    compileBody(node.orelse);
    code().bind(exit);
}

void Compiler::compileBreak() {
    std::vector<int> handlers = code().activeHandlers();
    std::optional<FBlock> loop = unwindFBlockStack(false, true);
    if (!loop) throw std::logic_error("'break' outside a loop reached the compiler");
    unwindFBlock(*loop, false);  // a for loop's iterator goes too
    code().emitJump(Opcode::JumpForward, loop->loopExit);
    code().restoreHandlers(std::move(handlers));
}

void Compiler::compileContinue() {
    std::vector<int> handlers = code().activeHandlers();
    std::optional<FBlock> loop = unwindFBlockStack(false, true);
    if (!loop) throw std::logic_error("'continue' outside a loop reached the compiler");
    code().emitJump(Opcode::JumpForward, loop->loopHead);
    code().restoreHandlers(std::move(handlers));
}

void Compiler::compileReturn(const ReturnStmt& node) {
    std::vector<int> handlers = code().activeHandlers();
    const ConstantExpr* constant = node.value ? node.value->as<ConstantExpr>() : nullptr;
    bool returnsValue = node.value && !constant;
    if (returnsValue) compileExpr(*node.value);
    unwindFBlockStack(returnsValue, false);
    if (returnsValue) {
        emit(Opcode::ReturnValue);
    } else {
        emit(Opcode::ReturnConst, code().addConstant(constant ? toConstant(constant->value) : Constant{NoneValue{}}));
    }
    code().restoreHandlers(std::move(handlers));
}

void Compiler::compileRaise(const RaiseStmt& node) {
    uint32_t form = 0;
    if (node.exception) {
        compileExpr(*node.exception);
        form = 1;
        if (node.cause) {
            compileExpr(*node.cause);
            form = 2;
        }
    }
    emit(Opcode::RaiseVarargs, form);
}

// ---- try --------------------------------------------------------------------------------------------------
// As in CPython 3.11, protected ranges go into the exception table; handler code saves the previous exception
// with PUSH_EXC_INFO and restores it with POP_EXCEPT, and a "cleanup" handler around each handler restores it
// when the handler itself raises. Every handler is popped before code that runs with fewer stack values than it
// keeps (the verifier checks this), and pushed again where it must cover more code.

void Compiler::compileTry(const TryStmt& node) {
    if (node.finalbody.empty()) {
        compileTryExcept(node);
    } else {
        compileTryFinally(node);
    }
}

/// The handler a handler needs: [prev_exc, exc2] -> restore prev_exc, re-raise exc2.
void Compiler::compileExceptionCleanup(Label cleanup) {
    code().bind(cleanup);
    emit(Opcode::Swap, 2);
    emit(Opcode::PopExcept);
    emit(Opcode::Reraise);
}

void Compiler::compileTryFinally(const TryStmt& node) {
    Label handler = code().newLabel();
    Label cleanup = code().newLabel();
    Label end = code().newLabel();
    int base = code().depth();
    code().pushHandler(handler, base);
    units_.back().fblocks.push_back(FBlock{FBlockKind::FinallyTry, {}, {}, &node.finalbody, {}});
    if (node.handlers.empty()) {
        compileBody(node.body);
    } else {
        compileTryExcept(node);
    }
    units_.back().fblocks.pop_back();
    code().popHandler();
    compileBody(node.finalbody);  // the normal path
    code().emitJump(Opcode::JumpForward, end);
    code().bind(handler);       // [exc]
    emit(Opcode::PushExcInfo);  // [prev_exc, exc]
    code().pushHandler(cleanup, base + 1);
    units_.back().fblocks.push_back(FBlock{FBlockKind::FinallyEnd, {}, {}, nullptr, {}});
    compileBody(node.finalbody);
    units_.back().fblocks.pop_back();
    emit(Opcode::Reraise);
    code().popHandler();
    compileExceptionCleanup(cleanup);
    code().bind(end);
}

void Compiler::compileTryExcept(const TryStmt& node) {
    Label handler = code().newLabel();
    Label cleanup = code().newLabel();
    Label end = code().newLabel();
    int base = code().depth();
    code().pushHandler(handler, base);
    units_.back().fblocks.push_back(FBlock{FBlockKind::TryExcept, {}, {}, nullptr, {}});
    compileBody(node.body);
    units_.back().fblocks.pop_back();
    code().popHandler();
    compileBody(node.orelse);
    code().emitJump(Opcode::JumpForward, end);

    code().bind(handler);  // [exc]
    LocationScope dispatch(code(), node.handlers.front().range);
    emit(Opcode::PushExcInfo);  // [prev_exc, exc]
    code().pushHandler(cleanup, base + 1);
    auto clearName = [&](const std::string& name) {
        // `except E as e` deletes e afterwards, as Python does, so that the traceback is not kept alive.
        emitNone();
        compileName(name, NameAccess::Store);
        compileName(name, NameAccess::Delete);
    };
    for (const ExceptHandler& clause : node.handlers) {
        LocationScope at(code(), clause.range);
        Label next = code().newLabel();
        if (clause.type) {
            compileExpr(*clause.type);
            emit(Opcode::CheckExcMatch);
            code().emitJump(Opcode::PopJumpIfFalse, next);
        }
        // The success path leaves both handlers before POP_EXCEPT, so that no covered instruction runs with
        // fewer values than its handler keeps; the cleanup handler comes back for the next clause.
        if (clause.name.empty()) {
            emit(Opcode::PopTop);  // [prev_exc]
            units_.back().fblocks.push_back(FBlock{FBlockKind::HandlerCleanup, {}, {}, nullptr, {}});
            compileBody(clause.body);
            units_.back().fblocks.pop_back();
            code().popHandler();
            emit(Opcode::PopExcept);
            code().emitJump(Opcode::JumpForward, end);
            code().pushHandler(cleanup, base + 1);
        } else {
            compileName(clause.name, NameAccess::Store);  // [prev_exc]
            Label namedCleanup = code().newLabel();
            code().pushHandler(namedCleanup, base + 1);
            units_.back().fblocks.push_back(FBlock{FBlockKind::HandlerCleanup, {}, {}, nullptr, clause.name});
            compileBody(clause.body);
            units_.back().fblocks.pop_back();
            code().popHandler();
            code().popHandler();
            emit(Opcode::PopExcept);
            clearName(clause.name);
            code().emitJump(Opcode::JumpForward, end);
            code().pushHandler(cleanup, base + 1);
            code().bind(namedCleanup);  // [prev_exc, exc2]
            clearName(clause.name);
            emit(Opcode::Reraise);
        }
        code().bind(next);
    }
    emit(Opcode::Reraise);  // no clause matched: [prev_exc, exc]
    code().popHandler();
    compileExceptionCleanup(cleanup);
    code().bind(end);
}

// ---- with -------------------------------------------------------------------------------------------------

/// Calls the __exit__ on top of the stack with (None, None, None) and drops its result.
void Compiler::callExitWithNones() {
    emit(Opcode::PushNull);
    for (int i = 0; i < 3; ++i) emitNone();
    emit(Opcode::Call, 3);
    emit(Opcode::PopTop);
}

/// One with-item; several items nest, as `with a, b:` means `with a: with b:`.
void Compiler::compileWith(const WithStmt& node, size_t item, const Stmt& statement) {
    const WithItem& withItem = node.items[item];
    Label handler = code().newLabel();
    Label cleanup = code().newLabel();
    Label suppress = code().newLabel();
    Label end = code().newLabel();
    {
        LocationScope at(code(), withItem.context->range);
        compileExpr(*withItem.context);
        emit(Opcode::BeforeWith);  // [exit, entered]
    }
    int base = code().depth() - 2;
    code().pushHandler(handler, base + 1);
    units_.back().fblocks.push_back(FBlock{FBlockKind::With, {}, {}, nullptr, {}});
    if (withItem.target) {
        compileStore(*withItem.target);
    } else {
        emit(Opcode::PopTop);
    }
    if (item + 1 < node.items.size()) {
        compileWith(node, item + 1, statement);
    } else {
        compileBody(node.body);
    }
    units_.back().fblocks.pop_back();
    code().popHandler();
    LocationScope at(code(), statement.range);
    callExitWithNones();
    code().emitJump(Opcode::JumpForward, end);

    code().bind(handler);       // [exit, exc]
    emit(Opcode::PushExcInfo);  // [exit, prev_exc, exc]
    code().pushHandler(cleanup, base + 2);
    emit(Opcode::WithExceptStart);  // [exit, prev_exc, exc, __exit__(type, exc, tb)]
    code().emitJump(Opcode::PopJumpIfTrue, suppress);
    emit(Opcode::Reraise);
    code().popHandler();
    code().bind(suppress);  // a true __exit__ result swallows the exception
    emit(Opcode::PopTop);
    emit(Opcode::PopExcept);
    emit(Opcode::PopTop);
    code().emitJump(Opcode::JumpForward, end);
    compileExceptionCleanup(cleanup);
    code().bind(end);
}

// ---- unwinding --------------------------------------------------------------------------------------------

/// Undoes one block for a return (preserveTop: the return value is on top and must stay), break or continue.
void Compiler::unwindFBlock(const FBlock& block, bool preserveTop) {
    switch (block.kind) {
        case FBlockKind::WhileLoop: return;
        case FBlockKind::ForLoop:
            if (preserveTop) emit(Opcode::Swap, 2);
            emit(Opcode::PopTop);
            return;
        case FBlockKind::TryExcept: code().popHandler(); return;
        case FBlockKind::FinallyTry:
            code().popHandler();
            if (preserveTop) units_.back().fblocks.push_back(FBlock{FBlockKind::PopValue, {}, {}, nullptr, {}});
            compileBody(*block.finalBody);
            if (preserveTop) units_.back().fblocks.pop_back();
            return;
        case FBlockKind::FinallyEnd:
            code().popHandler();
            if (preserveTop) emit(Opcode::Swap, 2);
            emit(Opcode::PopTop);  // the exception being handled
            if (preserveTop) emit(Opcode::Swap, 2);
            emit(Opcode::PopExcept);
            return;
        case FBlockKind::With:
            code().popHandler();
            if (preserveTop) emit(Opcode::Swap, 2);
            callExitWithNones();
            return;
        case FBlockKind::HandlerCleanup:
            if (!block.exceptName.empty()) code().popHandler();
            if (preserveTop) emit(Opcode::Swap, 2);
            code().popHandler();
            emit(Opcode::PopExcept);
            if (!block.exceptName.empty()) {
                emitNone();
                compileName(block.exceptName, NameAccess::Store);
                compileName(block.exceptName, NameAccess::Delete);
            }
            return;
        case FBlockKind::PopValue:
            if (preserveTop) emit(Opcode::Swap, 2);
            emit(Opcode::PopTop);
            return;
    }
}

/// Unwinds from the innermost block outwards: all of them for return, up to the nearest loop for break and
/// continue (which is returned, still on the stack). Each block is off the stack while its own unwinding code
/// compiles, so that a return inside an inline finally body does not run that body again.
std::optional<FBlock> Compiler::unwindFBlockStack(bool preserveTop, bool stopAtLoop) {
    if (units_.back().fblocks.empty()) return std::nullopt;
    FBlock top = units_.back().fblocks.back();
    if (stopAtLoop && (top.kind == FBlockKind::WhileLoop || top.kind == FBlockKind::ForLoop)) return top;
    units_.back().fblocks.pop_back();
    unwindFBlock(top, preserveTop);
    std::optional<FBlock> loop = unwindFBlockStack(preserveTop, stopAtLoop);
    units_.back().fblocks.push_back(top);
    return loop;
}

}  // namespace eng::frontend
