// What the capture engine reports while it compiles, as rows of the trace model, so that an engine run and an
// imported TORCH_TRACE log land in one schema. The engine only emits; recorders (trace file, stats) listen.
#pragma once

#include <string>
#include <vector>

#include "model/trace_model.h"

namespace eng::capture {

/// Receives every compile event of one run, in the order they happen, on the interpreter's thread.
/// Row ids inside the passed rows are left 0: a recorder assigns its own and links rows by `CompileKey`.
class CompileEventSink {
public:
    virtual ~CompileEventSink() = default;

    /// A frame compile begins (Dynamo's dynamo_start). `compile` carries key, function, file, firstLine,
    /// startTime and cacheSize; `userStack` is the user's Python stack at the call, outermost first.
    virtual void compileStarted(const traces::Compile& compile, const traces::Stack& userStack) = 0;
    /// The guard failures that made this compile a recompile, one per rejected cache entry
    /// ("0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8" has failedCompile "0/0"). Sent before
    /// compileStarted, as Dynamo logs them, and also for a compile that the recompile limit then refuses.
    virtual void recompileReasons(const traces::CompileKey& key, const std::vector<traces::GuardFailure>& failures) = 0;
    /// A captured graph: kind Dynamo for the FX graph handed to the backend (text as FX prints it, with shapes).
    virtual void graphCaptured(const traces::CompileKey& key, const traces::Graph& graph) = 0;
    /// The guards installed for this compile's cache entry, in tree order (depth set), as Dynamo prints them.
    virtual void guardsInstalled(const traces::CompileKey& key, const std::vector<traces::Guard>& guards) = 0;
    /// A graph break inside this compile (reason in Dynamo's wording, user file/line/stack).
    virtual void graphBreak(const traces::CompileKey& key, const traces::GraphBreak& graphBreak) = 0;
    /// Generated code of the backend for this compile (kernels with their fused nodes), when there is any.
    virtual void outputCode(const traces::CompileKey& key, const traces::OutputCode& code) = 0;
    /// A cache lookup of the backend (Inductor's FX graph cache), as TORCH_TRACE logs it: the artifact
    /// `fx_graph_cache_hit` / `_miss` / `_bypass` with its JSON payload (key, components, cache_state, reason).
    virtual void cacheLookup(const traces::CompileKey& key, const std::string& artifactName, const std::string& payload) {
        (void)key, (void)artifactName, (void)payload;
    }
    /// A message Dynamo logs as a warning, e.g. the recompile-limit warning, verbatim.
    virtual void warning(const traces::CompileKey& key, const std::string& text) = 0;
    /// The compile is over: status (Ok, Failed with failType/failReason), counts (guardCount, opCount,
    /// nodeCount, inputCount), restartReasons and phases (seconds per phase) filled in.
    virtual void compileFinished(const traces::Compile& compile) = 0;
};

}  // namespace eng::capture
