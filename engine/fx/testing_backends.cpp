// The *_TESTING_ONLY backends: each checks or rewrites the graph as PyTorch's does (only call_function nodes whose
// target is torch.relu count, F.relu's too, which Dynamo inlines; not x.relu()) and runs the rest eagerly.
#include "fx/testing_backends.h"

#include <stdexcept>

#include "fx/graph_runner.h"

namespace eng::fx {

namespace {

bool callsTorchRelu(const Node& node) { return node.op == NodeOp::CallFunction && node.target == "torch.relu"; }

/// Raises `name`, a class of torch._dynamo.backends.debugging deriving from Exception, without arguments (the
/// debugging backends' `raise ReluCompileError`).
[[noreturn]] void raiseDebuggingError(vm::Interpreter& vm, const std::string& name) {
    try {
        vm.builtinClass(name);
    } catch (const std::out_of_range&) {
        vm.defineClass(name, "Exception")->module = "torch._dynamo.backends.debugging";
    }
    vm::raise(name, "");
}

/// torch.relu's input as relu_accuracy_error's rewrite reads it (node.args[0]): a relu called with input= only
/// fails its compile.
void requirePositionalInput(const Node& node) {
    if (node.args.empty()) vm::raise("IndexError", "tuple index out of range");
}

/// A backend whose graph runs with the eager runtime, after `check` has seen it at compile time and with
/// `substitute` in place of the call nodes it takes over.
class CheckingBackend : public Backend {
public:
    using Check = std::function<void(vm::Interpreter&, const Graph&, const vm::ValueList& exampleInputs)>;
    CheckingBackend(Check check, NodeSubstitute substitute) : check_(std::move(check)), substitute_(std::move(substitute)) {}
    CompiledFn compile(vm::Interpreter& vm, std::shared_ptr<const Graph> graph, const vm::ValueList& exampleInputs) override {
        if (check_) check_(vm, *graph, exampleInputs);
        return [graph, substitute = substitute_](vm::Interpreter& machine, const vm::ValueList& inputs) {
            return runGraph(machine, *graph, inputs, substitute);
        };
    }

private:
    Check check_;
    NodeSubstitute substitute_;
};

BackendFactory checking(CheckingBackend::Check check, NodeSubstitute substitute = {}) {
    return [check, substitute](const vm::CompileOptions&) { return std::make_unique<CheckingBackend>(check, substitute); };
}

void forEachReluCall(const Graph& graph, const std::function<void(const Node&)>& visit) {
    for (const auto& node : graph.nodes())
        if (callsTorchRelu(*node)) visit(*node);
}

/// Tensors only: PyTorch reads `t.is_leaf` of every example input, and a symbolic size has no such attribute.
bool exampleIsLeaf(vm::Interpreter& vm, const vm::Value& example) {
    if (example.is(vm::Kind::Int)) vm::raise("AttributeError", "'SymInt' object has no attribute 'is_leaf'");
    if (example.is(vm::Kind::Float)) vm::raise("AttributeError", "'SymFloat' object has no attribute 'is_leaf'");
    return vm.truthy(vm.getAttr(example, "is_leaf"));
}

}  // namespace

std::vector<std::pair<std::string, BackendFactory>> testingOnlyBackends() {
    return {
        {"relu_compile_error_TESTING_ONLY",
         checking([](vm::Interpreter& vm, const Graph& graph, const vm::ValueList&) {
             forEachReluCall(graph, [&](const Node&) { raiseDebuggingError(vm, "ReluCompileError"); });
         })},
        {"relu_runtime_error_TESTING_ONLY",
         checking({},
                  [](vm::Interpreter&, const Node& node, const std::function<vm::Value(const Node&)>&) -> std::optional<vm::Value> {
                      if (!callsTorchRelu(node)) return std::nullopt;
                      vm::raise("AssertionError", "ReluRuntimeError");  // torch._assert(False, "ReluRuntimeError")
                  })},
        {"relu_accuracy_error_TESTING_ONLY",
         checking([](vm::Interpreter&, const Graph& graph, const vm::ValueList&) { forEachReluCall(graph, requirePositionalInput); },
                  [](vm::Interpreter&, const Node& node, const std::function<vm::Value(const Node&)>& nodeValue) -> std::optional<vm::Value> {
                      if (!callsTorchRelu(node)) return std::nullopt;
                      // torch.add(node.args[0], 1): the relu's input, plus one.
                      const Arg& input = node.args.at(0);
                      vm::Value x = input.kind == Arg::Kind::NodeRef ? nodeValue(*input.node) : input.constant;
                      return vm::callOp("torch.add", {x, vm::Value(int64_t{1})});
                  })},
        {"non_leaf_compile_error_TESTING_ONLY",
         checking([](vm::Interpreter& vm, const Graph& graph, const vm::ValueList& exampleInputs) {
             // A graph without call_function nodes compiles as it is (pytorch/pytorch#102898).
             bool callsAFunction = false;
             for (const auto& node : graph.nodes()) callsAFunction = callsAFunction || node->op == NodeOp::CallFunction;
             if (!callsAFunction) return;
             for (const vm::Value& example : exampleInputs)
                 if (!exampleIsLeaf(vm, example)) raiseDebuggingError(vm, "TestingOnlyCompileError");
         })},
    };
}

}  // namespace eng::fx
