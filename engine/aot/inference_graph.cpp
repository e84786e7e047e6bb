// The functional inference graph of a graph that runs without grad and mutates its inputs (inference_graph.h).
#include "aot/inference_graph.h"

#include <fmt/format.h>

#include "aot/functionalize.h"
#include "aot/graph_builder.h"

namespace eng::aot {

bool gradModeOffThroughout(const fx::Graph& graph, bool gradEnabledAtCall) {
    bool enabled = gradEnabledAtCall;
    for (const auto& node : graph.nodes()) {
        if (node->op == fx::NodeOp::Placeholder || node->op == fx::NodeOp::Output) continue;
        if (node->target == "torch._C._set_grad_enabled" && !node->args.empty() && node->args[0].kind == fx::Arg::Kind::Constant) {
            enabled = node->args[0].constant.asBool();
            continue;
        }
        if (enabled) return false;
    }
    return true;
}

InferenceGraph functionalInferenceGraph(vm::Interpreter& vm, const fx::Graph& graph, const vm::ValueList& inputs) {
    InferenceGraph out;
    out.graph = std::make_shared<fx::Graph>();
    out.graph->symbols = graph.symbols;
    GraphBuilder b(vm, *out.graph);
    const std::vector<fx::Node*> placeholders = graph.placeholders();
    if (placeholders.size() != inputs.size()) throw AotUnsupported("the graph's inputs do not match its placeholders");
    std::vector<fx::Node*> args;
    for (size_t i = 0; i < placeholders.size(); ++i) args.push_back(b.placeholder(fmt::format("arg{}_1", i), *placeholders[i], inputs[i]));
    // Nothing is differentiated: an input that requires grad may be written, as under no_grad in eager.
    FunctionalForward functional = functionalize(b, graph, args, std::vector<bool>(args.size(), false), false);
    std::vector<fx::Arg> outputs = functional.outputs;
    out.userOutputs = outputs.size();
    for (const auto& [input, value] : functional.inputMutations) {
        out.mutations.emplace_back(input, outputs.size());
        outputs.push_back(GraphBuilder::ref(value));
    }
    b.output(std::move(outputs));
    return out;
}

}  // namespace eng::aot
