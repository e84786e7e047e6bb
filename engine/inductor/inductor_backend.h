// torch.compile's default backend in cwb: lowers the captured graph, fuses it into kernels, generates code for the
// graph's device (LLVM on the CPU, CUDA C++ through NVRTC on GPUs) and runs it; records the generated code and
// every fusion decision for the trace. Graphs it cannot compile run on the eager runtime, with the reason recorded.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fx/backend.h"
#include "inductor/lowered_graph.h"

namespace eng::inductor {

enum class CodegenChoice { Native, Interpreter };

/// What torch.compile's mode and options ask of the backend.
struct InductorConfig {
    std::string mode = "default";
    CodegenChoice codegen = CodegenChoice::Native;  // CWB_INDUCTOR_CODEGEN=interpreter selects the reference
    bool autotune = false;      // max-autotune*, options max_autotune / max_autotune_pointwise
    bool cudaGraphs = false;    // reduce-overhead, max-autotune, options triton.cudagraphs
    bool debugTrace = false;    // options trace.enabled / debug: output code and kernels under torch_compile_debug/
    bool graphDiagram = false;  // options trace.graph_diagram: the fusion diagram as DOT next to them
    bool comboKernels = false;  // option combo_kernels, and AOT Autograd's optimizer-step graphs: fuseComboKernels
    bool coordinateDescent = false;  // option coordinate_descent_tuning (max-autotune modes set it): launch configs tuned
    bool aggressiveFusion = false;   // option aggressive_fusion: pointwise kernels fuse without shared reads
    bool fxGraphCache = true;        // schedules kept on disk across runs (fx_graph_cache.h)
    bool cppWrapper = false;         // option cpp_wrapper: the output code's wrapper written as C++
    bool shapePadding = true;        // option shape_padding: unaligned matrix products padded where that pays
    bool forceShapePad = false;      // option force_shape_pad: padded without timing
    bool freezing = false;           // option freezing: parameters folded as constants (grad mode off only)
    size_t maxFusionSize = kMaxFusionSize;  // option max_fusion_size
    bool opsInKernelNames = true;    // options triton.unique_kernel_names and triton.descriptive_names
    bool nanAsserts = false;         // option nan_asserts: outputs of each kernel checked for NaN and infinity
    int cpuThreads = -1;             // option cpp.threads
    bool cudaGraphsSkipDynamic = false;  // option triton.cudagraph_skip_dynamic_graphs
    /// AOT Autograd's inference graph (keep_input_mutations): (input, output) pairs whose output is the input's final
    /// value, copied into it after each call; their kernels store into the input instead where that is safe.
    std::vector<std::pair<int, size_t>> outputsUpdatingInputs;
    static InductorConfig from(const vm::CompileOptions& options);
};

class InductorBackend : public fx::Backend {
public:
    explicit InductorBackend(InductorConfig config) : config_(std::move(config)) {}
    fx::CompiledFn compile(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& exampleInputs) override;
    std::optional<traces::OutputCode> generatedCode() const override { return code_; }
    std::vector<traces::PhaseTime> phaseTimes() const override { return phases_; }
    void setRunNote(RunNote note) override { runNote_ = std::move(note); }
    /// Why the last graph ran eagerly instead (empty when it was compiled).
    const std::string& eagerReason() const { return eagerReason_; }

private:
    fx::CompiledFn runEagerly(std::shared_ptr<const fx::Graph> graph, std::string reason);

    InductorConfig config_;
    RunNote runNote_;
    std::optional<traces::OutputCode> code_;
    std::vector<traces::PhaseTime> phases_;
    std::string eagerReason_;
};

/// Registers "inductor" with capture's backend registry (cwb run / explain call this once).
void installInductorBackend();

/// The output code recorded for a graph that runs on the eager runtime: "# cwb BACKEND: this graph runs on the
/// eager runtime{how}" and the reason, so a trace says why no kernels were generated.
traces::OutputCode eagerFallbackCode(std::string_view backend, std::string_view how, std::string_view reason);

}  // namespace eng::inductor
