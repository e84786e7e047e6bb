// The AOT Autograd backends: compile time (joint graph, partition, both passes through the pass compiler) and
// run time (the forward with grad mode off, its outputs made the results of one autograd node whose backward runs
// the compiled backward graph on the saved values and the incoming gradients, as PyTorch's CompiledFunction).
#include "aot/aot_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include <fmt/format.h>

#include "aot/autocast_casts.h"
#include "aot/compiled_autograd.h"
#include "aot/inference_graph.h"
#include "fx/fx_printer.h"
#include "fx/graph_runner.h"
#include "inductor/inductor_backend.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/node.h"
#include "tensor/conversion.h"
#include "tensor/registry.h"

namespace eng::aot {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool anyRequiresGrad(const vm::ValueList& inputs) {
    for (const vm::Value& v : inputs)
        if (v.is(vm::Kind::Tensor) && v.as<vm::TensorObject>().value.requiresGrad()) return true;
    return false;
}

/// PyTorch's first line of every output code module, `# AOT ID: ['0_forward']`: AOT Autograd numbers the graphs it
/// compiles from 0 per process, and the module's role follows (forward, backward or inference). The workbench reads
/// a module's role from it.
int64_t nextAotId() {
    static std::atomic<int64_t> counter{0};
    return counter++;
}
std::string aotIdLine(int64_t aotId, std::string_view role) { return fmt::format("# AOT ID: ['{}_{}']\n", aotId, role); }

/// Examples this small keep their data after compiling (constants and scalars a printout may show by value).
constexpr size_t kKeptExampleBytes = 64 * 1024;

const tensor::Tensor* tensorOf(const vm::Value& v) { return v.is(vm::Kind::Tensor) ? &v.as<vm::TensorObject>().value : nullptr; }

/// What one compiled training graph needs at run time.
struct CompiledTraining {
    // The compiled passes point into their graphs (extern kernels run graph nodes): they live as long as this.
    std::shared_ptr<const fx::Graph> forwardGraph, backwardGraph;
    fx::CompiledFn forward, backward;
    size_t userOutputs = 0;
    std::vector<std::pair<int, size_t>> mutations;  // (input, forward output) written back after each call
    std::vector<int> gradInputs;
    std::vector<int> tangentOutputs;
    size_t savedCount = 0;
    std::shared_ptr<const CompiledBackwardGraph> description;
};

/// AOT Autograd's epilogue, under no_grad: each mutated input takes its final value (`input.copy_(value)` as the eager
/// runtime runs it without autograd: the copy, then the version bump), straight through the tensor runtime rather than
/// the VM's op dispatch, which an optimizer step over 148 parameters would enter ~600 times a call.
void writeBackMutations(const std::vector<std::pair<int, size_t>>& mutations, const vm::ValueList& inputs, const vm::ValueList& results) {
    for (const auto& [input, output] : mutations) {
        const tensor::Tensor& target = inputs.at(static_cast<size_t>(input)).tensor();
        const tensor::Tensor& value = results.at(output).tensor();
        // The inductor's kernels store a final value into its input where they can (keep_input_mutations): then
        // the value is the input's own memory and only the version bump remains.
        const bool storedInPlace = value.sharesStorageWith(target) && value.data() == target.data() && value.sizes() == target.sizes() &&
                                   value.strides() == target.strides() && value.dtype() == target.dtype();
        if (!storedInPlace) tensor::copyInto(target, value);
        tensor::bumpVersion(target);
    }
}

vm::ValueList runTraining(const std::shared_ptr<const CompiledTraining>& c, vm::Interpreter& vm, const vm::ValueList& inputs) {
    vm::ValueList results;
    {
        tensor::autograd::GradModeGuard noGrad(false);
        results = c->forward(vm, inputs);
        writeBackMutations(c->mutations, inputs, results);
    }
    vm::ValueList user(results.begin(), results.begin() + static_cast<long>(c->userOutputs));
    std::vector<tensor::Tensor> differentiableInputs;
    for (int i : c->gradInputs)
        if (const tensor::Tensor* t = tensorOf(inputs.at(static_cast<size_t>(i)))) differentiableInputs.push_back(*t);
    if (!tensor::autograd::isGradEnabled() || differentiableInputs.empty()) return user;
    const size_t savedStart = c->userOutputs + c->mutations.size();
    // Saved tensors go through the autograd node (detached, version-checked); SymInts stay with the formula.
    std::vector<tensor::Tensor> savedTensors;
    std::vector<std::optional<vm::Value>> savedNumbers;
    for (size_t i = savedStart; i < results.size(); ++i) {
        if (const tensor::Tensor* t = tensorOf(results[i])) {
            savedTensors.push_back(*t);
            savedNumbers.emplace_back(std::nullopt);
        } else {
            savedNumbers.emplace_back(results[i]);
        }
    }
    std::vector<tensor::Tensor> outputs;
    for (int i : c->tangentOutputs) outputs.push_back(*tensorOf(user.at(static_cast<size_t>(i))));
    vm::Interpreter* machine = &vm;
    auto formula = [c, savedNumbers, machine](const tensor::autograd::BackwardContext& ctx) {
        vm::ValueList args;
        size_t nextTensor = 0;
        for (const auto& number : savedNumbers) args.push_back(number ? *number : vm::makeTensor(tensor::contiguous(ctx.saved.at(nextTensor++))));
        // The backward graph was compiled for contiguous saved values and tangents, as AOT Autograd makes tangents.
        for (const tensor::Tensor& g : ctx.grads) args.push_back(vm::makeTensor(tensor::contiguous(g)));
        vm::ValueList grads;
        {
            tensor::autograd::GradModeGuard noGrad(false);
            grads = c->backward(*machine, args);
        }
        std::vector<tensor::Tensor> out;
        for (const vm::Value& g : grads) out.push_back(tensorOf(g) ? *tensorOf(g) : tensor::Tensor());
        return out;
    };
    tensor::autograd::recordOp("CompiledFunctionBackward", differentiableInputs, outputs, savedTensors, formula, c->description);
    return user;
}

/// One line per deduplicated input (joint_graph.h's duplicateInputs), for the forward's output code.
std::string dedupeReport(const JointGraph& joint) {
    std::string text;
    for (const auto& [later, earlier] : joint.duplicateInputs)
        text += fmt::format("# AOT Autograd: {} is the same tensor as {}: one gradient, the sum of both, summed in the graph\n",
                            joint.primals.at(static_cast<size_t>(later))->name, joint.primals.at(static_cast<size_t>(earlier))->name);
    return text;
}

}  // namespace

AotBackend::AotBackend(vm::CompileOptions options, PassCompiler passes) : options_(std::move(options)), passes_(passes) {}

fx::CompiledFn AotBackend::compilePass(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& examples,
                                            std::optional<traces::OutputCode>& code, std::vector<traces::PhaseTime>& phases, bool comboKernels,
                                            const std::vector<std::pair<int, size_t>>& outputsUpdatingInputs) {
    if (passes_ == PassCompiler::Eager)
        return [graph](vm::Interpreter& machine, const vm::ValueList& inputs) { return fx::runGraph(machine, *graph, inputs); };
    inductor::InductorConfig config = inductor::InductorConfig::from(options_);
    config.comboKernels = config.comboKernels || comboKernels;
    config.outputsUpdatingInputs = outputsUpdatingInputs;
    inductor::InductorBackend backend(config);
    backend.setRunNote(runNote_);
    fx::CompiledFn fn = backend.compile(vm, std::move(graph), examples);
    code = backend.generatedCode();
    phases = backend.phaseTimes();
    return fn;
}

fx::CompiledFn AotBackend::eagerFallback(std::shared_ptr<const fx::Graph> graph, std::string reason) {
    fallbackReason_ = std::move(reason);
    code_ = inductor::eagerFallbackCode(passes_ == PassCompiler::Eager ? "aot_eager" : "inductor", ", which records autograd",
                                        "AOT Autograd: " + fallbackReason_);
    return [graph](vm::Interpreter& machine, const vm::ValueList& inputs) { return fx::runGraph(machine, *graph, inputs); };
}

fx::CompiledFn AotBackend::compileMutatingInference(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph,
                                                         const vm::ValueList& exampleInputs) {
    InferenceGraph inference;
    try {
        inference = functionalInferenceGraph(vm, *graph, exampleInputs);
    } catch (const std::exception& e) {
        return eagerFallback(graph, e.what());
    }
    fx::CompiledFn fn;
    {
        tensor::autograd::GradModeGuard noGrad(false);
        fn = compilePass(vm, inference.graph, exampleInputs, code_, phases_, /*comboKernels=*/true, inference.mutations);
    }
    if (!code_) {
        traces::OutputCode code;
        code.event = "engine";
        code.filename = "cwb_aot_eager";
        code.language = "python";
        code.source = "# inference graph, run on the eager runtime; the epilogue copies its last outputs into the inputs they update\n" +
                      fx::graphCode(*inference.graph);
        code_ = std::move(code);
    }
    recordInferenceStages(inference.graph, passes_ == PassCompiler::Inductor);
    return [fn, inference](vm::Interpreter& machine, const vm::ValueList& inputs) {
        // AOT Autograd's epilogue: the final values go back into the mutated inputs, without recording autograd.
        tensor::autograd::GradModeGuard noGrad(false);
        vm::ValueList results = fn(machine, inputs);
        writeBackMutations(inference.mutations, inputs, results);
        results.resize(inference.userOutputs);
        return results;
    };
}

void AotBackend::recordInferenceStages(std::shared_ptr<const fx::Graph> graph, bool postGrad) {
    const int64_t aotId = nextAotId();
    stages_ = {{traces::GraphKind::AotInference, "aot_inference_graph", graph, "", aotId}};
    if (postGrad) stages_.push_back({traces::GraphKind::PostGrad, "inductor_post_grad_graph", graph, "", aotId});
    if (!code_) return;
    for (traces::Kernel& kernel : code_->kernels) kernel.postGradNodes = kernel.sourceNodes;
    code_->source = aotIdLine(aotId, "inference") + code_->source;
}

fx::CompiledFn AotBackend::compile(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& exampleInputs) {
    const tensor::AutocastStates compiledUnder = tensor::autocastStates();
    if (!compiledUnder.anyEnabled() && !hasAutocastNodes(*graph)) return compileCaptured(vm, graph, exampleInputs);
    AutocastCasts explicitCasts;
    try {
        explicitCasts = explicitAutocastCasts(vm, *graph, compiledUnder);
    } catch (const std::exception& e) {
        return eagerFallback(graph, fmt::format("AOT Autograd: autocast: {}", e.what()));
    }
    fx::CompiledFn fn;
    {
        // The casts are explicit now: the compiled graphs (the aot_eager runner's ops too) must not cast again.
        const tensor::AutocastSuspend explicitOnly;
        fn = compileCaptured(vm, explicitCasts.graph, exampleInputs);
    }
    // Dynamo guards the autocast state (GLOBAL_STATE) and recompiles when it changes; a call under another state
    // runs the captured graph on the eager runtime, whose ops autocast by the state they run under.
    return [fn, graph, compiledUnder, after = explicitCasts.after](vm::Interpreter& machine, const vm::ValueList& inputs) {
        if (tensor::autocastStates() != compiledUnder) return fx::runGraph(machine, *graph, inputs);
        vm::ValueList results;
        {
            const tensor::AutocastSuspend explicitOnly;
            results = fn(machine, inputs);
        }
        // A graph that ends inside an autocast region (a graph break in it) leaves the region's state on.
        tensor::setAutocastStates(after);
        return results;
    };
}

fx::CompiledFn AotBackend::compileCaptured(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& exampleInputs) {
    code_.reset();
    codes_.clear();
    stages_.clear();
    phases_.clear();
    fallbackReason_.clear();
    if (tensor::autograd::isGradEnabled() && anyRequiresGrad(exampleInputs) && gradModeOffThroughout(*graph, true))
        return compileMutatingInference(vm, graph, exampleInputs);
    if (!tensor::autograd::isGradEnabled() || !anyRequiresGrad(exampleInputs)) {
        // The captured graph is already functional here: it is the inference graph AOT Autograd would trace, and the
        // inductor lowers it as its post-grad graph.
        fx::CompiledFn fn = compilePass(vm, graph, exampleInputs, code_, phases_);
        recordInferenceStages(graph, code_.has_value());
        return fn;
    }
    const auto start = std::chrono::steady_clock::now();
    JointGraph joint;
    Partition partition;
    double traceSeconds = 0;
    try {
        joint = traceJointGraph(vm, *graph, exampleInputs);
        traceSeconds = secondsSince(start);
        partition = partitionJointGraph(vm, joint);
    } catch (const std::exception& e) {
        // AotUnsupported, or an op that raised on the example values while the backward was traced.
        return eagerFallback(graph, dynamic_cast<const AotUnsupported*>(&e) ? e.what() : std::string("tracing the joint graph raised: ") + e.what());
    }
    const double partitionSeconds = secondsSince(start) - traceSeconds;

    auto compiled = std::make_shared<CompiledTraining>();
    compiled->forwardGraph = partition.forward;
    compiled->backwardGraph = partition.backward;
    compiled->userOutputs = partition.userOutputs;
    for (size_t k = 0; k < joint.inputMutations.size(); ++k) compiled->mutations.emplace_back(joint.inputMutations[k].first, partition.userOutputs + k);
    compiled->gradInputs = joint.gradInputs;
    compiled->tangentOutputs = joint.tangentOutput;
    compiled->savedCount = partition.saved.size();
    auto description = std::make_shared<CompiledBackwardGraph>();
    description->graph = partition.backward;
    description->savedCount = partition.saved.size();
    for (const auto& node : partition.backward->nodes())
        for (const std::string& symbol : node->dimSymbols) description->dynamicShapes = description->dynamicShapes || !symbol.empty();
    const std::vector<fx::Node*> backwardInputs = partition.backward->placeholders();
    for (size_t i = 0; i < description->savedCount && i < backwardInputs.size(); ++i)
        description->dynamicShapes = description->dynamicShapes || !tensorOf(backwardInputs[i]->example);
    compiled->description = description;

    vm::ValueList forwardExamples, backwardExamples;
    for (const auto& node : partition.forward->placeholders()) forwardExamples.push_back(node->example);
    for (const auto& node : partition.backward->placeholders()) backwardExamples.push_back(node->example);
    std::optional<traces::OutputCode> forwardCode, backwardCode;
    std::vector<traces::PhaseTime> forwardPhases, backwardPhases;
    {
        tensor::autograd::GradModeGuard noGrad(false);
        compiled->forward = compilePass(vm, partition.forward, forwardExamples, forwardCode, forwardPhases);
        compiled->backward = compilePass(vm, partition.backward, backwardExamples, backwardCode, backwardPhases);
    }
    forwardExamples.clear();
    backwardExamples.clear();
    releaseExampleData({joint.graph.get(), partition.forward.get(), partition.backward.get()}, kKeptExampleBytes);

    const std::string summary = fmt::format("# AOT Autograd: joint graph of {} nodes traced in {:.1f} ms, partitioned in {:.1f} ms\n",
                                            joint.graph->nodes().size(), traceSeconds * 1e3, partitionSeconds * 1e3) + dedupeReport(joint) +
                                partition.report();
    const int64_t aotId = nextAotId();
    stages_ = {{traces::GraphKind::AotJoint, "aot_joint_graph", joint.graph, "", aotId},
               {traces::GraphKind::AotForward, "aot_forward_graph", partition.forward, partition.report(), aotId},
               {traces::GraphKind::AotBackward, "aot_backward_graph", partition.backward, "", aotId}};
    if (forwardCode && backwardCode) {
        // The inductor lowers the partitioned graphs as they are (no post-grad passes rewrite them): they are the
        // post-grad graphs its kernels' nodes refer to.
        stages_.push_back({traces::GraphKind::PostGrad, "inductor_post_grad_graph", partition.forward, "", aotId});
        stages_.push_back({traces::GraphKind::PostGrad, "inductor_post_grad_graph", partition.backward, "", aotId});
        for (auto* passCode : {&*forwardCode, &*backwardCode}) {
            for (traces::Kernel& kernel : passCode->kernels) kernel.postGradNodes = kernel.sourceNodes;
            codes_.push_back(*passCode);
        }
        codes_[0].source = aotIdLine(aotId, "forward") + summary + "# forward graph\n" + codes_[0].source;
        codes_[1].source = aotIdLine(aotId, "backward") + "# AOT Autograd: backward graph\n" + codes_[1].source;
    } else {
        traces::OutputCode code;
        code.event = "engine";
        code.filename = "cwb_aot_eager";
        code.language = "python";
        code.source = summary + "\n# forward graph, run on the eager runtime\n" + fx::graphCode(*partition.forward) +
                      "\n# backward graph, run on the eager runtime\n" + fx::graphCode(*partition.backward);
        codes_.push_back(std::move(code));
    }
    // PyTorch's names for these phases (its chromium events).
    phases_ = {{"aot_trace_joint_graph", traceSeconds}, {"min_cut_rematerialization_partition", partitionSeconds}};
    for (const auto* list : {&forwardPhases, &backwardPhases})
        for (const traces::PhaseTime& phase : *list) {
            auto same = std::find_if(phases_.begin(), phases_.end(), [&](const traces::PhaseTime& p) { return p.phase == phase.phase; });
            if (same == phases_.end()) phases_.push_back(phase);
            else same->seconds += phase.seconds;
        }
    return [compiled, graph, duplicates = joint.duplicateInputs](vm::Interpreter& machine, const vm::ValueList& inputs) {
        // Compiled for one tensor at two positions (its gradient summed in the graph): two tensors there now would
        // both need theirs, which only the eager runtime gives without a recompile (Dynamo guards `a is b`).
        if (!duplicatesHold(duplicates, inputs)) return fx::runGraph(machine, *graph, inputs);
        std::shared_ptr<const CompiledTraining> c = compiled;
        return runTraining(c, machine, inputs);
    };
}

void installAotAutograd() {
    fx::registerBackend("inductor", [](const vm::CompileOptions& options) { return std::make_unique<AotBackend>(options, PassCompiler::Inductor); });
    // The aot_eager family: AOT Autograd's joint graph, partition and passes run on the eager runtime (PyTorch's
    // variants differ in decompositions and partitioner, which change how, not what, they compute).
    for (const char* name : {"aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref", "aot_eager_default_partitioner"})
        fx::registerBackend(name, [](const vm::CompileOptions& options) { return std::make_unique<AotBackend>(options, PassCompiler::Eager); });
    installCompiledAutograd();
}

}  // namespace eng::aot
