// AOT Autograd as torch.compile backends: "inductor" and "aot_eager" compile a captured graph whose inputs require
// grad (under grad mode) into a forward and a backward graph (joint trace, functionalisation, min-cut partition),
// compile both passes (inductor) or run them on the eager runtime (aot_eager), and connect them to the eager
// autograd graph as one CompiledFunctionBackward node. Graphs without autograd go to the plain backends.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aot/partition.h"
#include "fx/backend.h"
#include "tensor/autograd/node.h"

namespace eng::aot {

/// The backward of one compiled training graph, as its CompiledFunctionBackward nodes describe it to compiled
/// autograd, which inlines it into the graph of a whole backward pass: the partition's backward graph (placeholders:
/// the saved values, then one tangent per output that requires grad; outputs: one gradient per input edge).
struct CompiledBackwardGraph final : tensor::autograd::BackwardDescription {
    std::shared_ptr<const fx::Graph> graph;
    size_t savedCount = 0;
    bool dynamicShapes = false;  // symbolic sizes in the graph (SymInts among the saved values, dims of its nodes)
    /// A backward under create_graph runs, but its gradients cannot be differentiated again, as in PyTorch.
    std::optional<std::string> doubleBackwardRefusal() const override {
        return "torch.compile with aot_autograd does not currently support double backward";
    }
};

enum class PassCompiler { Inductor, Eager };

class AotBackend : public fx::Backend {
public:
    AotBackend(vm::CompileOptions options, PassCompiler passes);
    fx::CompiledFn compile(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& exampleInputs) override;
    /// Graphs that stay on the eager path or have no autograd: the pass compiler's code (or the fallback's reason).
    std::optional<traces::OutputCode> generatedCode() const override { return code_; }
    /// Training graphs: the forward's and the backward's code (one row for aot_eager).
    std::vector<traces::OutputCode> generatedCodes() const override { return codes_.empty() ? Backend::generatedCodes() : codes_; }
    /// The joint, forward and backward graphs, and the post-grad graphs the inductor compiled.
    std::vector<StageGraph> stageGraphs() const override { return stages_; }
    std::vector<traces::PhaseTime> phaseTimes() const override { return phases_; }
    void setRunNote(RunNote note) override { runNote_ = std::move(note); }
    /// Why the last graph kept the eager runtime's autograd (empty when AOT Autograd compiled it).
    const std::string& fallbackReason() const { return fallbackReason_; }

private:
    /// The captured graph on the eager runtime, the output code saying why.
    fx::CompiledFn eagerFallback(std::shared_ptr<const fx::Graph> graph, std::string reason);
    /// compile() of a graph without autocast (its casts written out, when it had any).
    fx::CompiledFn compileCaptured(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& exampleInputs);
    /// A graph that runs without grad and writes inputs that require grad (an optimizer step): AOT Autograd's
    /// inference graph with its epilogue (inference_graph.h).
    fx::CompiledFn compileMutatingInference(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& exampleInputs);
    /// An inference compile's stages under its AOT id: `graph` as aot_inference_graph, and as the post-grad graph its
    /// kernels' nodes refer to when `postGrad`; the output code's first line names the id.
    void recordInferenceStages(std::shared_ptr<const fx::Graph> graph, bool postGrad);
    /// The pass compiler on one graph (forward, backward, or an inference graph): its callable and code. With
    /// `comboKernels` (an optimizer step, whose foreach ops Inductor always fuses horizontally) independent
    /// kernels of different sizes become combo kernels.
    fx::CompiledFn compilePass(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& examples,
                                    std::optional<traces::OutputCode>& code, std::vector<traces::PhaseTime>& phases, bool comboKernels = false,
                                    const std::vector<std::pair<int, size_t>>& outputsUpdatingInputs = {});

    vm::CompileOptions options_;
    PassCompiler passes_;
    RunNote runNote_;
    std::optional<traces::OutputCode> code_;
    std::vector<traces::OutputCode> codes_;
    std::vector<StageGraph> stages_;
    std::vector<traces::PhaseTime> phases_;
    std::string fallbackReason_;
};

/// Registers "inductor" and "aot_eager" with AOT Autograd in front (cwb run / explain call this after
/// installInductorBackend).
void installAotAutograd();

}  // namespace eng::aot
