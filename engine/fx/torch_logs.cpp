// TORCH_LOGS (see torch_logs.h): read on every question, so a run that sets it before compiling is heard; the names
// come from torch_log_channels.def.
#include "fx/torch_logs.h"

#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <utility>

namespace eng::fx {

namespace {

thread_local std::string currentCompileId;
thread_local std::ostream* currentLog = nullptr;

struct Channel {
    std::string_view name;
    std::string_view component;  // empty for a component itself
    bool offByDefault = false;
};

constexpr Channel kChannels[] = {
#define CWB_TORCH_LOG_COMPONENT(name) {#name, "", false},
#define CWB_TORCH_LOG_ARTIFACT(name, component, offByDefault) {#name, #component, offByDefault},
#include "fx/torch_log_channels.def"
#undef CWB_TORCH_LOG_ARTIFACT
#undef CWB_TORCH_LOG_COMPONENT
};

const Channel& channel(std::string_view name) {
    for (const Channel& c : kChannels)
        if (c.name == name) return c;
    throw std::logic_error("TORCH_LOGS name not in torch_log_channels.def: " + std::string(name));
}

/// Calls `visit(item, debug)` for every item of TORCH_LOGS, spaces and the leading "+" removed.
template <typename Visit>
bool anyItem(Visit visit) {
    const char* env = std::getenv("TORCH_LOGS");
    if (!env) return false;
    std::string_view list(env);
    while (!list.empty()) {
        const size_t comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        const bool debug = !item.empty() && item.front() == '+';
        if (debug) item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (visit(item, debug)) return true;
    }
    return false;
}

std::string currentPrefix() { return currentCompileId.empty() ? "" : "[" + currentCompileId + "] "; }

}  // namespace

bool torchLogDebug(std::string_view component) {
    (void)channel(component);
    return anyItem([&](std::string_view item, bool debug) { return debug && item == component; });
}

bool torchLogEnabled(std::string_view name) {
    const Channel& c = channel(name);
    if (anyItem([&](std::string_view item, bool) {
            return item == name || (item.size() == name.size() + 8 && item.starts_with(name) && item.ends_with("_verbose"));
        }))
        return true;
    return !c.component.empty() && !c.offByDefault && torchLogDebug(c.component);
}

void logComponent(std::string_view component, const std::string& text, bool debug) {
    if (debug ? !torchLogDebug(component) : !torchLogEnabled(component)) return;
    const bool endsLine = !text.empty() && text.back() == '\n';
    logLines(currentLog ? *currentLog : std::cerr, currentPrefix(), endsLine ? text.substr(0, text.size() - 1) : text);
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
    std::string prefix = currentPrefix();
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

std::string stageGraphLogTitle(traces::GraphKind kind, int64_t aotId) {
    const std::string id = aotId >= 0 ? " " + std::to_string(aotId) : "";
    switch (kind) {
        case traces::GraphKind::AotJoint: return "Joint graph" + id;
        case traces::GraphKind::AotForward:
        case traces::GraphKind::AotInference: return "Forward graph" + id;
        case traces::GraphKind::AotBackward: return "Backward graph" + id;
        case traces::GraphKind::PostGrad: return "AFTER POST GRAD";
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
