// Compiled autograd: plan a backward pass (the autograd engine's own walk, graph_walk.h, over which gradients
// arrive), key it by its structure, and on a miss capture it as a graph (root gradients and saved values in,
// leaves' gradients out), record it as `compiled_autograd_graph` and compile it like a Dynamo frame; then run the
// code and add the gradients into the leaves as AccumulateGrad does. A pass through nodes that are not AOT-compiled
// regions (an eager op's formula, whose constants no key can see) runs on the eager engine, with the reason logged.
#include "aot/compiled_autograd.h"

#include <chrono>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "aot/aot_backend.h"
#include "aot/graph_builder.h"
#include "capture/compile_events.h"
#include "fx/compile_host.h"
#include "fx/fx_printer.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/graph_walk.h"
#include "tensor/conversion.h"

namespace eng::aot {

namespace ag = tensor::autograd;

namespace {

/// A gradient of the planning walk: only whether one arrives.
struct Arrived {
    bool present = false;
};
[[maybe_unused]] bool gradientPresent(const Arrived& a) { return a.present; }

/// Whether a compiled region's backward sends a gradient along its node's next edge `i`: the edge leads somewhere
/// and the backward graph returns a value for it (not None).
bool gradientFlows(const ag::Node& node, const std::vector<fx::Arg>& gradients, size_t i) {
    return node.nextEdges().at(i).valid() && i < gradients.size() && gradients[i].kind == fx::Arg::Kind::NodeRef;
}

std::string geometryKey(const ag::TensorGeometry& g) {
    return fmt::format("{}:{}:{}", fmt::join(g.sizes, "x"), tensor::dtypeName(g.dtype), g.device.str());
}

/// One node the pass runs: an AOT-compiled region's backward (inlined) or a leaf's AccumulateGrad (`backward` null).
struct PassStep {
    ag::Node* node = nullptr;
    std::shared_ptr<const CompiledBackwardGraph> backward;
};

struct PassPlan {
    std::vector<PassStep> steps;
    std::string key;          // the structure the captured graph depends on
    std::string unsupported;  // why the pass runs eagerly (empty: it can be captured)
};

/// The engine's walk over which gradients arrive, without computing any: the nodes that run, in order, and the key.
PassPlan planPass(const ag::RootGradients& start) {
    PassPlan plan;
    std::unordered_map<const ag::Node*, size_t> ids;
    auto idOf = [&](const ag::Node* n) { return ids.emplace(n, ids.size()).first->second; };
    for (size_t i = 0; i < start.edges.size(); ++i)
        plan.key += fmt::format("root {} -> {}.{}\n", geometryKey(ag::TensorGeometry::of(start.grads[i])), idOf(start.edges[i].node.get()),
                                start.edges[i].inputNr);
    auto run = [&](ag::Node& node, std::vector<Arrived>& grads) -> std::vector<Arrived> {
        std::string arrived;
        for (const Arrived& g : grads) arrived += g.present ? '1' : '0';
        if (!plan.unsupported.empty()) return {};
        plan.key += fmt::format("{} #{} [{}]", node.name(), idOf(&node), arrived);
        if (node.hasRetainedOutputs()) {
            plan.unsupported = fmt::format("an output of {} retains its gradient (retain_grad)", node.name());
            return {};
        }
        if (dynamic_cast<ag::AccumulateGrad*>(&node)) {
            plan.key += " " + geometryKey(node.outputGeometry().at(0)) + "\n";
            plan.steps.push_back({&node, nullptr});
            return {};
        }
        auto* formula = dynamic_cast<ag::FormulaNode*>(&node);
        auto backward = formula ? std::dynamic_pointer_cast<const CompiledBackwardGraph>(formula->description()) : nullptr;
        if (!backward) {
            plan.unsupported = fmt::format("{} is the backward of an eager op (only compiled regions and AccumulateGrad are captured)", node.name());
            return {};
        }
        if (backward->dynamicShapes) {
            // The captured graph would need the region's SymInts as its own inputs (PyTorch's `sizes`).
            plan.unsupported = "the backward of a compiled region with dynamic shapes";
            return {};
        }
        // The graph is the compiled region's own: the cache keeps it alive, so its address names it.
        plan.key += fmt::format(" graph {}", static_cast<const void*>(backward.get()));
        for (const tensor::Tensor& s : formula->savedTensors()) plan.key += " " + (s.defined() ? geometryKey(ag::TensorGeometry::of(s)) : "none");
        const std::vector<fx::Arg>& gradients = backward->graph->output()->args.at(0).items;
        std::vector<Arrived> out;
        for (size_t i = 0; i < node.nextEdges().size(); ++i) {
            const ag::Edge& e = node.nextEdges()[i];
            const bool flows = gradientFlows(node, gradients, i);
            plan.key += flows ? fmt::format(" ->{}.{}", idOf(e.node.get()), e.inputNr) : std::string(" ->-");
            out.push_back({flows});
        }
        plan.key += "\n";
        plan.steps.push_back({&node, std::move(backward)});
        return out;
    };
    ag::walkBackward(start.edges, std::vector<Arrived>(start.grads.size(), Arrived{true}), run, [](const Arrived& a, const Arrived&) { return a; });
    return plan;
}

/// Where a graph input comes from at run time: root gradient `step` (saved < 0) or saved tensor `saved` of a step.
struct InputSource {
    size_t step = 0;
    int saved = -1;
};

struct CapturedPass {
    std::shared_ptr<fx::Graph> graph;
    std::vector<InputSource> inputs;
    std::vector<size_t> accumulated;  // the AccumulateGrad steps whose gradients the graph returns, in order
};

fx::Node* zerosOf(GraphBuilder& b, const ag::TensorGeometry& g) {
    return b.torchFunction("zeros", {GraphBuilder::ints(g.sizes)},
                           {{"dtype", GraphBuilder::constant(vm::Value(std::make_shared<vm::DTypeObject>(g.dtype)))},
                            {"device", GraphBuilder::constant(vm::makeStr(g.device.str()))}});
}

/// The backward graph of an AOT-compiled region, its saved values new inputs, its tangents the arrived gradients
/// (zeros where none arrived, as the engine gives a formula), its nodes copied as `aot<N>_<name>`.
std::vector<fx::Node*> inlineBackward(GraphBuilder& b, CapturedPass& pass, const PassStep& step, size_t stepIndex, int aotIndex,
                                           const std::vector<fx::Node*>& grads) {
    const fx::Graph& backward = *step.backward->graph;
    const auto& formula = static_cast<const ag::FormulaNode&>(*step.node);
    const std::vector<tensor::Tensor>& saved = formula.savedTensors();
    const std::vector<fx::Node*> placeholders = backward.placeholders();
    const size_t savedCount = step.backward->savedCount;
    if (saved.size() != savedCount || placeholders.size() != savedCount + grads.size())
        throw AotUnsupported(fmt::format("{} saved {} values for a backward graph of {} inputs", step.node->name(), saved.size(), placeholders.size()));
    const std::string prefix = fmt::format("aot{}_", aotIndex);
    std::map<const fx::Node*, fx::Node*> remap;
    for (size_t i = 0; i < savedCount; ++i) {
        remap[placeholders[i]] = b.graph().addPlaceholder(prefix + placeholders[i]->name, vm::makeTensor(tensor::contiguous(saved[i])),
                                                          placeholders[i]->typeName);
        pass.inputs.push_back({stepIndex, static_cast<int>(i)});
    }
    for (size_t j = 0; j < grads.size(); ++j)
        remap[placeholders[savedCount + j]] = grads[j] ? grads[j] : zerosOf(b, step.node->outputGeometry()[j]);
    for (const auto& node : backward.nodes())
        if (node->op != fx::NodeOp::Placeholder && node->op != fx::NodeOp::Output) remap[node.get()] = b.copy(*node, remap, prefix);
    std::vector<fx::Node*> out;
    const std::vector<fx::Arg>& gradients = backward.output()->args.at(0).items;
    for (size_t i = 0; i < step.node->nextEdges().size(); ++i) {
        if (!gradientFlows(*step.node, gradients, i)) {
            out.push_back(nullptr);
            continue;
        }
        fx::Node* gradient = remap.at(gradients[i].node);
        // The engine would cast or reduce a gradient that does not fit its tensor; the backward graphs make them fit.
        const tensor::Tensor* example = exampleTensor(*gradient);
        const ag::TensorGeometry& target = step.node->inputGeometry()[i];
        if (!example || example->sizes() != target.sizes || example->dtype() != target.dtype)
            throw AotUnsupported(fmt::format("the gradient {} of {} does not have its input's shape and dtype", gradient->name, step.node->name()));
        out.push_back(gradient);
    }
    return out;
}

CapturedPass capturePass(vm::Interpreter& vm, const ag::RootGradients& start, const PassPlan& plan) {
    CapturedPass pass;
    pass.graph = std::make_shared<fx::Graph>();
    GraphBuilder b(vm, *pass.graph);
    std::vector<fx::Node*> roots;
    for (size_t i = 0; i < start.grads.size(); ++i) {
        roots.push_back(pass.graph->addPlaceholder("grad_root", vm::makeTensor(start.grads[i]), "torch.Tensor"));
        pass.inputs.push_back({i, -1});
    }
    std::vector<fx::Arg> outputs;
    size_t next = 0;
    int aotIndex = 0;
    auto run = [&](ag::Node& node, std::vector<fx::Node*>& grads) -> std::vector<fx::Node*> {
        const size_t stepIndex = next++;
        const PassStep& step = plan.steps.at(stepIndex);
        if (step.node != &node) throw std::logic_error("compiled autograd: the capture walked another order than the plan");
        if (!step.backward) {
            outputs.push_back(GraphBuilder::ref(grads.at(0)));
            pass.accumulated.push_back(stepIndex);
            return {};
        }
        return inlineBackward(b, pass, step, stepIndex, aotIndex++, grads);
    };
    ag::walkBackward(start.edges, roots, run,
                     [&](fx::Node* x, fx::Node* y) { return b.torchFunction("add", {GraphBuilder::ref(x), GraphBuilder::ref(y)}); });
    b.output(std::move(outputs));
    return pass;
}

/// A compiled pass: the graph, its code, and the compiled regions whose graphs it inlined (kept alive, so that
/// their addresses in the key stay theirs).
struct CachedPass {
    std::string key;
    vm::CompileOptions options;
    CapturedPass pass;
    fx::CompiledFn compiled;
    std::vector<std::shared_ptr<const CompiledBackwardGraph>> inlined;
};

/// The compiled passes of one capture engine (PyTorch's compiled autograd cache) and its compiled autograd ids.
struct PassCache {
    std::vector<std::shared_ptr<CachedPass>> entries;
    int nextAutogradId = 0;
    std::set<std::string> loggedReasons;
};

PassCache& cacheOf(fx::CompileHost& host) {
    std::shared_ptr<void>& state = host.compiledAutogradState();
    if (!state) state = std::make_shared<PassCache>();
    return *static_cast<PassCache*>(state.get());
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double epochSeconds() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

/// Captures and compiles a pass: `!<id>` records the compiled autograd graph, `!<id>/<frame>/0` the Dynamo compile
/// of it with the backend's stages and code. Null when capturing raised (the reason in `reason`).
std::shared_ptr<CachedPass> compilePass(fx::CompileHost& host, const vm::CompileOptions& options, const ag::RootGradients& start,
                                        const PassPlan& plan, std::string& reason) {
    vm::Interpreter& vm = host.interpreter();
    const auto started = std::chrono::steady_clock::now();
    auto entry = std::make_shared<CachedPass>();
    entry->key = plan.key;
    entry->options = options;
    try {
        entry->pass = capturePass(vm, start, plan);
    } catch (const std::exception& e) {
        reason = e.what();
        return nullptr;
    }
    for (const PassStep& step : plan.steps)
        if (step.backward) entry->inlined.push_back(step.backward);
    PassCache& cache = cacheOf(host);
    const int autogradId = cache.nextAutogradId++;
    host.countCounter("compiled_autograd", "captures", 1);
    capture::CompileEventSink* sink = host.eventSink();
    const std::shared_ptr<const fx::Graph> graph = entry->pass.graph;
    if (sink) {
        traces::CompileKey captureKey;
        captureKey.autogradId = autogradId;
        traces::Graph row = fx::graphRow(*graph);
        row.kind = traces::GraphKind::CompiledAutograd;
        row.name = "compiled_autograd_graph";
        sink->graphCaptured(captureKey, row);
    }

    traces::Compile compile;
    compile.key.autogradId = autogradId;
    compile.key.frameId = host.takeFrameId();
    compile.key.frameCompileId = 0;
    compile.started = true;
    compile.function = "forward";
    compile.file = fmt::format("CompiledAutograd{}", autogradId);  // the FX module compiled autograd hands to Dynamo
    compile.firstLine = 0;
    compile.startTime = epochSeconds();
    compile.cacheSize = 0;
    if (sink) {
        traces::Stack userStack;
        for (const vm::TracebackEntry& e : vm.callStack())
            userStack.push_back(traces::Frame{e.filename, e.line, e.function, vm.sourceLine(e.filename, e.line)});
        sink->compileStarted(compile, userStack);
    }
    std::unique_ptr<fx::Backend> backend = fx::makeBackend(options);
    vm::ValueList examples;
    for (const fx::Node* input : graph->placeholders()) examples.push_back(input->example);
    const auto backendStart = std::chrono::steady_clock::now();
    try {
        if (sink) backend->setRunNote([sink, key = compile.key](const std::string& text) { sink->warning(key, text); });
        ag::GradModeGuard noGrad(false);
        entry->compiled = backend->compile(vm, graph, examples);
    } catch (const std::exception& e) {
        compile.status = traces::CompileStatus::Failed;
        compile.failType = "BackendCompilerFailed";
        compile.failReason = e.what();
        host.countCounter("frames", "total", 1);
        if (sink) sink->compileFinished(compile);
        reason = fmt::format("the backend raised: {}", e.what());
        return nullptr;
    }
    const double backendSeconds = secondsSince(backendStart);
    host.countCounter("compiled_autograd", "compiles", 1);
    host.countCompiledGraph(*graph);
    host.countCounter("frames", "total", 1);
    host.countCounter("frames", "ok", 1);
    if (sink) {
        sink->graphCaptured(compile.key, fx::graphRow(*graph));
        for (const traces::Graph& row : backend->stageGraphRows()) sink->graphCaptured(compile.key, row);
        for (const traces::OutputCode& code : backend->generatedCodes()) sink->outputCode(compile.key, code);
    }
    compile.status = traces::CompileStatus::Ok;
    compile.guardCount = 0;
    compile.opCount = fx::callNodeCount(*graph);
    compile.nodeCount = static_cast<int64_t>(graph->nodes().size());
    compile.inputCount = static_cast<int64_t>(graph->placeholders().size());
    compile.phases.push_back({"entire_frame_compile", secondsSince(started)});
    compile.phases.push_back({"backend_compile", backendSeconds});
    for (traces::PhaseTime& phase : backend->phaseTimes()) compile.phases.push_back(std::move(phase));
    if (sink) sink->compileFinished(compile);
    return entry;
}

/// Runs a compiled pass on this call's root gradients and saved values, then adds the gradients into the leaves and
/// frees what the eager engine would free.
void runPass(vm::Interpreter& vm, const CachedPass& entry, const PassPlan& plan, const ag::RootGradients& start, bool retainGraph) {
    vm::ValueList inputs;
    // A step's saved values are consecutive inputs: each node's versions are checked once, not once per value.
    const std::vector<tensor::Tensor>* saved = nullptr;
    size_t savedStep = 0;
    for (const InputSource& source : entry.pass.inputs) {
        if (source.saved < 0) {
            inputs.push_back(vm::makeTensor(start.grads.at(source.step)));
            continue;
        }
        if (!saved || savedStep != source.step) {
            saved = &static_cast<const ag::FormulaNode&>(*plan.steps.at(source.step).node).savedTensors();
            savedStep = source.step;
        }
        inputs.push_back(vm::makeTensor(tensor::contiguous(saved->at(static_cast<size_t>(source.saved)))));
    }
    vm::ValueList grads;
    {
        ag::GradModeGuard noGrad(false);
        grads = entry.compiled(vm, inputs);
        for (size_t k = 0; k < entry.pass.accumulated.size(); ++k) {
            // The gradient moves out of an output object nothing else holds (not an input, a value the backend kept,
            // nor an output aliased at another position), so AccumulateGrad's vector holds the only reference and may
            // take it as the leaf's first .grad without a copy, as the eager engine's does; otherwise it is copied.
            const vm::Value& output = grads.at(k);
            tensor::Tensor& gradient = output.as<vm::TensorObject>().value;
            std::vector<tensor::Tensor> incoming;
            incoming.push_back(output.object().use_count() == 1 ? std::move(gradient) : gradient);
            plan.steps.at(entry.pass.accumulated[k]).node->apply(incoming);
        }
    }
    if (!retainGraph)
        for (const PassStep& step : plan.steps) step.node->releaseSavedTensors();
}

bool runCompiledAutograd(fx::CompileHost& host, const vm::CompileOptions& options, const ag::RootGradients& start, bool retainGraph) {
    const PassPlan plan = planPass(start);
    PassCache& cache = cacheOf(host);
    std::string reason = plan.unsupported;
    std::shared_ptr<CachedPass> hit;
    if (reason.empty()) {
        for (const auto& entry : cache.entries)
            if (entry->key == plan.key && fx::sameBackend(entry->options, options)) {
                hit = entry;  // entries are added only on a miss: a match is the only one
                break;
            }
        if (!hit) {
            hit = compilePass(host, options, start, plan, reason);
            if (hit) cache.entries.push_back(hit);
        }
    }
    if (!hit) {
        if (cache.loggedReasons.insert(reason).second)
            host.log() << "compiled autograd: this backward runs on the eager autograd engine: " << reason << "\n";
        return false;
    }
    runPass(host.interpreter(), *hit, plan, start, retainGraph);
    return true;
}

}  // namespace

void installCompiledAutograd() { fx::registerCompiledAutograd(runCompiledAutograd); }

}  // namespace eng::aot
