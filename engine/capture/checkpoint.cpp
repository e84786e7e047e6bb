// Where a graph break resumes: at the breaking instruction (a resume point), at the last checkpoint with the rest
// of the frame run eagerly (Dynamo's speculate() / step_graph_break), or nowhere (the whole frame is skipped).
#include "capture/tracer.h"
#include "fx/fx_printer.h"

namespace eng::capture {

namespace {

/// The innermost handler covering `pc` is a try block's (a with-statement's cleanup is none): its table entry.
const frontend::ExceptionTableEntry* tryEntryAt(const frontend::CodeObject& code, uint32_t pc) {
    const auto& instructions = code.instructions;
    for (const auto& entry : code.exceptionTable)
        if (entry.start <= pc && pc < entry.end)
            return entry.target + 1 < instructions.size() && instructions[entry.target].opcode == frontend::Opcode::PushExcInfo &&
                           instructions[entry.target + 1].opcode == frontend::Opcode::WithExceptStart
                       ? nullptr
                       : &entry;
    return nullptr;
}

}  // namespace

bool insideTryBlock(const TraceFrame& root) { return tryEntryAt(*root.code, root.pc) != nullptr; }

void Tracer::noteCheckpoint(const TraceFrame& root) {
    // InstructionTranslator.step: `not self.stack and self.should_compile_partial_graph() and
    // self.is_non_empty_graph()` makes the instruction the current speculation.
    if (!root.stack.empty() || fx::callNodeCount(*graph_) == 0) return;
    // CPython 3.12 compiles `try:` to a NOP before the protected range, a checkpoint of its own where the frame's
    // state is the one before the range's first instruction (our compiler emits no such NOP).
    if (const frontend::ExceptionTableEntry* entry = tryEntryAt(*root.code, root.pc))
        if (entry->start != root.pc || (root.pc > 0 && tryEntryAt(*root.code, root.pc - 1))) return;
    checkpointPc_ = root.pc;
}

void Tracer::placeBreak(const TraceFrame& root, GraphBreakInfo& info, TraceResult& result) {
    if (info.skipFrame) return;  // the thrower already knows there is no resume (a lazy map's function, say)
    // A break inside a try block, or at an instruction Dynamo resumes at no matter where, raises out of step():
    // Dynamo compiles the graph up to the last checkpoint and runs the rest of the frame eagerly; with no checkpoint
    // (an empty graph so far) the frame is skipped.
    if (info.notResumable || insideTryBlock(root)) {
        if (checkpointPc_) {
            info.atCheckpoint = true;
            result.restartAt = *checkpointPc_;
        } else {
            info.skipFrame = true;
        }
        return;
    }
    if (noResumePoint(root)) info.skipFrame = true;
    else if (insideLoop(root)) skipForLoop(root, info);
}

}  // namespace eng::capture
