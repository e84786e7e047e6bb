// The capture engine: torch.compile's frame evaluation. A FrameHook with one cache per code object (resume
// points included), guard checks before every cached entry, compiles and recompiles with Dynamo's ids,
// graph breaks that run one instruction in the VM and resume tracing after it, and the compile events.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/compile_events.h"
#include "capture/guards.h"
#include "capture/tracer.h"
#include "fx/backend.h"
#include "fx/cache_events.h"
#include "fx/compile_host.h"
#include "fx/fx_printer.h"
#include "tensor/autocast.h"
#include "tensor/autograd/engine.h"
#include "vm/interpreter.h"

namespace eng::capture {

// Capture hands its graphs to an fx backend.
using fx::Backend;
using fx::CompiledFn;

// A graph's op count and trace row are facts of the graph layer.
using fx::callNodeCount;
using fx::graphRow;

/// One compiled version of a frame (Dynamo's cache entry).
struct CacheEntry {
    int compileNumber = 0;
    vm::CompileOptions compiledWith;  // the backend and its settings: a call under another backend skips the entry
    // Dynamo's GLOBAL_STATE guard: a call under another grad mode or autocast state recompiles.
    tensor::AutocastStates autocast;
    bool gradEnabled = true;
    GuardTree guards{{}};
    std::shared_ptr<const Graph> graph;  // null when the trace recorded no operation
    CompiledFn compiled;
    std::vector<InputBinding> inputs;
    std::vector<int> inputAccessors;  // per input: its source's accessor in `guards` (read by the guards' check)
    bool returned = false;
    Rebuild returnValue;
    uint32_t breakPc = 0;
    std::vector<std::pair<uint32_t, Rebuild>> locals;
    std::vector<Rebuild> stack;
    std::vector<std::pair<uint32_t, Rebuild>> cells;
    std::vector<SideEffect> sideEffects;
    std::optional<GraphBreakInfo> graphBreak;
};

/// The cache of one code object, or of one resume point in it (Dynamo's resume functions).
struct FrameCache {
    int frameId = -1;
    std::string functionName;
    int firstLine = 0;
    std::vector<CacheEntry> entries;  // oldest first
    DynamicState dynamic;
    bool limitHit = false;
    bool skipped = false;  // a graph break with no resume point: the frame always runs eagerly (Dynamo's skip_code)
};

/// What explain() collects while it compiles.
struct ExplainRecord {
    std::vector<std::shared_ptr<const Graph>> graphs;
    std::vector<GraphBreakInfo> breaks;
    std::vector<GuardSpec> guards;
    /// Dynamo's ambient guards (init_ambient_guards), one set per compiled graph, in explain's out_guards:
    /// they are global-state checks, not guards on the frame's values, so the guard trees do not hold them.
    std::vector<std::string> ambientGuards;
};

/// Which TORCH_LOGS artifacts to print to stderr.
struct LogSettings {
    bool graphBreaks = false;
    bool recompiles = false;
    bool guards = false;
    bool graphCode = false;
    bool graphSizes = false;
    static LogSettings fromEnvironment();
};

class CaptureEngine : public vm::FrameHook, public fx::CompileHost {
public:
    explicit CaptureEngine(vm::Interpreter& vm);
    ~CaptureEngine() override;

    /// Installs the engine as the interpreter's frame hook and makes torch._dynamo / torch.compiler real.
    void install();
    void setEventSink(CompileEventSink* sink) { sink_ = sink; }
    void setLogSettings(LogSettings settings) { logs_ = settings; }
    void setLogStream(std::ostream* stream) { logStream_ = stream; }

    std::optional<vm::Value> onFrame(vm::Interpreter& interpreter, vm::Frame& frame, const vm::CompileOptions& options) override;

    /// torch._dynamo.reset(): forgets every cache and frame id (the counters stay, as in PyTorch).
    void reset();
    /// torch.compiler.set_stance(name).
    void setStance(const std::string& stance) { stance_ = stance; }
    const std::string& stance() const { return stance_; }
    /// Collects what compiles of the next calls produce (explain()); nullptr stops collecting.
    void setExplainRecord(ExplainRecord* record) { explain_ = record; }
    /// `cwb explain`: the next outermost compiled call compiles as explain() does (default options, the eager
    /// backend) and records what it compiles into `record`.
    void explainNextCall(ExplainRecord* record) { pendingExplain_ = record; }
    /// Graphs compiled so far (stats.unique_graphs).
    int uniqueGraphs() const { return uniqueGraphs_; }

    // fx::CompileHost: what graphs compiled outside a frame (compiled autograd's) take from the engine.
    vm::Interpreter& interpreter() override { return vm_; }
    CompileEventSink* eventSink() const override { return sink_; }
    int takeFrameId() override { return nextFrameId_++; }
    void countCompiledGraph(const Graph& graph) override;
    void countCounter(const std::string& group, const std::string& name, int64_t delta) override;
    std::ostream& log() override;
    /// reset() clears it, as torch._dynamo.reset() does.
    std::shared_ptr<void>& compiledAutogradState() override { return compiledAutogradState_; }

private:
    using CacheKey = std::pair<const frontend::CodeObject*, uint32_t>;
    /// `ownCode`: the frame is the compiled function's own (not one it calls while the callback is installed).
    vm::Value runCompiled(vm::Frame& frame, const vm::CompileOptions& options, bool ownCode);
    /// Runs a skipped frame eagerly; the functions it calls are still compiled.
    vm::Value evalSkippedFrame(vm::Frame& frame, const vm::CompileOptions& options);
    /// A compile that ends in Unsupported (fullgraph=True, or no resume point): counters and the compile's record.
    void failUnsupported(traces::Compile& compile, const GraphBreakInfo& info);
    /// The `[__graph_breaks]` log lines of one break (`reason` follows "Graph Break Reason: ").
    void logGraphBreak(const std::string& prefix, const GraphBreakInfo& info, const std::string& reason);
    CacheEntry* compileEntry(FrameCache& cache, vm::Frame& frame, const vm::ValueList& view, const vm::CompileOptions& options);
    vm::CompileOptions withInductorConfig(const vm::CompileOptions& options);
    vm::Value rebuild(const Rebuild& r, const vm::ValueList& outputs, const vm::ValueList& view, const vm::Namespace& globals);
    /// Writes an entry's side effects to the real lists, objects, dicts and globals after its graph ran.
    void replaySideEffects(const CacheEntry& entry, const vm::ValueList& outputs, const vm::ValueList& view, vm::Namespace& globals);
    void emitGraphBreak(const traces::CompileKey& key, const GraphBreakInfo& info);
    /// TORCH_LOGS at the start of a frame compile: +dynamo's stack, dynamo's Step 1, dynamic's create_env, bytecode.
    void logCompileStart(const vm::Frame& frame, const FrameCache& cache);
    /// The backend's cache lookups of this compile: trace artifacts and counters["inductor"].
    void reportCacheEvents(const traces::CompileKey& key, const std::vector<fx::CacheEvent>& events);
    void countGraphBreak(const std::string& reason);
    int recompileLimit();
    /// torch._dynamo.config's attributes.
    const vm::Namespace& dynamoConfig();
    /// config.compiled_autograd, with a handler registered.
    bool compiledAutogradEnabled(const vm::Namespace& config);
    /// config.disable (TORCHDYNAMO_DISABLE=1): compiled functions run eagerly.
    bool dynamoDisabled(const vm::Namespace& config);
    void installDynamoSurface();

    vm::Interpreter& vm_;
    CompileEventSink* sink_ = nullptr;
    LogSettings logs_;
    std::ostream* logStream_ = nullptr;
    std::map<CacheKey, std::unique_ptr<FrameCache>> caches_;
    std::vector<std::shared_ptr<const frontend::CodeObject>> keptCode_;  // keeps cache keys' addresses alive
    int nextFrameId_ = 0;
    int uniqueGraphs_ = 0;
    std::string stance_ = "default";
    ExplainRecord* explain_ = nullptr;
    ExplainRecord* pendingExplain_ = nullptr;
    std::map<std::string, int> loggedBreakSites_;
    const std::vector<std::shared_ptr<vm::CellObject>>* rebuildCells_ = nullptr;  // the breaking frame's cells, while rebuilt
    std::map<size_t, vm::Value> rebuiltLists_;  // the containers made by the trace, rebuilt once per call (by alias id)
    std::shared_ptr<void> compiledAutogradState_;
};

}  // namespace eng::capture
