// TORCH_LOGS as PyTorch's logging reads it: which components (dynamo, dynamic: INFO, or DEBUG with a leading "+")
// and artifacts (graph_breaks, recompiles, guards, graph_code, bytecode, the IR of each compile stage, the
// scheduler's fusion decisions, ...) a run prints to stderr. The names are one table, torch_log_channels.def; they
// are read through one parser and printed with one prefix rule.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "model/trace_model.h"

namespace eng::fx {

/// Whether TORCH_LOGS (comma-separated, a leading "+" asks for DEBUG) shows `name` (a name of
/// torch_log_channels.def; another is a programming error, std::logic_error): a component when named, with or
/// without "+"; an artifact when named, or `name`_verbose is (recompiles_verbose turns recompiles on), or its
/// component is at DEBUG and it is not off by default. Read on every call.
bool torchLogEnabled(std::string_view name);
/// Whether TORCH_LOGS asks for component `name` at DEBUG ("+dynamo").
bool torchLogDebug(std::string_view component);

/// Prints every line of `text` after `prefix` ("[0/1] [__recompiles] "), as TORCH_LOGS does.
void logLines(std::ostream& out, const std::string& prefix, const std::string& text);

/// Prints `text` under `artifact` when TORCH_LOGS names it, each line after "[compile id] [__artifact] ", where the
/// compile in progress on this thread logs (see CompileIdScope; stderr outside a compile).
void logArtifact(std::string_view artifact, const std::string& text);

/// Prints `text` from component `component` (its INFO messages, or DEBUG ones with `debug`) when TORCH_LOGS asks for
/// it, each line after "[compile id] " (no artifact tag), where the compile in progress on this thread logs.
void logComponent(std::string_view component, const std::string& text, bool debug = false);

/// The artifact a backend's stage graph is logged under: aot_joint_graph, aot_graphs (forward, backward, inference),
/// post_grad_graphs; "" for a kind without one.
std::string_view artifactOfStageGraph(traces::GraphKind kind);
/// The title AOT Autograd and Inductor log a stage graph under ("Joint graph 0", "Forward graph 0" for a forward or
/// an inference graph, "Backward graph 0", "AFTER POST GRAD"), `aotId` being the compile's AOT id.
std::string stageGraphLogTitle(traces::GraphKind kind, int64_t aotId);

/// Names the compile in progress on this thread ("0/1") and where its logs go while it lives, so that the backend's
/// stages log under the compile id Dynamo gave it, as PyTorch's CompileContext does.
class CompileIdScope {
public:
    CompileIdScope(std::string compileId, std::ostream& out);
    ~CompileIdScope();
    CompileIdScope(const CompileIdScope&) = delete;
    CompileIdScope& operator=(const CompileIdScope&) = delete;

private:
    std::string previousId_;
    std::ostream* previousOut_;
};

}  // namespace eng::fx
