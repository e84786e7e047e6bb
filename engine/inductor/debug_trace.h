// options={"trace.enabled": True}: the output code, every kernel's source and (with trace.graph_diagram) the
// fusion diagram as Graphviz DOT, written under torch_compile_debug/ as PyTorch's debug trace does.
#pragma once

#include <filesystem>

#include "inductor/compiled_graph.h"
#include "model/trace_model.h"

namespace eng::inductor {

/// Writes one compiled graph's files into a new folder under `root`; returns that folder.
std::filesystem::path writeDebugTrace(const std::filesystem::path& root, const traces::OutputCode& code, const CompiledGraph& compiled,
                                      bool graphDiagram);

}  // namespace eng::inductor
