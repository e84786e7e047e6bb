// One frame compile: recompile reasons and the recompile limit, the trace (restarted at graph breaks), the
// backend, the guard tree, and everything it reports: compile events, TORCH_LOGS lines, dynamo counters.
#include <fmt/core.h>

#include <chrono>
#include <tuple>

#include "capture/capture_engine.h"
#include "capture/compile_profile.h"
#include "capture/guard_filter.h"
#include "fx/backend_options.h"
#include "fx/cache_events.h"
#include "fx/fx_printer.h"
#include "frontend/disassembler.h"
#include "fx/torch_logs.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/random.h"
#include "vm/backend_catalog.h"

namespace eng::capture {

namespace {

double epochSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

using fx::logLines;

/// The preface of a break Dynamo compiles up to its last checkpoint (InstructionTranslatorBase.step).
const std::string kCannotResumeReason =
    "Encountered graph break that we cannot resume from. Compiling up to the previous resumable state, then skipping the rest of the "
    "function. Graph break encountered:\n\n";

/// TORCH_LOGS of the stages the backend went through (aot_graphs, post_grad_graphs, output_code); the inductor logs
/// its own ir_pre_fusion and ir_post_fusion while it compiles.
void logBackendStages(const Backend& backend) {
    for (const Backend::StageGraph& stage : backend.stageGraphs()) {
        const std::string_view artifact = fx::artifactOfStageGraph(stage.kind);
        if (!artifact.empty() && fx::torchLogEnabled(artifact))
            fx::logArtifact(artifact, fmt::format("TRACED GRAPH\n ===== {} =====\n {}{}", fx::stageGraphLogTitle(stage.kind, stage.aotId),
                                                  stage.header, fx::readableGraph(*stage.graph)));
    }
    if (fx::torchLogEnabled("output_code"))
        for (const traces::OutputCode& code : backend.generatedCodes()) fx::logArtifact("output_code", "Output code: \n" + code.source);
}

/// What GlobalStateGuard::reason() names of what changed since `entry` was compiled ("grad_mode ",
/// "autocast(cuda)_enabled "); empty when nothing did.
std::string globalStateChange(const CacheEntry& entry) {
    std::string text = entry.gradEnabled != tensor::autograd::isGradEnabled() ? "grad_mode " : "";
    const tensor::AutocastStates& compiled = entry.autocast;
    const tensor::AutocastStates now = tensor::autocastStates();
    for (const auto& [device, was, is] : {std::tuple{"cpu", compiled.cpu, now.cpu}, std::tuple{"cuda", compiled.cuda, now.cuda}}) {
        if (was.enabled != is.enabled) text += fmt::format("autocast({})_enabled ", device);
        if (was.dtype != is.dtype) text += fmt::format("autocast({})_dtype ", device);
    }
    return text;
}

std::string failureText(const GuardFailureReason& failure) {
    std::string text = failure.reason;
    if (failure.hasUserStack)
        text += fmt::format("\nUser stack trace:\n  File \"{}\", line {}, in {}\n    {}", failure.origin.file, failure.origin.line,
                            failure.origin.function, failure.origin.code);
    return text;
}

std::string instructionDescription(const frontend::CodeObject& code, uint32_t pc) {
    frontend::Opcode op = code.instructions[pc].opcode;
    if (op == frontend::Opcode::Call || op == frontend::Opcode::CallKw || op == frontend::Opcode::CallFunctionEx)
        return "CALL: a function call, e.g. f(x, y)";
    return std::string(frontend::opcodeInfo(op).name);
}

}  // namespace

void CaptureEngine::logGraphBreak(const std::string& prefix, const GraphBreakInfo& info, const std::string& reason) {
    std::string site = fmt::format("{}:{}", info.file, info.line);
    std::string reasonText = "Graph Break Reason: " + reason;
    // A second break at the same place is logged without its user stack, as Dynamo does.
    if (loggedBreakSites_[site]++ > 0) {
        logLines(log(), prefix + "[__graph_breaks] ",
                 fmt::format("Graph break (user stack suppressed due to duplicate graph break) in user code at {}\n{}", site, reasonText));
        return;
    }
    std::string text = fmt::format("Graph break in user code at {}\n{}\n\nUser code traceback:", site, reasonText);
    // The running Python frames (the callers), then the traced ones down to the break.
    for (const vm::TracebackEntry& e : vm_.callStack())
        text += fmt::format("\n  File \"{}\", line {}, in {}\n    {}", e.filename, e.line, e.function, vm_.sourceLine(e.filename, e.line));
    for (const auto& f : info.userStack) text += fmt::format("\n  File \"{}\", line {}, in {}\n    {}", f.file, f.line, f.function, f.source);
    logLines(log(), prefix + "[__graph_breaks] ", text + "\n");
}

void CaptureEngine::logCompileStart(const vm::Frame& frame, const FrameCache& cache) {
    const std::string& file = frame.code->filename;
    if (fx::torchLogDebug("dynamo")) {
        // The user's stack as traceback.format() prints it; Dynamo elides its own frames (the 5 between the call
        // and the log line: eval_frame's wrapper and convert_frame's).
        std::string stack;
        for (const vm::TracebackEntry& e : vm_.callStack())
            stack += fmt::format("  File \"{}\", line {}, in {}\n    {}\n", e.filename, e.line, e.function, vm_.sourceLine(e.filename, e.line));
        fx::logComponent("dynamo", fmt::format("torchdynamo start compiling {} {}:{}, stack (elided 5 frames):\n{}", cache.functionName, file,
                                               cache.firstLine, stack),
                         /*debug=*/true);
    }
    fx::logComponent("dynamo", fmt::format("Step 1: torchdynamo start tracing {} {}:{}", cache.functionName, file, cache.firstLine));
    fx::logComponent("dynamic", "create_env");
    if (fx::torchLogEnabled("bytecode")) {
        frontend::DisassemblyOptions listing;
        listing.nested = false;
        fx::logArtifact("bytecode", fmt::format("ORIGINAL BYTECODE {} {} line {} \n{}\n", cache.functionName, file, cache.firstLine,
                                                frontend::disassemble(*frame.code, listing)));
    }
}

void CaptureEngine::failUnsupported(traces::Compile& compile, const GraphBreakInfo& info) {
    countCounter("unimplemented", info.reason, 1);
    countCounter("frames", "total", 1);
    compile.status = traces::CompileStatus::Failed;
    compile.failType = "Unsupported";
    compile.failReason = info.reason;
    compile.failUserFile = info.file;
    compile.failUserLine = info.line;
    if (sink_) sink_->compileFinished(compile);
}

void CaptureEngine::countCompiledGraph(const Graph& graph) {
    ++uniqueGraphs_;
    countCounter("stats", "unique_graphs", 1);
    countCounter("stats", "calls_captured", callNodeCount(graph));
}

void CaptureEngine::reportCacheEvents(const traces::CompileKey& key, const std::vector<fx::CacheEvent>& events) {
    for (const fx::CacheEvent& event : events) {
        // counters["inductor"]["fxgraph_cache_hit"], as Inductor's FxGraphCache counts its lookups.
        countCounter("inductor", fmt::format("{}_cache_{}", event.cache == "fx_graph" ? "fxgraph" : event.cache, event.result), 1);
        if (sink_) sink_->cacheLookup(key, fmt::format("{}_cache_{}", event.cache, event.result), event.payload);
    }
}

void CaptureEngine::emitGraphBreak(const traces::CompileKey& key, const GraphBreakInfo& info) {
    traces::GraphBreak row;
    row.origin = "artifact";
    row.reason = info.reason;
    row.breakType = info.breakType;
    row.userFile = info.file;
    row.userLine = info.line;
    row.userStack = info.userStack;
    row.text = fmt::format("Graph break in user code at {}:{}\nGraph Break Reason: {}", info.file, info.line, info.reason);
    if (sink_) sink_->graphBreak(key, row);
}

/// The compile's options with what the program set in torch._inductor.config beneath options={...} (which
/// win), as Inductor reads its config when it compiles; checked again, since a config entry cwb cannot honour
/// must be refused as an option would be.
vm::CompileOptions CaptureEngine::withInductorConfig(const vm::CompileOptions& options) {
    if (options.backend != "inductor") return options;
    vm::Value overrides = vm::inductorConfigOverrides(vm_);
    auto& merged = overrides.as<vm::DictObject>();
    if (merged.entries().empty()) return options;
    if (options.backendOptions.is(vm::Kind::Dict))
        for (const auto& [key, value] : options.backendOptions.as<vm::DictObject>().entries()) merged.set(key, value);
    vm::CompileOptions combined = options;
    combined.backendOptions = overrides;
    fx::checkNamedBackendOptions(combined);
    return combined;
}

CacheEntry* CaptureEngine::compileEntry(FrameCache& cache, vm::Frame& frame, const vm::ValueList& view, const vm::CompileOptions& options) {
    auto started = std::chrono::steady_clock::now();
    const bool profiling = compileProfileEnabled();
    const CompileCounters atStart = profiling ? compileCountersNow() : CompileCounters{};
    if (cache.frameId < 0) cache.frameId = nextFrameId_++;
    traces::CompileKey key;
    key.frameId = cache.frameId;
    key.frameCompileId = static_cast<int>(cache.entries.size());
    const std::string prefix = "[" + key.str() + "] ";
    const std::string& file = frame.code->filename;

    // Why the existing entries rejected this call, most recent first.
    std::vector<traces::GuardFailure> failures;
    for (auto it = cache.entries.rbegin(); it != cache.entries.rend(); ++it) {
        traces::GuardFailure row;
        row.index = static_cast<int>(failures.size());
        row.failedCompile = fmt::format("{}/{}", cache.frameId, it->compileNumber);
        // The root's GLOBAL_STATE guard runs before the guards on the frame's values.
        if (std::string changed = globalStateChange(*it); !changed.empty()) {
            row.reason = "GLOBAL_STATE changed: " + changed;
            failures.push_back(std::move(row));
            continue;
        }
        std::optional<GuardFailureReason> failure = it->guards.explainFailure(vm_, view, *frame.globals);
        row.reason = failure ? failureText(*failure) : "Unable to find recompilation reasons";
        failures.push_back(std::move(row));
    }
    // Reported before the limit check: Dynamo logs the reasons first, and PyTorch counts a compile that the
    // recompile limit then refuses as a recompile too.
    if (sink_ && !failures.empty()) sink_->recompileReasons(key, failures);
    if (!failures.empty() && stance_ == "fail_on_recompile")
        vm::raise("RuntimeError", fmt::format("Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: '{}', "
                                              "function name: '{}', line number: {}",
                                              file, cache.functionName, cache.firstLine));
    if (!failures.empty() && logs_.recompiles) {
        std::string text = fmt::format("Recompiling function {} in {}:{}\n    triggered by the following guard failure(s):", cache.functionName,
                                       file, cache.firstLine);
        for (const auto& f : failures) {
            std::string reason = f.failedCompile + ": " + f.reason;
            size_t start = 0;
            while (start <= reason.size()) {
                size_t end = reason.find('\n', start);
                if (end == std::string::npos) end = reason.size();
                text += "\n    - " + reason.substr(start, end - start);
                start = end + 1;
            }
        }
        logLines(log(), prefix + "[__recompiles] ", text);
    }
    if (!cache.entries.empty() && static_cast<int>(cache.entries.size()) >= recompileLimit()) {
        cache.limitHit = true;
        countCounter("frames", "total", 1);
        std::string warning = fmt::format("torch._dynamo hit config.recompile_limit ({})\n   function: '{}' ({}:{})\n   last reason: {}: {}\n"
                                          "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\n"
                                          "To diagnose recompilation issues, see https://docs.pytorch.org/docs/main/user_guide/torch_compiler/"
                                          "compile/programming_model.recompilation.html",
                                          recompileLimit(), cache.functionName, file, cache.firstLine, failures.front().failedCompile,
                                          failures.front().reason);
        logLines(log(), prefix, warning);
        if (sink_) sink_->warning(key, warning);
        if (options.fullgraph)
            vm::raise("FailOnRecompileLimitHit", fmt::format("recompile_limit reached with fullgraph=True. Excessive recompilations can degrade "
                                                             "performance due to the compilation overhead of each recompilation."));
        return nullptr;
    }

    traces::Compile compile;
    compile.key = key;
    compile.started = true;
    compile.function = cache.functionName;
    compile.file = file;
    compile.firstLine = cache.firstLine;
    compile.startTime = epochSeconds();
    compile.cacheSize = static_cast<int64_t>(cache.entries.size());
    for (const auto& f : failures) compile.recompileReasons.push_back(f.failedCompile + ": " + f.reason);
    if (sink_) {
        // The user's stack at the call: the running Python frames, then this frame's first line.
        traces::Stack userStack;
        for (const vm::TracebackEntry& e : vm_.callStack())
            userStack.push_back(traces::Frame{e.filename, e.line, e.function, vm_.sourceLine(e.filename, e.line)});
        int line = frame.code->lineTable.lineOf(frame.pc);
        userStack.push_back(traces::Frame{file, line, cache.functionName, vm_.sourceLine(file, line)});
        sink_->compileStarted(compile, userStack);
    }
    // Everything logged from here on (the trace's ShapeEnv lines, the backend's stages) carries this compile's id.
    const fx::CompileIdScope compileScope(key.str(), log());
    logCompileStart(frame, cache);

    TraceOptions traceOptions;
    traceOptions.functionName = cache.functionName;
    traceOptions.dynamicAll = options.dynamic.value_or(false);
    bool automatic = vm_.truthy(dynamoConfig().at("automatic_dynamic_shapes"));
    traceOptions.automaticDynamic = !options.dynamic.has_value() && automatic;
    traceOptions.captureScalarOutputs = options.fullgraph;
    auto skipHookGuards = dynamoConfig().find("skip_nnmodule_hook_guards");
    traceOptions.guardModuleHooks = skipHookGuards != dynamoConfig().end() && !vm_.truthy(skipHookGuards->second);
    TraceResult result;
    for (;;) {
        Tracer tracer(vm_, traceOptions, cache.dynamic);
        // Tracing runs random ops for their example values; the graph (or the eager frame after a break) draws
        // them again, so the generator goes back to where the call found it, as Dynamo's fake tensors leave it.
        const tensor::GeneratorState rngBefore = tensor::generatorState();
        try {
            result = tracer.trace(frame);
            tensor::setGeneratorState(rngBefore);
        } catch (...) {
            tensor::setGeneratorState(rngBefore);
            compile.status = traces::CompileStatus::Failed;
            compile.failType = "UserError";
            if (sink_) sink_->compileFinished(compile);
            throw;
        }
        if (!result.restartAt) break;
        if (!options.fullgraph && result.graphBreak->skipFrame) {
            // No resume point (a break inside the function a lazy map/filter calls at FOR_ITER): Dynamo skips the
            // whole frame from now on and runs it eagerly; the functions it calls are still compiled as frames.
            const GraphBreakInfo& info = *result.graphBreak;
            if (const auto& unresumed = info.unresumedBreak) {
                // The break itself was met (counted and logged as one); building its resume is what failed.
                emitGraphBreak(key, *unresumed);
                countGraphBreak(unresumed->reason);
                if (logs_.graphBreaks)
                    logGraphBreak(prefix, *unresumed, fmt::format("Encountered graph break when attempting to trace {}:\n\n{}",
                                                                  instructionDescription(*frame.code, *result.restartAt), unresumed->reason));
            }
            if (logs_.graphBreaks)
                logGraphBreak(prefix, info,
                              "Failed to handle graph break gracefully. Skipping the function and falling back to eager. Graph break "
                              "encountered:\n\n" + info.reason + info.skipNote);
            failUnsupported(compile, info);
            cache.skipped = true;
            return nullptr;
        }
        if (options.fullgraph) {
            const GraphBreakInfo& info = *result.graphBreak;
            failUnsupported(compile, info);
            std::string stack;
            for (const auto& f : info.userStack) stack += fmt::format("\n  File \"{}\", line {}, in {}\n    {}", f.file, f.line, f.function, f.source);
            vm::raise("Unsupported", info.reason + "\n\nfrom user code:" + stack +
                                         "\n\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're "
                                         "reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS=\"+dynamo\"\n");
        }
        traceOptions.breakBefore[*result.restartAt] = *result.graphBreak;
    }
    if (result.returned) fx::logComponent("dynamo", fmt::format("Step 1: torchdynamo done tracing {} (RETURN_VALUE)", cache.functionName));
    const CompileCounters traced = profiling ? compileCountersNow() : CompileCounters{};

    CacheEntry entry;
    entry.compileNumber = static_cast<int>(cache.entries.size());
    entry.compiledWith = options;
    entry.autocast = tensor::autocastStates();
    entry.gradEnabled = tensor::autograd::isGradEnabled();
    entry.inputs = result.inputs;
    entry.returned = result.returned;
    entry.returnValue = result.returnValue;
    entry.breakPc = result.breakPc;
    entry.cells = result.cells;
    entry.sideEffects = result.sideEffects;
    entry.locals = result.locals;
    entry.stack = result.stack;
    entry.graphBreak = result.graphBreak;
    double backendSeconds = 0;
    std::vector<traces::PhaseTime> backendPhases;
    std::shared_ptr<const Graph> graph(std::move(result.graph));
    // Dynamo compiles a graph that has ops or outputs (a symbolic int the resumed code needs), none otherwise.
    const bool hasOutputs = graph->output() && !graph->output()->args.empty() && !graph->output()->args[0].items.empty();
    if (callNodeCount(*graph) > 0 || hasOutputs) {
        vm::ValueList examples;
        for (const InputBinding& binding : entry.inputs) {
            vm::Value v = *readSource(vm_, *binding.source, view, *frame.globals);
            examples.push_back(binding.dimension >= 0 ? vm::Value(v.tensor().size(binding.dimension)) : v);
        }
        auto backendStart = std::chrono::steady_clock::now();
        const vm::CompileOptions backendOptions = withInductorConfig(options);
        std::unique_ptr<Backend> backend = fx::makeBackend(backendOptions);
        fx::CacheEventScope cacheEvents;
        const std::string backendName =
            options.backend == "<callable>" ? vm_.getAttr(options.backendCallable, "__name__").str() : options.backend;
        fx::logComponent("dynamo", "Step 2: calling compiler function " + backendName);
        // The backend runs graph nodes on example values (AOT Autograd's joint graph, recorded derivatives); a node
        // that draws random numbers (an autograd.Function's forward) must leave the generators where the call found
        // them, as compiling over fake tensors does.
        struct RestoreGenerators {
            tensor::GeneratorState state = tensor::generatorState();
            ~RestoreGenerators() { tensor::setGeneratorState(state); }
        } restoreGenerators;
        try {
            if (sink_) backend->setRunNote([sink = sink_, key](const std::string& text) { sink->warning(key, text); });
            entry.compiled = backend->compile(vm_, graph, examples);
            reportCacheEvents(key, cacheEvents.events());
        } catch (...) {
            // A backend that raises fails the compile with Dynamo's BackendCompilerFailed.
            vm::Value error = vm_.exceptionFrom(std::current_exception());
            compile.status = traces::CompileStatus::Failed;
            compile.failType = "BackendCompilerFailed";
            countCounter("frames", "total", 1);
            if (sink_) sink_->compileFinished(compile);
            vm::raise("BackendCompilerFailed",
                      fmt::format("backend='{}' raised:\n{}: {}\n\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this "
                                  "especially if you're reporting a bug to PyTorch). For even more developer context, set "
                                  "TORCH_LOGS=\"+dynamo\"\n",
                                  backendName, vm_.classOf(error)->name, vm_.str(error)));
        }
        fx::logComponent("dynamo", "Step 2: done compiler function " + backendName);
        backendSeconds = secondsSince(backendStart);
        backendPhases = backend->phaseTimes();
        logBackendStages(*backend);
        entry.graph = graph;
        countCompiledGraph(*graph);
        if (sink_) {
            sink_->graphCaptured(key, graphRow(*graph));
            // A torch.cond's branches as graphs of their own (the workbench's graph view opens each in a tab).
            for (const auto& node : graph->nodes())
                if (node->subgraph) {
                    traces::Graph row = graphRow(*node->subgraph);
                    row.kind = traces::GraphKind::Other;
                    row.name = node->target;
                    sink_->graphCaptured(key, row);
                }
            for (const traces::Graph& row : backend->stageGraphRows()) sink_->graphCaptured(key, row);
            for (const traces::OutputCode& code : backend->generatedCodes()) sink_->outputCode(key, code);
        }
        if (logs_.graphCode)
            logLines(log(), prefix + "[__graph_code] ", fmt::format("TRACED GRAPH\n ===== __compiled_fn_{} =====\n {}", uniqueGraphs_, fx::readableGraph(*graph)));
        if (logs_.graphSizes) logLines(log(), prefix + "[__graph_sizes] ", fx::graphSizes(*graph, fmt::format("__compiled_fn_{}", uniqueGraphs_)));
        if (explain_) explain_->graphs.push_back(graph);
    }
    const CompileCounters backendDone = profiling ? compileCountersNow() : CompileCounters{};
    if (entry.graphBreak) {
        const GraphBreakInfo& info = *entry.graphBreak;
        if (info.breakType.rfind("Unsupported Tensor.item()", 0) == 0) {
            // Dynamo's warning for .item(), logged (at WARNING, so always) before the graph-break report.
            std::string warning = "Graph break from `Tensor.item()`, consider setting:\n    torch._dynamo.config.capture_scalar_outputs = True\n"
                                  "or:\n    env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1\nto include these operations in the captured graph.\n\n"
                                  "Graph break: from user code at:";
            for (const auto& f : info.userStack) warning += fmt::format("\n  File \"{}\", line {}, in {}\n    {}", f.file, f.line, f.function, f.source);
            logLines(log(), prefix, warning + "\n\n");
            if (sink_) sink_->warning(key, warning);
        }
        if (info.atCheckpoint) {
            // Dynamo's step(): a break it cannot resume from, the graph compiled up to the last checkpoint. Its
            // Unsupported stays counted as unimplemented; explain names the compile's reason, "step_unsupported".
            GraphBreakInfo reported = info;
            reported.reason = kCannotResumeReason + info.reason;
            reported.breakType = kCannotResumeReason.substr(0, kCannotResumeReason.find('\n'));
            emitGraphBreak(key, reported);
            countCounter("unimplemented", info.reason, 1);
            if (explain_) {
                GraphBreakInfo step = info;
                step.reason = "step_unsupported";
                const int line = frame.code->lineTable.lineOf(entry.breakPc);
                step.userStack = {traces::Frame{file, line, cache.functionName, vm_.sourceLine(file, line)}};
                explain_->breaks.push_back(step);
            }
            if (logs_.graphBreaks) logGraphBreak(prefix, info, reported.reason);
        } else {
            emitGraphBreak(key, info);
            // A data-dependent jump is Dynamo's generic_jump: its Unsupported stays counted as unimplemented, and
            // the log gives the reason without the instruction preface (traces::countedAsGraphBreak).
            const bool dataDependentJump = info.breakType == "Data-dependent branching";
            if (dataDependentJump) countCounter("unimplemented", info.reason, 1);
            else countGraphBreak(info.reason);
            if (explain_) explain_->breaks.push_back(info);
            if (logs_.graphBreaks)
                logGraphBreak(prefix, info, dataDependentJump ? info.reason : fmt::format("Encountered graph break when attempting to trace {}:\n\n{}",
                                                        instructionDescription(*frame.code, entry.breakPc), info.reason));
        }
    }
    fx::logComponent("dynamic", "produce_guards");
    if (!options.guardFilterFn.isNone()) {
        try {
            result.guards = filterGuards(vm_, options.guardFilterFn, std::move(result.guards), view, *frame.globals);
        } catch (...) {
            // The program's filter raised (or answered wrongly): the compile fails with it, as Dynamo's does.
            compile.status = traces::CompileStatus::Failed;
            compile.failType = "UserError";
            if (sink_) sink_->compileFinished(compile);
            throw;
        }
    }
    entry.guards = GuardTree(std::move(result.guards));
    for (const InputBinding& binding : entry.inputs) entry.inputAccessors.push_back(entry.guards.accessor(binding.source));
    std::vector<traces::Guard> guardRows = entry.guards.rows();
    if (sink_) sink_->guardsInstalled(key, guardRows);
    if (explain_) {
        explain_->guards.insert(explain_->guards.end(), entry.guards.guards().begin(), entry.guards.guards().end());
        // OutputGraph.init_ambient_guards adds these to every graph's guard set (no functorch interpreter and no
        // compiled autograd region here, so neither FUNCTORCH_STACK_MATCH nor a missing saved-tensors hook check).
        for (const char* ambient : {"SHAPE_ENV", "DETERMINISTIC_ALGORITHMS", "GRAD_MODE", "DEFAULT_DEVICE", "GLOBAL_STATE",
                                    "TORCH_FUNCTION_STATE", "AUTOGRAD_SAVED_TENSORS_HOOKS"})
            explain_->ambientGuards.emplace_back(ambient);
    }
    if (logs_.guards) {
        std::string text = "GUARDS:\n\nTREE_GUARD_MANAGER:\n+- RootGuardManager";
        for (const auto& g : guardRows) text += "\n" + std::string(static_cast<size_t>(g.depth) * 2, ' ') + "| +- " + g.text;
        logLines(log(), prefix + "[__guards] ", text);
    }
    countCounter("frames", "total", 1);
    countCounter("frames", "ok", 1);

    compile.status = traces::CompileStatus::Ok;
    compile.guardCount = static_cast<int64_t>(entry.guards.guards().size());
    compile.opCount = callNodeCount(*graph);
    compile.nodeCount = static_cast<int64_t>(graph->nodes().size());
    compile.inputCount = static_cast<int64_t>(entry.inputs.size());
    compile.phases.push_back({"entire_frame_compile", secondsSince(started)});
    compile.phases.push_back({"backend_compile", backendSeconds});
    if (profiling) printCompileProfile(key.str(), cache.functionName, atStart, traced, backendDone, backendPhases);
    for (traces::PhaseTime& phase : backendPhases) compile.phases.push_back(std::move(phase));
    if (sink_) sink_->compileFinished(compile);
    cache.entries.push_back(std::move(entry));
    return &cache.entries.back();
}

}  // namespace eng::capture
