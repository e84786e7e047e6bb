// Runs a captured graph with the eager runtime: every node is the VM operation it was traced from, applied to
// the inputs of this call (the "eager"/"aot_eager" backends and today's default).
#pragma once

#include <functional>
#include <optional>

#include "fx/graph_ir.h"
#include "ops/operators.h"
#include "vm/interpreter.h"

namespace eng::fx {

/// -x, +x, ~x of a tensor or number, as the interpreter computes them.
vm::Value applyUnary(ops::UnaryOperator op, const vm::Value& operand);

/// Python's operator that a Binary/Compare/Unary/GetItem node applies, named by its FX target as torch.fx
/// names it (operator.add, operator.iadd, operator.lt, operator.neg, operator.getitem), on argument values.
vm::Value applyOperator(vm::Interpreter& vm, CallKind kind, std::string_view target, const vm::ValueList& args);

/// Runs one call node on argument values (self first for call_method), as runGraph does: the operator, method,
/// getitem or callable it was traced from.
vm::Value callNode(vm::Interpreter& vm, const Node& node, vm::ValueList args, vm::KwArgs kwargs);
/// Runs one call node on the values `nodeValue` gives the nodes it reads (its constants, lists, tuples and slices
/// rebuilt around them): runGraph, the extern kernels and freezing's folds run nodes through it.
vm::Value callNodeOn(vm::Interpreter& vm, const Node& node, const std::function<vm::Value(const Node&)>& nodeValue);
/// A call_method node's target on `self`: a method is called; a property (`mT`, `H`) is read.
vm::Value callMethodNode(vm::Interpreter& vm, const vm::Value& self, const std::string& target, vm::ValueList args, vm::KwArgs kwargs);

/// What runs in place of a call node as traced (a debugging backend's rewrite of torch.relu), given the values
/// of the nodes it reads; nullopt runs the node as traced.
using NodeSubstitute = std::function<std::optional<vm::Value>(vm::Interpreter& vm, const Node& node,
                                                              const std::function<vm::Value(const Node&)>& nodeValue)>;
/// Executes `graph` on `inputs` (one per placeholder); returns the output node's values.
vm::ValueList runGraph(vm::Interpreter& vm, const Graph& graph, const vm::ValueList& inputs, const NodeSubstitute& substitute = {});

/// A callable that runs a higher-order op's body on its arguments and returns the outputs as a tuple (what a
/// subgraph's get_attr node holds, so torch.ops.higher_order.cond calls the branch its predicate picks).
vm::Value subgraphCallable(const std::string& name, std::shared_ptr<const Graph> graph);

}  // namespace eng::fx
