// Functionalisation of a captured graph while it is copied into the joint graph: in-place ops become their
// out-of-place forms whose results later readers see, mutations of graph inputs become an epilogue that writes the
// final values back, and grad-mode changes (no_grad blocks) become per-node facts instead of nodes.
#pragma once

#include <map>
#include <vector>

#include "aot/graph_builder.h"

namespace eng::aot {

struct FunctionalForward {
    std::map<const fx::Node*, fx::Node*> remap;  // captured node -> its (latest) value in the new graph
    std::vector<fx::Node*> nodes;                     // the copied calls, in order
    std::map<const fx::Node*, bool> gradEnabled;      // grad mode each copied call ran under
    std::vector<std::pair<int, fx::Node*>> inputMutations;  // (input index, final value)
    std::vector<fx::Arg> outputs;                     // the captured outputs, mapped
};

/// Copies `graph`'s calls after its placeholders were mapped to `inputs` (one per placeholder). Throws AotUnsupported
/// for what functionalisation cannot express exactly: in-place ops on views or on tensors that have views, in-place
/// ops on inputs that require grad, outputs that alias an input, the same tensor returned twice.
FunctionalForward functionalize(GraphBuilder& builder, const fx::Graph& graph, const std::vector<fx::Node*>& inputs,
                                const std::vector<bool>& inputRequiresGrad, bool gradEnabled);

}  // namespace eng::aot
