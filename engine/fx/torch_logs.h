// TORCH_LOGS as PyTorch's logging reads it: which log artifacts a run prints to stderr. Dynamo's own (graph_breaks,
// recompiles, guards, graph_code) and the IR of each compile stage after it (aot_graphs, post_grad_graphs,
// ir_pre_fusion, ir_post_fusion, output_code) are read through one parser and printed with one prefix rule.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "model/trace_model.h"

namespace eng::fx {

/// Whether TORCH_LOGS (comma-separated, a leading "+" asks for verbose output) names `artifact`, or
/// `artifact`_verbose (recompiles_verbose turns recompiles on). Read on every call.
bool torchLogEnabled(std::string_view artifact);

/// Prints every line of `text` after `prefix` ("[0/1] [__recompiles] "), as TORCH_LOGS does.
void logLines(std::ostream& out, const std::string& prefix, const std::string& text);

/// Prints `text` under `artifact` when TORCH_LOGS names it, each line after "[compile id] [__artifact] ", where the
/// compile in progress on this thread logs (see CompileIdScope; stderr outside a compile).
void logArtifact(std::string_view artifact, const std::string& text);

/// The artifact a backend's stage graph is logged under: aot_joint_graph, aot_graphs (forward, backward, inference),
/// post_grad_graphs; "" for a kind without one.
std::string_view artifactOfStageGraph(traces::GraphKind kind);

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
