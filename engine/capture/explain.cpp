// ExplainOutput: what the compiles of one call produced, counted the way torch._dynamo.explain counts (ops
// are the call_function nodes; methods such as x.sum() are not ops), printed as ExplainOutput.__str__.
#include "capture/explain.h"

#include <fmt/core.h>

#include "fx/fx_printer.h"

namespace eng::capture {

std::string opDescription(const Node& node) {
    const std::string& target = node.target;
    std::string name = fx::nameCandidateOf(target);
    const void* address = node.callee.is(vm::Kind::Native) ? node.callee.object().get() : static_cast<const void*>(&node);
    if (target.rfind("operator.", 0) == 0 || target.rfind("torch._C._nn.", 0) == 0) return fmt::format("<built-in function {}>", name);
    if (target.rfind("torch.nn.functional.", 0) == 0) return fmt::format("<function {} at {}>", name, address);
    if (target.rfind("torch.", 0) == 0) return fmt::format("<built-in method {} of type object at {}>", name, address);
    return fmt::format("<function {} at {}>", name, address);
}

std::string explainText(const ExplainRecord& record) {
    int ops = 0;
    for (const auto& graph : record.graphs) ops += graph->opCount();
    std::string out = fmt::format("Graph Count: {}\nGraph Break Count: {}\nOp Count: {}\n", record.graphs.size(), record.breaks.size(), ops);
    out += "Break Reasons:\n";
    for (size_t i = 0; i < record.breaks.size(); ++i) {
        const GraphBreakInfo& b = record.breaks[i];
        out += fmt::format("  Break Reason {}:\n    Reason: {}\n    User Stack:\n", i + 1, b.reason);
        for (const auto& frame : b.userStack) out += fmt::format("      <FrameSummary file {}, line {} in {}>\n", frame.file, frame.line, frame.function);
    }
    out += "Ops per Graph:\n";
    for (size_t i = 0; i < record.graphs.size(); ++i) {
        out += fmt::format("  Ops {}:\n", i + 1);
        for (const auto& node : record.graphs[i]->nodes())
            if (node->op == NodeOp::CallFunction) out += "    " + opDescription(*node) + "\n";
    }
    out += "Out Guards:\n";
    for (size_t i = 0; i < record.guards.size(); ++i) {
        const GuardSpec& g = record.guards[i];
        static const char* kinds[] = {"TENSOR_MATCH", "EQUALS_MATCH", "TYPE_MATCH", "ID_MATCH", "LENGTH_CHECK", "NONE_MATCH", "SHAPE_ENV"};
        const char* kind = kinds[static_cast<int>(g.kind)];
        out += fmt::format("  Guard {}:\n    Name: '{}'\n    Source: {}\n    Create Function: {}\n    Guard Types: ['{}']\n    Code List: ['{}']\n"
                           "    Object Weakref: None\n    Guarded Class Weakref: None\n",
                           i + 1, g.source->str(), g.source->kind == Source::Kind::Global ? "global" : "local", kind, kind, g.code());
    }
    // The ambient guards have no source and no code of their own: Dynamo prints them with an empty name.
    for (size_t i = 0; i < record.ambientGuards.size(); ++i) {
        const std::string& kind = record.ambientGuards[i];
        out += fmt::format("  Guard {}:\n    Name: ''\n    Source: {}\n    Create Function: {}\n    Guard Types: None\n    Code List: None\n"
                           "    Object Weakref: None\n    Guarded Class Weakref: None\n",
                           record.guards.size() + i + 1, kind == "SHAPE_ENV" ? "shape_env" : "global", kind);
    }
    return out;
}

vm::Value makeExplainOutput(vm::Interpreter& vm, const ExplainRecord& record) {
    std::shared_ptr<vm::ClassObject> cls;
    try {
        cls = vm.builtinClass("ExplainOutput");
    } catch (const std::out_of_range&) {
        cls = vm.defineClass("ExplainOutput", "object");
        cls->module = "torch._dynamo.backends.debugging";
        cls->dict["__str__"] = vm::makeNative("__str__", [](vm::Interpreter&, vm::CallArgs& a) {
            return a.positional.at(0).as<vm::InstanceObject>().attributes.at("_text");
        });
        cls->dict["__repr__"] = cls->dict["__str__"];
    }
    auto output = std::make_shared<vm::InstanceObject>(cls);
    auto& attributes = output->attributes;
    int ops = 0;
    vm::ValueList graphs, opsPerGraph, breakReasons, guards;
    for (const auto& graph : record.graphs) {
        ops += graph->opCount();
        graphs.push_back(fx::makeGraphModule(vm, graph));
        vm::ValueList names;
        for (const auto& node : graph->nodes())
            if (node->op == NodeOp::CallFunction) names.push_back(vm::makeStr(opDescription(*node)));
        opsPerGraph.push_back(vm::makeList(std::move(names)));
    }
    for (const GraphBreakInfo& b : record.breaks) {
        auto reason = std::make_shared<vm::InstanceObject>(vm.builtinClass("object"));
        reason->attributes["reason"] = vm::makeStr(b.reason);
        vm::ValueList stack;
        for (const auto& frame : b.userStack) stack.push_back(vm::makeStr(fmt::format("{}:{} in {}", frame.file, frame.line, frame.function)));
        reason->attributes["user_stack"] = vm::makeList(std::move(stack));
        breakReasons.push_back(vm::Value(reason));
    }
    for (const GuardSpec& g : record.guards) guards.push_back(vm::makeStr(g.code()));
    for (const std::string& kind : record.ambientGuards) guards.push_back(vm::makeStr(kind));
    attributes["graph_count"] = vm::Value(static_cast<int64_t>(record.graphs.size()));
    attributes["graph_break_count"] = vm::Value(static_cast<int64_t>(record.breaks.size()));
    attributes["op_count"] = vm::Value(static_cast<int64_t>(ops));
    attributes["graphs"] = vm::makeList(std::move(graphs));
    attributes["ops_per_graph"] = vm::makeList(std::move(opsPerGraph));
    attributes["break_reasons"] = vm::makeList(std::move(breakReasons));
    attributes["out_guards"] = vm::makeList(std::move(guards));
    attributes["compile_times"] = vm::makeStr("");
    attributes["_text"] = vm::makeStr(explainText(record));
    return vm::Value(output);
}

}  // namespace eng::capture
