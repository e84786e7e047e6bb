// TORCH_LOGS (see torch_logs.h): read on every question, so a run that sets it before compiling is heard.
#include "fx/torch_logs.h"

#include <cstdlib>
#include <iostream>
#include <utility>

namespace eng::fx {

namespace {

thread_local std::string currentCompileId;
thread_local std::ostream* currentLog = nullptr;

}  // namespace

bool torchLogEnabled(std::string_view artifact) {
    const char* env = std::getenv("TORCH_LOGS");
    if (!env) return false;
    std::string_view list(env);
    while (!list.empty()) {
        const size_t comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        while (!item.empty() && (item.front() == ' ' || item.front() == '+')) item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item == artifact) return true;
        if (item.size() == artifact.size() + 8 && item.starts_with(artifact) && item.ends_with("_verbose")) return true;
    }
    return false;
}

void logLines(std::ostream& out, const std::string& prefix, const std::string& text) {
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out << prefix << std::string_view(text).substr(start, end - start) << "\n";
        start = end + 1;
    }
}

void logArtifact(std::string_view artifact, const std::string& text) {
    if (!torchLogEnabled(artifact)) return;
    std::string prefix = currentCompileId.empty() ? "" : "[" + currentCompileId + "] ";
    const bool endsLine = !text.empty() && text.back() == '\n';  // the last line's end is not a line of its own
    logLines(currentLog ? *currentLog : std::cerr, prefix + "[__" + std::string(artifact) + "] ",
             endsLine ? text.substr(0, text.size() - 1) : text);
}

std::string_view artifactOfStageGraph(traces::GraphKind kind) {
    switch (kind) {
        case traces::GraphKind::AotJoint: return "aot_joint_graph";
        case traces::GraphKind::AotForward:
        case traces::GraphKind::AotBackward:
        case traces::GraphKind::AotInference: return "aot_graphs";
        case traces::GraphKind::PostGrad: return "post_grad_graphs";
        default: return "";
    }
}

CompileIdScope::CompileIdScope(std::string compileId, std::ostream& out)
    : previousId_(std::exchange(currentCompileId, std::move(compileId))), previousOut_(std::exchange(currentLog, &out)) {}

CompileIdScope::~CompileIdScope() {
    currentCompileId = std::move(previousId_);
    currentLog = previousOut_;
}

}  // namespace eng::fx
