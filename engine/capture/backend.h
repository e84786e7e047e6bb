// The seam between capture and code generation: a Backend gets the captured graph and example inputs and
// returns a compiled callable. "eager"/"aot_eager"/"inductor" run the graph with the eager runtime today;
// a backend function from the script receives a GraphModule object and returns any callable.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "capture/graph_ir.h"
#include "vm/interpreter.h"

namespace eng::capture {

using CompiledFn = std::function<vm::ValueList(vm::Interpreter&, const vm::ValueList& inputs)>;

class Backend {
public:
    virtual ~Backend() = default;
    virtual CompiledFn compile(vm::Interpreter& vm, std::shared_ptr<const Graph> graph, const vm::ValueList& exampleInputs) = 0;
};

/// The backend for torch.compile's `backend` option (a registered name, or the user's callable).
std::unique_ptr<Backend> makeBackend(const vm::CompileOptions& options);
/// torch._dynamo.list_backends(): the registered names PyTorch lists (eager debugging ones excluded).
std::vector<std::string> listBackends();

/// A GraphModule object for a backend function: `.graph` prints, `.code` is the FX code, `.forward(*inputs)`
/// and calling it run the graph.
vm::Value makeGraphModule(vm::Interpreter& vm, std::shared_ptr<const Graph> graph);

}  // namespace eng::capture
