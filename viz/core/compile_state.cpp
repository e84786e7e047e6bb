// Status of a compile id over its attempts (see compile_state.h for the precedence and why).
#include "core/compile_state.h"

#include "report/trace_index.h"

namespace viz {

const char* compileStateName(CompileState state) {
    switch (state) {
        case CompileState::Ok: return "ok";
        case CompileState::GraphBreak: return "graph break";
        case CompileState::Failed: return "failed";
        case CompileState::Recompiled: return "recompiled";
        case CompileState::Unknown: return "unknown";
        case CompileState::Empty: return "empty graph";
    }
    return "unknown";
}

CompileState compileStateOf(const traces::TraceIndex& index, const traces::Compile& head) {
    const auto& attempts = index.attempts(head);
    bool failed = false;
    bool broke = false;
    for (const traces::Compile* attempt : attempts) {
        failed = failed || attempt->status == traces::CompileStatus::Failed || !attempt->failType.empty();
        broke = broke || attempt->status == traces::CompileStatus::Restarted ||
                !index.compile(attempt->id).graphBreaks.empty();
    }
    if (failed) return CompileState::Failed;
    const traces::Compile& last = attempts.empty() ? head : *attempts.back();
    if (last.status == traces::CompileStatus::Empty) return CompileState::Empty;
    if (broke) return CompileState::GraphBreak;
    if (last.status == traces::CompileStatus::Unknown) return CompileState::Unknown;
    if (head.key.frameCompileId.value_or(0) > 0) return CompileState::Recompiled;
    return CompileState::Ok;
}

int StateCounts::total() const {
    int sum = 0;
    for (int n : byState) sum += n;
    return sum;
}

StateCounts& StateCounts::operator+=(const StateCounts& other) {
    for (size_t i = 0; i < byState.size(); ++i) byState[i] += other.byState[i];
    return *this;
}

}  // namespace viz
