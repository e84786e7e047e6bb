// The seam between capture and code generation: a Backend gets the captured graph and example inputs and
// returns a compiled callable. The registry holds PyTorch's backend names: each runs the graph with the eager
// runtime until a code generator registers it ("inductor" by engine/inductor, "aot_eager" by engine/aot); a
// backend function from the script receives a GraphModule and returns a callable.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fx/graph_ir.h"
#include "model/trace_model.h"
#include "vm/interpreter.h"

namespace eng::fx {

using CompiledFn = std::function<vm::ValueList(vm::Interpreter&, const vm::ValueList& inputs)>;

class Backend {
public:
    virtual ~Backend() = default;
    virtual CompiledFn compile(vm::Interpreter& vm, std::shared_ptr<const Graph> graph, const vm::ValueList& exampleInputs) = 0;
    /// The code the last compile() generated (kernels with the graph nodes fused into each), for the trace.
    virtual std::optional<traces::OutputCode> generatedCode() const { return std::nullopt; }
    /// Every output code of the last compile(), one per compiled graph (AOT Autograd: the forward's, then the
    /// backward's, as TORCH_TRACE logs two inductor_output_code records); by default generatedCode().
    virtual std::vector<traces::OutputCode> generatedCodes() const {
        std::optional<traces::OutputCode> code = generatedCode();
        return code ? std::vector<traces::OutputCode>{*code} : std::vector<traces::OutputCode>{};
    }
    /// A graph of one of the backend's own stages, recorded after the Dynamo graph under its TORCH_TRACE name.
    struct StageGraph {
        traces::GraphKind kind = traces::GraphKind::Other;
        std::string name;  // aot_joint_graph, aot_forward_graph, aot_backward_graph, inductor_post_grad_graph
        std::shared_ptr<const Graph> graph;
        std::string header;  // comment lines shown above the graph's text (the partition's saved values)
        int64_t aotId = -1;  // AOT Autograd's number of the compile it belongs to (TORCH_LOGS: "Forward graph 0")
    };
    virtual std::vector<StageGraph> stageGraphs() const { return {}; }
    /// The stage graphs as the trace records them after the Dynamo graph: each one's row under its TORCH_TRACE name,
    /// its header above its text.
    std::vector<traces::Graph> stageGraphRows() const;
    /// Where the last compile() spent its time, phase by phase ("inductor_compile", "code_gen", ...), recorded
    /// with the compile after Dynamo's own "entire_frame_compile" and "backend_compile".
    virtual std::vector<traces::PhaseTime> phaseTimes() const { return {}; }
    /// Facts that only the compiled code's first runs learn (max-autotune's choices, a CUDA graph that could not
    /// be recorded): a backend may keep `note` and call it from what compile() returns. Each call is recorded as
    /// a warning of this compile, as Dynamo's own warnings are.
    using RunNote = std::function<void(const std::string& text)>;
    virtual void setRunNote(RunNote note) { (void)note; }
};

using BackendFactory = std::function<std::unique_ptr<Backend>(const vm::CompileOptions&)>;
/// Makes `name` (one of PyTorch's backend names, see backend.cpp) compile through `factory` from now on; code
/// generators register "inductor" this way so that capture does not depend on them.
void registerBackend(const std::string& name, BackendFactory factory);
/// Hands the VM's torch.compile this registry's names and option checks (vm/backend_catalog.h); registering a
/// backend or its options does it too.
void installBackendCatalog();

/// The backend for torch.compile's `backend` option (a registered name, or the user's callable).
std::unique_ptr<Backend> makeBackend(const vm::CompileOptions& options);
/// Whether a cache entry compiled under `compiledWith` may serve a call under `current`: PyTorch keeps the backend
/// per cache entry and skips entries of another backend (eval_frame's backend_match: the same compiler function,
/// mode and options, and dynamic setting, as `_TorchCompileWrapper.__eq__` compares them).
bool sameBackend(const vm::CompileOptions& compiledWith, const vm::CompileOptions& current);
/// torch._dynamo.list_backends(): the registry's names that PyTorch lists (the debugging ones excluded unless
/// asked for: list_backends(exclude_tags=None)), sorted.
std::vector<std::string> listBackends(bool withDebugBackends = false);

/// A GraphModule object for a backend function: `.graph` prints, `.code` is the FX code, `.forward(*inputs)`
/// and calling it run the graph.
vm::Value makeGraphModule(vm::Interpreter& vm, std::shared_ptr<const Graph> graph);

}  // namespace eng::fx
