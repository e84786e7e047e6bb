// Assembles one code object as the compiler emits it: labels and jumps, the stack depth along the way (so that
// exception handlers know how deep the stack is when they start), the active exception handlers (turned into
// the exception table), the source location of every instruction (the line table) and the constant/name pools.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "frontend/code_object.h"
#include "frontend/scope.h"

namespace eng::frontend {

struct Label {
    int id = -1;
};

class CodeBuilder {
public:
    CodeBuilder(CodeKind kind, const Scope& scope, const std::string& filename, int firstLine);

    // ---- source locations: every emitted instruction takes the current one
    void setLocation(SourceRange range) { location_ = range; }
    SourceRange location() const { return location_; }

    // ---- emission. Nothing is emitted while the current point is unreachable (after a return, raise or
    // unconditional jump, until a label that some emitted jump targets), which keeps dead code out.
    void emit(Opcode opcode, uint32_t arg = 0);
    /// A jump to `target`. JUMP_FORWARD stands for either direction; finish() picks JUMP_BACKWARD when the
    /// target comes first.
    void emitJump(Opcode opcode, Label target);
    Label newLabel();
    void bind(Label label);
    bool reachable() const { return reachable_; }
    int depth() const { return depth_; }

    // ---- pools
    uint32_t addConstant(Constant constant);
    uint32_t addName(std::string_view name);

    // ---- exception handlers: instructions emitted while a handler is the innermost active one are covered by
    // it. `depth` is the number of stack values the handler keeps; the exception goes on top of them.
    void pushHandler(Label target, int depth);
    void popHandler();
    std::vector<int> activeHandlers() const { return active_; }
    void restoreHandlers(std::vector<int> saved) { active_ = std::move(saved); }

    CodeObject& code() { return *code_; }
    /// Resolves jumps and builds the exception table. The verifier computes maxStackDepth afterwards.
    std::shared_ptr<CodeObject> finish();

private:
    struct LabelState {
        int offset = -1;
        int depth = -1;  // stack depth on arrival, once any edge to the label is known
    };
    struct Handler {
        Label target;
        int depth;
        bool referenced = false;
    };

    void noteLabelDepth(Label label, int depth);

    std::shared_ptr<CodeObject> code_;
    std::vector<LabelState> labels_;
    std::vector<Handler> handlers_;
    std::vector<int> active_;
    std::vector<int> instructionHandler_;
    std::vector<std::pair<size_t, Label>> jumps_;
    SourceRange location_;
    int depth_ = 0;
    bool reachable_ = true;
};

}  // namespace eng::frontend
