// What a graph compiled outside a Python frame (compiled autograd's backward graphs) needs from the engine that
// compiles the frames: Dynamo's one frame counter, torch._dynamo.utils.counters, the compile event sink and the
// log. The capture engine implements it; compiled autograd (engine/aot) is handed it and never sees capture.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "fx/graph_ir.h"
#include "tensor/autograd/engine.h"
#include "vm/interpreter.h"

namespace eng::capture {
class CompileEventSink;  // capture/compile_events.h: the contract, a header-only library of its own
}

namespace eng::fx {

class CompileHost {
public:
    virtual ~CompileHost() = default;
    virtual vm::Interpreter& interpreter() = 0;
    /// Where compile events go; null when nobody listens.
    virtual capture::CompileEventSink* eventSink() const = 0;
    /// The next frame id of Dynamo's one counter (a compile of its own takes one, as `!0/2/0` does).
    virtual int takeFrameId() = 0;
    /// The counters a compiled graph adds (stats.unique_graphs, stats.calls_captured).
    virtual void countCompiledGraph(const Graph& graph) = 0;
    /// torch._dynamo.utils.counters[group][name] += delta.
    virtual void countCounter(const std::string& group, const std::string& name, int64_t delta) = 0;
    /// The TORCH_LOGS stream.
    virtual std::ostream& log() = 0;
    /// Compiled autograd's cache and ids, kept by its handler; torch._dynamo.reset() clears them.
    virtual std::shared_ptr<void>& compiledAutogradState() = 0;
};

/// Compiled autograd (`torch._dynamo.config.compiled_autograd = True`): while a compiled function runs, each backward
/// pass is offered to this handler (AOT Autograd registers it) with the call's compile options; it captures and
/// compiles the pass as its own graph (true) or declines, and the eager engine runs it.
using CompiledAutogradHandler =
    std::function<bool(CompileHost& host, const vm::CompileOptions& options, const tensor::autograd::RootGradients& start, bool retainGraph)>;
void registerCompiledAutograd(CompiledAutogradHandler handler);
/// The registered handler; empty when none is.
const CompiledAutogradHandler& compiledAutogradHandler();

}  // namespace eng::fx
