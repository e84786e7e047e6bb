// The joint forward-backward graph of AOT Autograd: primals (the captured graph's inputs) and tangents (one per
// output that requires grad) in, the forward's outputs and the primals' gradients out, all functional.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aot/graph_builder.h"
#include "fx/graph_ir.h"

namespace eng::aot {

struct JointGraph {
    std::shared_ptr<fx::Graph> graph;
    std::vector<fx::Node*> primals;    // one per input of the captured graph, in order
    std::vector<fx::Node*> tangents;   // one per differentiable forward output
    std::vector<fx::Node*> forwardNodes;  // the captured graph's calls, functionalised, in order
    std::vector<fx::Arg> forwardOutputs;  // what the captured graph returns
    std::vector<int> tangentOutput;         // tangents[i] is the gradient of forwardOutputs[tangentOutput[i]]
    std::vector<int> gradInputs;            // primals that require grad: gradients[i] is for primals[gradInputs[i]]
    std::vector<fx::Arg> gradients;    // a node, or the constant None where no gradient flows
    std::vector<std::pair<int, fx::Node*>> inputMutations;  // (primal, its final value): the epilogue copies it back
    /// (later, earlier) primals that were one tensor when traced (a head tied to the token embedding): the earlier
    /// one's gradient is the sum of both, computed in the graph, and the later one gets none, as AOT Autograd's
    /// dedupe wrapper and Dynamo's one input per tensor give PyTorch's graph. Valid only while both positions hold
    /// one tensor (duplicatesHold); CWB_AOT_DEDUPE_INPUTS=0 leaves the two gradients to the autograd engine's add.
    std::vector<std::pair<int, int>> duplicateInputs;
};

/// Whether every (later, earlier) pair of `duplicates` holds one tensor at both positions of `inputs`.
bool duplicatesHold(const std::vector<std::pair<int, int>>& duplicates, const vm::ValueList& inputs);

/// Traces `graph` (run on `inputs`) forward and backward into one functional graph. The gradients follow the
/// captured ops' derivatives (derivative_rules.cpp); grad mode regions inside the graph (no_grad blocks) are
/// respected. Throws AotUnsupported with the reason for anything it cannot represent exactly.
JointGraph traceJointGraph(vm::Interpreter& vm, const fx::Graph& graph, const vm::ValueList& inputs);

}  // namespace eng::aot
