// A graph compiled by the inductor backend, ready to call: the lowered buffers, the schedule of generated kernels
// and extern calls, and the launcher that runs the kernels on the graph's device.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "inductor/in_place_stores.h"
#include "inductor/ir/kernel_launcher.h"
#include "inductor/lowered_graph.h"
#include "inductor/scheduler.h"

namespace eng::inductor {

/// An extern kernel returned a tensor the compiled code cannot use: other sizes than the graph was compiled for (its
/// sizes were taken from the trace, which names at most one symbol per dimension), another dtype, or a device other
/// than the one the graph's kernels run on while a kernel reads it.
struct ExternResultMismatch : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class CompiledGraph {
public:
    CompiledGraph(LoweredGraph graph, Schedule schedule, std::unique_ptr<KernelLauncher> launcher);

    /// Runs the graph on one call's inputs (one per placeholder); returns the outputs.
    vm::ValueList run(vm::Interpreter& vm, const vm::ValueList& inputs);

    const LoweredGraph& graph() const { return graph_; }
    const Schedule& schedule() const { return schedule_; }
    const KernelLauncher& launcher() const { return *launcher_; }
    /// The symbol values of the example inputs (for launch configurations shown in traces).
    SymbolValues symbolValues(const vm::ValueList& inputs) const;
    /// reduce-overhead: from the second call on, kernels and capture-safe extern calls (library matmuls) replay as
    /// a CUDA graph recorded once per set of sizes and parameter addresses; other inputs are copied into the
    /// recording's static buffers, what the externs allocate while recording comes from the recording's private
    /// memory pool, and outputs are the recording's buffers (overwritten by the next call, as PyTorch's cudagraph
    /// outputs are). A recording that fails (an extern that synchronises) turns CUDA graphs off for this graph.
    void enableCudaGraphs();
    int cudaGraphRecordings() const { return static_cast<int>(recordings_.size()); }
    /// Why recording failed and the graph went back to plain runs; empty while CUDA graphs work (or are off).
    const std::string& cudaGraphFailure() const { return cudaGraphFailure_; }
    /// Where the first run's facts go (fx::Backend::setRunNote): each kernel's tuning result under `tuningLabel`
    /// ("max-autotune", "coordinate_descent_tuning"; empty when the launcher tunes nothing), and why a CUDA graph
    /// could not be recorded.
    void setRunNote(std::function<void(const std::string&)> note, std::string tuningLabel) {
        runNote_ = std::move(note);
        tuningLabel_ = std::move(tuningLabel);
    }
    /// The buffers stored into the inputs they update (planInPlaceStores, with their kernels marked aliased). On
    /// each call a buffer is bound to its input's tensor when the caller's tensor is bound as it is (same layout, same
    /// device) and shares its storage with no other input; otherwise it gets memory of its own and is copied back.
    void setInPlaceStores(InPlaceStores plan) { inPlace_ = std::move(plan); }
    /// nan_asserts: after each kernel and library call, the floating buffers it wrote are checked for NaN and
    /// infinity, and AssertionError names the first that holds one (as Inductor's wrapper asserts after each buffer).
    void setNanAsserts(bool on) { nanAsserts_ = on; }
    const InPlaceStores& inPlaceStores() const { return inPlace_; }
    /// After an ExternResultMismatch: the graph runs on the eager runtime from now on, and the run note says why.
    void fallBackToEager(const std::string& reason);
    /// Why the graph runs eagerly; empty while the compiled code runs.
    const std::string& eagerFallback() const { return eagerFallback_; }

private:
    struct Recording;
    /// The sizes and strides of the buffers a call allocates or checks (inputs, stored buffers, extern results)
    /// for one set of symbol values: a static graph evaluates them once, a dynamic one again when its symbols
    /// change. Shared so that a call keeps its own while a nested call of the graph replaces the cached one.
    struct Layouts {
        SymbolValues symbols;
        std::vector<std::vector<int64_t>> sizes, strides;  // per buffer; empty for fused buffers
    };
    std::shared_ptr<const Layouts> layoutsFor(const SymbolValues& symbols);
    /// The checked input tensors (contiguous copies where the layout differs).
    std::vector<tensor::Tensor> bindInputs(const vm::ValueList& inputs, const Layouts& layouts) const;
    vm::ValueList outputsOf(const std::vector<tensor::Tensor>& tensors, const vm::ValueList& inputs, const SymbolValues& symbols) const;
    void launchKernel(size_t index, const std::vector<tensor::Tensor>& tensors, const SymbolValues& symbols);
    /// Runs extern step `buffer` on `tensors` and returns its (contiguous) output.
    tensor::Tensor runExtern(vm::Interpreter& vm, int buffer, const std::vector<tensor::Tensor>& tensors, const SymbolValues& symbols,
                             const Layouts& layouts);
    /// A stored buffer's memory for this call (padded rows zero-filled in their padding).
    tensor::Tensor allocateStored(size_t id, const Layouts& layouts) const;
    /// Binds each planned in-place buffer to its input's tensor where this call allows it (setInPlaceStores); per buffer,
    /// whether it was.
    std::vector<bool> bindInPlaceStores(const vm::ValueList& inputs, const Layouts& layouts, std::vector<tensor::Tensor>& tensors) const;
    vm::ValueList runPlain(vm::Interpreter& vm, const vm::ValueList& inputs, const SymbolValues& symbols, const Layouts& layouts);
    /// The step's row in CWB_PROFILE_STEPS' table (inductor/step_profile.h).
    std::string stepLabel(const ScheduleStep& step, const std::vector<tensor::Tensor>& tensors, const SymbolValues& symbols) const;
    std::optional<vm::ValueList> replay(vm::Interpreter& vm, const vm::ValueList& inputs, const SymbolValues& symbols, const Layouts& layouts);

    LoweredGraph graph_;
    Schedule schedule_;
    std::unique_ptr<KernelLauncher> launcher_;
    std::vector<int> lastUse_;  // per buffer: the last step reading it (freed after), -1 when kept to the end
    // Per step of a plain run: the stored buffers first touched there (allocated just before it, so that a buffer
    // freed after its last reader is memory for the next ones, where allocating all at the call's start held every
    // intermediate of a backward at once), and those freed after it; startAllocations_ those no step touches.
    std::vector<std::vector<int>> allocateBefore_, freeAfter_;
    std::vector<int> startAllocations_;
    /// (buffer of an extern call, item): the other results of a call with several, until their own buffers' steps take them.
    std::map<std::pair<int, int>, vm::Value> otherResults_;
    std::vector<bool> kernelArgument_;  // per buffer: whether a kernel takes its address (it must be on graph_.device)
    std::vector<bool> evaluatedLayout_;  // per buffer: whether a call allocates or checks it (Layouts holds its sizes)
    std::shared_ptr<const Layouts> layouts_;  // the last call's
    bool cudaGraphs_ = false;
    bool nanAsserts_ = false;
    void assertFinite(const ScheduleStep& step, const std::vector<tensor::Tensor>& tensors) const;
    int cudaGraphFunctionId_ = -1;  // TORCH_LOGS=cudagraphs: this graph's number among those using CUDA graphs
    int calls_ = 0;
    std::map<std::vector<int64_t>, std::shared_ptr<Recording>> recordings_;
    std::string cudaGraphFailure_;
    std::function<void(const std::string&)> runNote_;
    std::string tuningLabel_;  // cleared once the first run noted each kernel's tuning
    std::string eagerFallback_;
    InPlaceStores inPlace_;
    std::vector<bool> profiledOnce_;  // CWB_PROFILE_STEPS: per step, whether it ran once (its first run is not timed)
};

}  // namespace eng::inductor
