// The inductor backend: eager fallback rules (autograd, lowering errors), lowering -> scheduling -> code
// generation per device, and the output code recorded for the workbench: a readable call() wrapper that lists the
// buffers, kernel launches, extern calls and fusion decisions, plus each kernel's source and launch.
#include "inductor/inductor_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "fx/backend_options.h"
#include "fx/graph_runner.h"
#include "fx/torch_logs.h"
#include "inductor/compiled_graph.h"
#include "inductor/cpu/cpu_launcher.h"
#include "inductor/cuda/cuda_launcher.h"
#include "inductor/debug_trace.h"
#include "inductor/fx_graph_cache.h"
#include "tensor/autograd/grad_mode.h"
#include "inductor/inductor_options.h"
#include "inductor/stage_logs.h"

namespace eng::inductor {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string sizesText(const std::vector<Index>& sizes) {
    std::string text;
    for (const Index& s : sizes) text += (text.empty() ? "" : ", ") + toString(s);
    return sizes.size() == 1 ? "(" + text + ",)" : "(" + text + ")";
}

/// Inductor's output_code.py in spirit: what runs, in order, with the buffers it allocates.
/// Inductor's spelling of a view of a buffer taken without a copy.
std::string reinterpretText(const std::string& buffer, const ExternView& view) {
    return fmt::format("reinterpret_tensor({}, ({}), ({}), {})", buffer, fmt::join(view.sizes, ", "), fmt::join(view.strides, ", "), view.offset);
}

/// The wrapper's spelling: Python's output_code.py, or with cpp_wrapper the C++ that PyTorch's cpp_wrapper output
/// code holds in `cpp_wrapper_src`.
struct WrapperSyntax {
    bool cpp = false;
    std::string comment() const { return cpp ? "//" : "#"; }
    std::string end() const { return cpp ? ";" : ""; }
    std::string assign(const std::string& name, const std::string& value) const {
        return fmt::format("    {}{} = {}{}\n", cpp ? "auto " : "", name, value, end());
    }
    std::string shape(const std::vector<Index>& sizes) const {
        if (!cpp) return sizesText(sizes);
        std::string text;
        for (const Index& s : sizes) text += (text.empty() ? "" : ", ") + toString(s);
        return "{" + text + "}";
    }
};

std::string wrapperSource(const CompiledGraph& compiled, const std::string& device, bool cppWrapper) {
    const LoweredGraph& g = compiled.graph();
    const Schedule& s = compiled.schedule();
    const WrapperSyntax syntax{cppWrapper};
    std::string text = fmt::format("# cwb inductor: {} kernels, {} extern calls on {}\n", s.kernels.size(),
                                   s.steps.size() - s.kernels.size(), device);
    for (const std::string& note : g.passNotes) text += "# " + note + "\n";
    text += "# Fusion decisions:\n";
    for (const FusionDecision& d : s.decisions)
        text += fmt::format("#   {} {} {}: {}\n", d.buffer, d.fused ? "fused into" : "->", d.kernel, d.reason);
    std::vector<std::string> inputs;
    for (const GraphBuffer& b : g.buffers)
        if (b.kind == BufferKind::Input) inputs.push_back(b.name);
    if (cppWrapper) {
        // cwb never runs a Python wrapper: CompiledGraph::run, compiled C++, executes this schedule under every
        // option; cpp_wrapper=True writes the wrapper as that C++ instead of PyTorch's Python form.
        text += "\n# cpp_wrapper: the host wrapper as C++ (cwb's executor, CompiledGraph::run, runs this schedule)\n";
        text += "cpp_wrapper_src = '''\nstd::vector<at::Tensor> call(std::vector<at::Tensor> args) {\n";
        for (size_t i = 0; i < inputs.size(); ++i) text += syntax.assign(inputs[i], fmt::format("std::move(args[{}])", i));
    } else {
        text += "\ndef call(args):\n";
        text += fmt::format("    {}, = args\n", fmt::join(inputs, ", "));
    }
    for (const ScheduleStep& step : s.steps) {
        if (step.kind == ScheduleStep::Kind::Extern) {
            const GraphBuffer& b = g.buffers[static_cast<size_t>(step.index)];
            if (!b.extern_.foldedConstant.empty()) {
                text += fmt::format("    {}{} = _frozen_{}{}  {} {}, folded at compile time\n", cppWrapper ? "auto " : "", b.name, b.name,
                                    syntax.end(), syntax.comment(), b.extern_.foldedConstant);
                continue;
            }
            if (b.extern_.resultItem > 0) {
                const std::string& call = g.buffers[static_cast<size_t>(b.extern_.inputBuffers.at(0))].name;
                text += fmt::format("    {}{} = {}_results[{}]{}  {} {}: item {} of the call that returned {}\n", cppWrapper ? "auto " : "", b.name, call,
                                    b.extern_.resultItem, syntax.end(), syntax.comment(), fmt::join(b.originNodes, ", "), b.extern_.resultItem, call);
                continue;
            }
            std::vector<std::string> args;
            for (size_t i = 0; i < b.extern_.inputBuffers.size(); ++i) {
                const std::string& name = g.buffers[static_cast<size_t>(b.extern_.inputBuffers[i])].name;
                const std::optional<ExternView>& view = b.extern_.inputViews[i];
                args.push_back(view ? reinterpretText(name, *view) : name);
            }
            text += fmt::format("    {}{} = extern_kernels{}{}({}){}  {} {}{}\n", cppWrapper ? "auto " : "", b.name, cppWrapper ? "::" : ".",
                                b.extern_.op, fmt::join(args, ", "), syntax.end(), syntax.comment(), fmt::join(b.originNodes, ", "),
                                b.extern_.epilogue.empty() ? "" : "; cublasLt matmul, " + b.extern_.epilogue);
            continue;
        }
        const ScheduledKernel& k = s.kernels[static_cast<size_t>(step.index)];
        std::vector<std::string> args;
        for (size_t p = 0; p < k.bufferIds.size(); ++p) {
            const GraphBuffer& b = g.buffers[static_cast<size_t>(k.bufferIds[p])];
            const int inPlaceInto = compiled.inPlaceStores().inputOf[static_cast<size_t>(b.id)];
            if (k.kernel.buffers[p].written && inPlaceInto >= 0)
                text += fmt::format("    {} {} is stored in place into {} (its final value)\n", syntax.comment(), b.name,
                                    g.buffers[static_cast<size_t>(inPlaceInto)].name) +
                        syntax.assign(b.name, g.buffers[static_cast<size_t>(inPlaceInto)].name);
            else if (k.kernel.buffers[p].written && b.kind != BufferKind::Input)
                text += syntax.assign(b.name, fmt::format("empty_strided({}, {}, {}{})", syntax.shape(b.sizes), syntax.shape(b.strides),
                                                          cppWrapper ? "cached_torch_dtype_" : "dtype=torch.", tensor::dtypeName(b.dtype)));
            args.push_back(b.name);
        }
        for (const std::string& symbol : k.kernel.symbols) args.push_back(symbol);
        text += fmt::format("    {} Source Nodes: [{}]\n", syntax.comment(), fmt::join(k.sourceNodes, ", "));
        const KernelCompileInfo compiledBy = compiled.launcher().compileInfo(static_cast<size_t>(step.index));
        text += fmt::format("    {} code from {} in {:.1f} ms\n", syntax.comment(), compiledBy.how, compiledBy.seconds * 1e3);
        text += fmt::format("    {}({}){}\n", k.kernel.name, fmt::join(args, ", "), syntax.end());
    }
    for (const GraphBuffer& b : g.buffers)
        if (b.mutatesInput >= 0 && compiled.inPlaceStores().inputOf[static_cast<size_t>(b.id)] < 0)
            text += fmt::format("    {}.copy_({}){}\n", g.buffers[static_cast<size_t>(b.mutatesInput)].name, b.name, syntax.end());
    for (const std::string& note : compiled.inPlaceStores().notes)
        if (note.find("is written back into") != std::string::npos) text += fmt::format("    {} {}\n", syntax.comment(), note);
    std::vector<std::string> outs;
    for (const GraphOutput& out : g.outputs) {
        if (out.kind == GraphOutput::Kind::Buffer) {
            const std::string& name = g.buffers[static_cast<size_t>(out.buffer)].name;
            outs.push_back(out.view ? reinterpretText(name, *out.view) : name);
        }
        else if (out.kind == GraphOutput::Kind::Symbol) outs.push_back(toString(out.symbolic));
        else if (out.kind == GraphOutput::Kind::None) outs.push_back(cppWrapper ? "at::Tensor()" : "None");
        else outs.push_back(out.number.is(vm::Kind::Float) ? fmt::format("{}", out.number.asFloat()) : fmt::format("{}", out.number.asInt()));
    }
    if (cppWrapper) text += fmt::format("    return {{{}}};\n}}\n'''\n", fmt::join(outs, ", "));
    else text += fmt::format("    return ({}{})\n", fmt::join(outs, ", "), outs.size() == 1 ? "," : "");
    return text;
}

/// Extern kernels that may run inside a CUDA graph capture: pure device work on the graph's stream whose
/// allocations go to the recording's private pool. Anything else (.item(), nonzero, copies to the CPU, random
/// ops, unknown fallbacks) may synchronise with the host or read host state, so it is refused: an allow-list.
bool captureSafeExtern(const std::string& op) {
    static const char* const safe[] = {"matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "scaled_dot_product_attention",
                                       "_flash_attention_forward", "constant"};
    const auto dot = op.rfind('.');
    const std::string name = dot == std::string::npos ? op : op.substr(dot + 1);
    return std::find(std::begin(safe), std::end(safe), name) != std::end(safe);
}

/// reduce-overhead's CUDA graphs: when they can be used, or PyTorch's "skipping cudagraphs due to ..." reason
/// (`skipDynamic`: triton.cudagraph_skip_dynamic_graphs).
std::string cudaGraphsDecision(const CompiledGraph& compiled, bool skipDynamic) {
    const LoweredGraph& g = compiled.graph();
    if (skipDynamic && !g.symbols.empty())
        return "skipping cudagraphs due to graph with symbolic shapes inputs and config.triton.cudagraph_skip_dynamic_graphs=True";
    if (g.device.type() != tensor::DeviceType::CUDA) {
        for (const GraphBuffer& b : g.buffers)
            if (b.kind == BufferKind::Input) return "skipping cudagraphs due to cpu device (" + b.name + ")";
        return "skipping cudagraphs due to cpu device";
    }
    int mutated = 0;
    for (const GraphBuffer& b : g.buffers) mutated += b.mutatesInput >= 0 ? 1 : 0;
    if (mutated) return fmt::format("skipping cudagraphs due to mutated inputs ({} instances)", mutated);
    for (const ScheduleStep& step : compiled.schedule().steps)
        if (step.kind == ScheduleStep::Kind::Extern) {
            const ExternCall& call = g.buffers[static_cast<size_t>(step.index)].extern_;
            const std::string& op = call.op;
            if (call.resultItem == 0 && !captureSafeExtern(op))  // (an item of several results: its call was checked)
                return "skipping cudagraphs due to extern kernel " + op + " (it may synchronise with the host or allocate outside the graph's pool)";
        }
    return "cudagraphs: the second call records a CUDA graph of the kernels and library calls, later calls replay it";
}

bool anyRequiresGrad(const vm::ValueList& inputs) {
    for (const vm::Value& v : inputs)
        if (v.is(vm::Kind::Tensor) && v.as<vm::TensorObject>().value.requiresGrad()) return true;
    return false;
}

}  // namespace

traces::OutputCode eagerFallbackCode(std::string_view backend, std::string_view how, std::string_view reason) {
    traces::OutputCode code;
    code.event = "engine";
    code.filename = "cwb_inductor_eager_fallback";
    code.language = "python";
    code.source = fmt::format("# cwb {}: this graph runs on the eager runtime{}\n# Reason: {}\n", backend, how, reason);
    return code;
}

fx::CompiledFn InductorBackend::runEagerly(std::shared_ptr<const fx::Graph> graph, std::string reason) {
    eagerReason_ = std::move(reason);
    code_ = eagerFallbackCode("inductor", "", eagerReason_);
    return [graph](vm::Interpreter& vm, const vm::ValueList& inputs) { return fx::runGraph(vm, *graph, inputs); };
}

fx::CompiledFn InductorBackend::compile(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph,
                                             const vm::ValueList& exampleInputs) {
    code_.reset();
    phases_.clear();
    eagerReason_.clear();
    // Compiled backward graphs do not exist yet: training graphs keep the eager runtime's autograd.
    if (tensor::autograd::isGradEnabled() && anyRequiresGrad(exampleInputs))
        return runEagerly(graph, "inputs require grad and cwb has no compiled backward graphs yet; the eager runtime records autograd");
    auto start = std::chrono::steady_clock::now();
    LoweredGraph lowered;
    try {
        // Freezing is for inference, as Inductor's: a graph compiled with grad mode on keeps its parameters as inputs.
        lowered = lowerGraph(*graph, exampleInputs,
                             {.shapePadding = config_.shapePadding, .forceShapePad = config_.forceShapePad,
                              .freezing = config_.freezing && !tensor::autograd::isGradEnabled(), .vm = &vm,
                              .maxFusionSize = config_.maxFusionSize});
    } catch (const LoweringError& error) {
        return runEagerly(graph, std::string("lowering failed: ") + error.what());
    }
    const double loweringSeconds = secondsSince(start);
    if (fx::torchLogEnabled("ir_pre_fusion")) fx::logArtifact("ir_pre_fusion", preFusionText(lowered));
    // The scheduler's logs come with its work: a schedule read from the FX graph cache was not made here.
    Schedule schedule = scheduleThroughCache(*graph, exampleInputs, config_, lowered, [&] {
        Schedule made = scheduleGraph(lowered, {.comboKernels = config_.comboKernels,
                                                .aggressiveFusion = config_.aggressiveFusion,
                                                .maxFusionSize = config_.maxFusionSize,
                                                .opsInKernelNames = config_.opsInKernelNames});
        if (fx::torchLogEnabled("fusion")) fx::logArtifact("fusion", fusionLogText(made, lowered));
        if (fx::torchLogEnabled("schedule"))
            for (const std::string& text : scheduleLogTexts(made, lowered)) fx::logArtifact("schedule", text);
        return made;
    });
    if (fx::torchLogEnabled("ir_post_fusion")) fx::logArtifact("ir_post_fusion", postFusionText(schedule, lowered));
    const double schedulingSeconds = secondsSince(start) - loweringSeconds;
    // Buffers that are an input's final value are stored into it by their kernel (Inductor's mutated buffers).
    InPlaceStores inPlace = planInPlaceStores(lowered, schedule, config_.outputsUpdatingInputs, config_.autotune || config_.coordinateDescent);
    std::vector<Kernel> kernels;
    for (const ScheduledKernel& k : schedule.kernels) kernels.push_back(k.kernel);
    const tensor::Device device = lowered.device;
    std::unique_ptr<KernelLauncher> launcher;
    if (config_.codegen == CodegenChoice::Native) {
        launcher = makeLauncher(device.type(), kernels, device.index(),
                                {.autotune = config_.autotune, .coordinateDescent = config_.coordinateDescent, .cpuThreads = config_.cpuThreads});
        if (!launcher && device.type() != tensor::DeviceType::CPU)
            return runEagerly(graph, fmt::format("no code generator is registered for {} kernels", device.str()));
    }
    if (!launcher) launcher = makeInterpreterLauncher(kernels);
    auto compiled = std::make_shared<CompiledGraph>(std::move(lowered), std::move(schedule), std::move(launcher));
    compiled->setInPlaceStores(std::move(inPlace));
    compiled->setNanAsserts(config_.nanAsserts);
    // What tuning on the first launch chose is noted after the first run (the trace recorded the kernels already).
    const bool tunedOnCuda = config_.autotune && device.type() == tensor::DeviceType::CUDA;
    const bool nativeLauncher = config_.codegen == CodegenChoice::Native;
    compiled->setRunNote(runNote_, !nativeLauncher                  ? ""
                                   : tunedOnCuda                    ? "max-autotune"
                                   : config_.coordinateDescent      ? "coordinate_descent_tuning"
                                                                    : "");

    traces::OutputCode code;
    code.event = "engine";
    code.filename = "cwb_inductor_output_code";
    code.language = "python";
    code.source = wrapperSource(*compiled, device.str(), config_.cppWrapper);
    const SymbolValues hints = compiled->symbolValues(exampleInputs);
    const double generateSeconds = compiled->launcher().compileSeconds();
    for (size_t i = 0; i < compiled->schedule().kernels.size(); ++i) {
        const ScheduledKernel& k = compiled->schedule().kernels[i];
        KernelArtifact artifact = compiled->launcher().artifact(i, hints);
        traces::Kernel row;
        row.index = static_cast<int>(i);
        row.name = k.kernel.name;
        row.language = artifact.language;
        row.source = artifact.source;
        row.launchConfig = artifact.launchConfig;
        row.compileSeconds = compiled->launcher().compileInfo(i).seconds;
        row.sourceNodes = k.sourceNodes;
        code.kernels.push_back(std::move(row));
    }
    code.source += fmt::format("\n# compiled in {:.1f} ms (code generation {:.1f} ms)\n", secondsSince(start) * 1e3, generateSeconds * 1e3);
    if (config_.cudaGraphs) {
        const std::string decision = cudaGraphsDecision(*compiled, config_.cudaGraphsSkipDynamic);
        code.source += "# " + decision + "\n";
        // Inductor warns of a skip through perf_hint_log (log_cudagraph_skip_and_bump_counter).
        if (decision.rfind("skipping", 0) == 0) fx::logArtifact("perf_hints", decision);
        if (decision.rfind("skipping", 0) != 0) compiled->enableCudaGraphs();
    }
    if (config_.autotune && device.type() != tensor::DeviceType::CUDA)
        code.source += "# max-autotune: skipped on the cpu (autotuning times CUDA kernels' launch shapes)\n";
    if (config_.debugTrace) {
        auto folder = writeDebugTrace("torch_compile_debug", code, *compiled, config_.graphDiagram);
        code.source += "# debug trace written to " + folder.string() + "\n";
    }
    code_ = std::move(code);
    // Names as the suffixes of PyTorch's compilation_metrics (inductor_compile_time_s, code_gen_time_s).
    phases_ = {{"inductor_compile", secondsSince(start)},
               {"inductor_lowering", loweringSeconds},
               {"inductor_scheduling", schedulingSeconds},
               {"code_gen", generateSeconds}};
    return [compiled, graph](vm::Interpreter& machine, const vm::ValueList& inputs) {
        if (compiled->eagerFallback().empty()) {
            try {
                return compiled->run(machine, inputs);
            } catch (const ExternResultMismatch& mismatch) {
                // Nothing was written back yet: the eager runtime computes this call from the same inputs.
                compiled->fallBackToEager(mismatch.what());
            }
        }
        return fx::runGraph(machine, *graph, inputs);
    };
}

InductorConfig InductorConfig::from(const vm::CompileOptions& options) {
    InductorConfig config;
    config.mode = options.mode;
    if (const char* codegen = std::getenv("CWB_INDUCTOR_CODEGEN"); codegen && std::string(codegen) == "interpreter")
        config.codegen = CodegenChoice::Interpreter;
    const bool autotuneMode = options.mode == "max-autotune" || options.mode == "max-autotune-no-cudagraphs";
    const vm::Value& extra = options.backendOptions;
    config.autotune = autotuneMode || inductorFlag(extra, "max_autotune") || inductorFlag(extra, "max_autotune_pointwise");
    config.cudaGraphs = inductorFlag(extra, "triton.cudagraphs", options.mode == "reduce-overhead" || options.mode == "max-autotune");
    config.debugTrace = inductorFlag(extra, "trace.enabled") || inductorFlag(extra, "debug");
    config.graphDiagram = inductorFlag(extra, "trace.graph_diagram");
    config.comboKernels = inductorFlag(extra, "combo_kernels");
    config.coordinateDescent = inductorFlag(extra, "coordinate_descent_tuning", autotuneMode);
    config.aggressiveFusion = inductorFlag(extra, "aggressive_fusion");
    config.fxGraphCache = fxGraphCacheEnabled(extra);
    config.cppWrapper = inductorFlag(extra, "cpp_wrapper");
    config.shapePadding = inductorFlag(extra, "shape_padding");
    config.forceShapePad = inductorFlag(extra, "force_shape_pad");
    config.freezing = inductorFlag(extra, "freezing");
    // Honoured up to kMaxFusionSizeLimit: later passes recurse over a fused body's expression, a level per node.
    config.maxFusionSize = static_cast<size_t>(std::clamp<int64_t>(inductorOption(extra, "max_fusion_size").asInt(), 1,
                                                                   static_cast<int64_t>(kMaxFusionSizeLimit)));
    const vm::Value descriptive = inductorOption(extra, "triton.descriptive_names");
    config.opsInKernelNames = inductorFlag(extra, "triton.unique_kernel_names") && !(descriptive.is(vm::Kind::Bool) && !descriptive.asInt());
    config.nanAsserts = inductorFlag(extra, "nan_asserts");
    config.cpuThreads = static_cast<int>(inductorOption(extra, "cpp.threads").asInt());
    config.cudaGraphsSkipDynamic = inductorFlag(extra, "triton.cudagraph_skip_dynamic_graphs");
    return config;
}

void installInductorBackend() {
    registerCpuLauncher();
    registerCudaLauncher();
    fx::registerBackend("inductor", [](const vm::CompileOptions& options) {
        return std::make_unique<InductorBackend>(InductorConfig::from(options));
    });
    fx::registerBackendOptions("inductor", inductorOptionTable());
}

}  // namespace eng::inductor
