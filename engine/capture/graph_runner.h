// Runs a captured graph with the eager runtime: every node is the VM operation it was traced from, applied to
// the inputs of this call (the "eager"/"aot_eager" backends and today's default).
#pragma once

#include "capture/graph_ir.h"
#include "vm/interpreter.h"

namespace eng::capture {

/// -x, +x, ~x of a tensor or number, as the interpreter computes them (opcode is the UNARY_* opcode).
vm::Value applyUnary(uint32_t opcode, const vm::Value& operand);

/// Runs one call node on argument values (self first for call_method), as runGraph does: the operator, method,
/// getitem or callable it was traced from.
vm::Value callNode(vm::Interpreter& vm, const Node& node, vm::ValueList args, vm::KwArgs kwargs);

/// Executes `graph` on `inputs` (one per placeholder); returns the output node's values.
vm::ValueList runGraph(vm::Interpreter& vm, const Graph& graph, const vm::ValueList& inputs);

}  // namespace eng::capture
