// torch._dynamo.explain's result: counts, break reasons, ops per graph, guards and graphs of the compiles one
// call produced, as an ExplainOutput object and as the text ExplainOutput.__str__ prints.
#pragma once

#include <string>

#include "capture/capture_engine.h"

namespace eng::capture {

/// How explain() names a graph op: "<built-in method sin of type object at 0x...>", "<built-in function mul>".
std::string opDescription(const Node& node);
/// ExplainOutput.__str__.
std::string explainText(const ExplainRecord& record);
/// The ExplainOutput object: graph_count, graph_break_count, op_count, break_reasons, ops_per_graph, out_guards,
/// graphs (GraphModules), compile_times; str() gives explainText.
vm::Value makeExplainOutput(vm::Interpreter& vm, const ExplainRecord& record);

}  // namespace eng::capture
