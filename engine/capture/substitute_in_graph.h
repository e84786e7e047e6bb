// torch.compiler.substitute_in_graph(original_fn): a polyfill the trace inlines wherever the program calls
// original_fn (or the function the decorator returns, which calls original_fn eagerly), as Dynamo's
// PolyfilledFunctionVariable does; the registry is the process's, as PyTorch's is.
#pragma once

#include <optional>

#include "vm/interpreter.h"

namespace eng::capture {

/// The polyfill registered for `callable`, if any.
std::optional<vm::Value> graphSubstitute(const vm::Value& callable);

/// torch.compiler.substitute_in_graph.
void installSubstituteInGraph(vm::Namespace& compiler);

}  // namespace eng::capture
