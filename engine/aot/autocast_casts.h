// Autocast made explicit: a captured graph's `_enter_autocast` / `_exit_autocast` regions (and the autocast state
// it was compiled under) become `to(dtype)` nodes before the ops autocast would cast the arguments of, as AOT
// Autograd's tracing under autocast writes them, so the joint graph differentiates the casts and the inductor
// lowers them.
#pragma once

#include <memory>

#include "fx/graph_ir.h"
#include "tensor/autocast.h"
#include "vm/interpreter.h"

namespace eng::aot {

struct AutocastCasts {
    std::shared_ptr<const fx::Graph> graph;  // no autocast nodes; the casts explicit
    tensor::AutocastStates after;            // the state the graph leaves (a region open at a graph break)
};

/// Whether the graph has autocast nodes.
bool hasAutocastNodes(const fx::Graph& graph);

/// The graph with autocast's casts written out, starting from the state `before`.
AutocastCasts explicitAutocastCasts(vm::Interpreter& vm, const fx::Graph& graph, const tensor::AutocastStates& before);

}  // namespace eng::aot
