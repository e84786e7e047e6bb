// AOT Autograd's inference graph for a graph that mutates its inputs without grad (an optimizer step): the
// functionalised graph returns the user outputs, then the final value of every mutated input, which the epilogue
// copies back into the input (parameters that require grad included, as under torch.no_grad).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "fx/graph_ir.h"
#include "vm/interpreter.h"

namespace eng::aot {

struct InferenceGraph {
    std::shared_ptr<fx::Graph> graph;
    size_t userOutputs = 0;
    std::vector<std::pair<int, size_t>> mutations;  // (input, graph output) copied back after each call
};

/// Whether every op of `graph` runs with grad mode off, given the mode it is called under (an optimizer step's
/// graph switches it off first).
bool gradModeOffThroughout(const fx::Graph& graph, bool gradEnabledAtCall);

/// Throws AotUnsupported for what functionalisation cannot express (in-place ops on views, aliased outputs).
InferenceGraph functionalInferenceGraph(vm::Interpreter& vm, const fx::Graph& graph, const vm::ValueList& inputs);

}  // namespace eng::aot
