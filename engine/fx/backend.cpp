// Backends: the registry of PyTorch's backend names (each the eager graph runner until a code generator registers
// it), and user backend functions, which get a GraphModule and return a callable.
#include "fx/backend.h"

#include <map>
#include <stdexcept>

#include "fx/backend_options.h"
#include "fx/fx_printer.h"
#include "fx/graph_runner.h"
#include "fx/testing_backends.h"
#include "vm/backend_catalog.h"

namespace eng::fx {

std::vector<traces::Graph> Backend::stageGraphRows() const {
    std::vector<traces::Graph> rows;
    for (const StageGraph& stage : stageGraphs()) {
        traces::Graph row = graphRow(*stage.graph);
        row.kind = stage.kind;
        row.name = stage.name;
        row.text = stage.header + row.text;
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {

class EagerBackend : public Backend {
public:
    CompiledFn compile(vm::Interpreter&, std::shared_ptr<const Graph> graph, const vm::ValueList&) override {
        return [graph](vm::Interpreter& vm, const vm::ValueList& inputs) { return runGraph(vm, *graph, inputs); };
    }
};

class CallableBackend : public Backend {
public:
    explicit CallableBackend(vm::Value function) : function_(std::move(function)) {}
    CompiledFn compile(vm::Interpreter& vm, std::shared_ptr<const Graph> graph, const vm::ValueList& exampleInputs) override {
        vm::Value module = makeGraphModule(vm, graph);
        vm::Value compiled = vm.call(function_, {module, vm::makeList(exampleInputs)});
        return [compiled](vm::Interpreter& machine, const vm::ValueList& inputs) {
            vm::Value result = machine.call(compiled, inputs);
            if (result.is(vm::Kind::Tuple)) return result.as<vm::TupleObject>().items;
            if (result.is(vm::Kind::List)) return result.as<vm::ListObject>().items;
            return vm::ValueList{result};
        };
    }

private:
    vm::Value function_;
};

std::shared_ptr<vm::ClassObject> classNamed(vm::Interpreter& vm, const std::string& name, const std::string& module) {
    try {
        return vm.builtinClass(name);
    } catch (const std::out_of_range&) {
        // first GraphModule of this interpreter: define the class below
    }
    auto cls = vm.defineClass(name, "object");
    cls->module = module;
    return cls;
}

struct RegisteredBackend {
    bool listed = true;  // shown by torch._dynamo.list_backends(); PyTorch leaves out its debugging backends
    BackendFactory factory;
};

/// PyTorch 2.11's backend names, the only ones torch.compile accepts (list_backends() lists the first four;
/// list_backends(None) adds its debugging and experimental ones, the *_TESTING_ONLY ones of testing_backends.h
/// among them). cwb has no cudagraphs/openxla/tvm/TorchScript compiler: their graphs run on the eager runtime,
/// which computes what eager computes; AOT Autograd registers the aot_eager family over these.
std::map<std::string, RegisteredBackend>& registeredBackends() {
    static std::map<std::string, RegisteredBackend> backends = [] {
        BackendFactory eager = [](const vm::CompileOptions&) { return std::make_unique<EagerBackend>(); };
        std::map<std::string, RegisteredBackend> names;
        for (const char* name : {"inductor", "cudagraphs", "openxla", "tvm"}) names[name] = {true, eager};
        for (const char* name : {"aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
                                 "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts",
                                 "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug",
                                 "eager_noexcept", "invoke_subgraph", "openxla_eval", "pre_dispatch_eager", "ts"})
            names[name] = {false, eager};
        for (auto& [name, factory] : testingOnlyBackends()) names[name] = {false, std::move(factory)};
        return names;
    }();
    return backends;
}

}  // namespace

void registerBackend(const std::string& name, BackendFactory factory) {
    registeredBackends()[name].factory = std::move(factory);
    installBackendCatalog();
}

void installBackendCatalog() {
    vm::setBackendCatalog({.exists = [](const std::string& name) { return registeredBackends().contains(name); },
                           .listed = [](bool withDebugBackends) { return listBackends(withDebugBackends); },
                           .checkOptions = checkNamedBackendOptions,
                           .configDefaults =
                               [](const std::string& backend) {
                                   vm::ConfigDefaults defaults;
                                   if (const BackendOptionTable* table = backendOptionTable(backend))
                                       for (const BackendOption& option : table->options) defaults.emplace_back(option.name, option.torchDefault);
                                   return defaults;
                               },
                           .modeOptions =
                               [](const std::string& backend) {
                                   const BackendOptionTable* table = backendOptionTable(backend);
                                   return table ? table->modes : vm::ModeOptions{};
                               }});
}

std::unique_ptr<Backend> makeBackend(const vm::CompileOptions& options) {
    if (options.backend == "<callable>") return std::make_unique<CallableBackend>(options.backendCallable);
    if (auto found = registeredBackends().find(options.backend); found != registeredBackends().end()) return found->second.factory(options);
    return std::make_unique<EagerBackend>();
}

bool sameBackend(const vm::CompileOptions& compiledWith, const vm::CompileOptions& current) {
    if (compiledWith.backend != current.backend || compiledWith.mode != current.mode || compiledWith.dynamic != current.dynamic) return false;
    if (compiledWith.backend == "<callable>" && !compiledWith.backendCallable.identical(current.backendCallable)) return false;
    return vm::valuesEqual(compiledWith.backendOptions, current.backendOptions);
}

std::vector<std::string> listBackends(bool withDebugBackends) {
    std::vector<std::string> names;
    for (const auto& [name, backend] : registeredBackends())
        if (backend.listed || withDebugBackends) names.push_back(name);
    return names;
}

vm::Value makeGraphModule(vm::Interpreter& vm, std::shared_ptr<const Graph> graph) {
    auto graphClass = classNamed(vm, "Graph", "torch.fx.graph");
    if (!graphClass->dict.contains("__str__"))
        graphClass->dict["__str__"] = vm::makeNative("__str__", [](vm::Interpreter&, vm::CallArgs& a) {
            return a.positional.at(0).as<vm::InstanceObject>().attributes.at("_text");
        });
    auto moduleClass = classNamed(vm, "GraphModule", "torch.fx.graph_module");
    if (!moduleClass->dict.contains("__call__"))
        moduleClass->dict["__call__"] = vm::makeNative("__call__", [](vm::Interpreter& machine, vm::CallArgs& a) {
            vm::Value self = a.positional.at(0);
            a.positional.erase(a.positional.begin());
            return machine.callArgs(self.as<vm::InstanceObject>().attributes.at("forward"), a);
        });
    auto graphObject = std::make_shared<vm::InstanceObject>(graphClass);
    graphObject->attributes["_text"] = vm::makeStr(graphIrText(*graph));
    auto module = std::make_shared<vm::InstanceObject>(moduleClass);
    module->attributes["graph"] = vm::Value(graphObject);
    module->attributes["code"] = vm::makeStr(graphCode(*graph));
    module->attributes["forward"] = vm::makeNative("forward", [graph](vm::Interpreter& machine, vm::CallArgs& a) {
        return vm::makeTuple(runGraph(machine, *graph, a.positional));
    });
    return vm::Value(module);
}

}  // namespace eng::fx
