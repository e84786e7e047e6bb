// What lowering makes of a captured graph, in Inductor's terms: buffers (graph inputs, computed buffers with a
// pointwise or reduction body, extern kernels such as matmuls), in dependency order, and how the outputs are
// read from them. Bodies are closures from loop indices to element expressions whose loads name graph buffers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fx/graph_ir.h"
#include "inductor/ir/kernel_ir.h"
#include "tensor/device.h"
#include "vm/interpreter.h"

namespace eng::inductor {

/// Element i of a tensor value: maps one index expression per dimension to an expression (loads name graph
/// buffer ids until the scheduler renumbers them per kernel).
using Loader = std::function<ExprPtr(const std::vector<Index>& index)>;

/// Inductor's config.max_fusion_size: the most graph nodes one computed buffer's body fuses, and the most buffers
/// one kernel fuses. It bounds the depth of the expressions every later pass recurses over: a compiled loop of a
/// million additions is otherwise one expression a million deep.
constexpr size_t kMaxFusionSize = 64;
/// The largest max_fusion_size honoured: later passes recurse over a fused body's expression, one level per node.
constexpr size_t kMaxFusionSizeLimit = 1024;

enum class BufferKind { Input, Pointwise, Reduction, Extern };

/// An extern kernel's operand read in place from a computed buffer through constant strides (Inductor's
/// reinterpret_tensor): a permute/select/reshape of a matmul's output passed on without a copy kernel.
struct ExternView {
    std::vector<int64_t> sizes, strides;
    int64_t offset = 0;
};

/// An extern kernel: an eager runtime op called on realized buffers (matmuls go to cuBLAS / OpenBLAS this way,
/// and any op lowering does not know runs through it as Inductor's fallback kernels).
struct ExternCall {
    std::string op;             // registry op name, e.g. "torch.matmul", or the node's own callee
    const fx::Node* node = nullptr;  // the graph node it computes (its callee/args when op is empty)
    std::vector<int> inputBuffers;        // buffers read (realized before the call)
    std::vector<std::optional<ExternView>> inputViews;  // parallel to inputBuffers: the view of it passed, if any
    /// A library epilogue computed by the call (cuBLASLt's bias/activation), as the output code and the fusion
    /// decisions show it: "bias and relu fused into the cuBLASLt matmul epilogue"; empty when none.
    std::string epilogue;
    std::vector<std::string> epilogueNodes;  // graph nodes the epilogue computes (the activation's node)
    /// freezing: this call returns a constant computed once at compile time from frozen parameters (the
    /// expression it folds, "t(arg3_1)"); empty for every other extern call.
    std::string foldedConstant;
    /// An op with several results (a tuple, item 0 this buffer's) has a buffer for each other item it returns: such a
    /// buffer has this call as its one input buffer, no `call` of its own, and its item's index here (0: none).
    int resultItem = 0;
    /// Runs the op on the realized tensors of inputBuffers (in that order) and this call's symbol values.
    std::function<vm::Value(vm::Interpreter& vm, const vm::ValueList& inputs, const SymbolValues& symbols)> call;
};

struct GraphBuffer {
    int id = 0;
    std::string name;  // arg0_1 for inputs, buf0.. for computed ones (Inductor's names)
    BufferKind kind = BufferKind::Pointwise;
    DType dtype = DType::Float32;
    std::vector<Index> sizes;
    std::vector<Index> strides;  // layout in memory (computed buffers are contiguous)
    int inputIndex = -1;         // Input: which graph input
    bool isParameter = false;    // Input: an nn.Parameter (CUDA graphs read it in place instead of copying it)

    // Pointwise: value at `index` (one Index per size).
    Loader body;
    // Reduction: over `reductionSizes` of the input, keeping `sizes`; value(outerIndex, reductionIndex).
    ReductionOp reductionOp = ReductionOp::Sum;
    std::vector<Index> reductionSizes;
    std::function<ExprPtr(const std::vector<Index>& outer, const std::vector<Index>& reduction)> reductionBody;
    /// A reduction's iteration space as the scheduler groups it: the full sizes of the reduced input and which
    /// of its dims are reduced (a pointwise node over the same full sizes can share the kernel).
    std::vector<Index> fullSizes;
    std::vector<bool> reducedDims;

    ExternCall extern_;

    /// Graph nodes this buffer computes (for the fusion diagram: "which graph nodes went into which kernel").
    std::vector<std::string> originNodes;
    /// Written into an input's storage at the end (an in-place op on a graph input): the input's buffer id.
    int mutatesInput = -1;
};

/// A graph output: a buffer, a graph input passed through, or a number.
struct GraphOutput {
    enum class Kind { Buffer, Number, Symbol, None };
    Kind kind = Kind::Buffer;
    int buffer = -1;
    std::optional<ExternView> view;  // Buffer: a strided view of it (outputs that are views of one tensor eagerly)
    vm::Value number;
    Index symbolic;  // Symbol: a size expression (x.size(0) returned)
};

/// Where a size symbol's value comes from on each call.
struct SymbolSource {
    std::string name;
    int input = -1;  // graph input index
    int dim = -1;    // dimension of that input tensor, or -1 when the input is the SymInt itself
};

struct LoweredGraph {
    std::vector<GraphBuffer> buffers;  // in dependency order; inputs first
    std::vector<GraphOutput> outputs;
    std::vector<SymbolSource> symbols;
    tensor::Device device = tensor::kCpu;
    int inputCount = 0;
    /// Graph node name -> the op it calls (sin, mul, softmax): kernels are named after the ops they fuse.
    std::map<std::string, std::string> opOfNode;
    /// What the graph-level passes did (freezing, shape padding), one line each, for the output code.
    std::vector<std::string> passNotes;

    GraphBuffer& add(GraphBuffer buffer) {
        buffer.id = static_cast<int>(buffers.size());
        buffers.push_back(std::move(buffer));
        return buffers.back();
    }
};

/// Raised when a graph cannot be lowered as a whole (the backend then runs it eagerly and says why).
class LoweringError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// What the inductor options ask of lowering (InductorConfig::loweringOptions).
struct LoweringOptions {
    /// shape_padding: mm/bmm/addmm operands padded to aligned sizes where that pays (lowering_pad_mm.cpp).
    bool shapePadding = true;
    /// force_shape_pad: pad every unaligned product padding applies to, without timing both forms.
    bool forceShapePad = false;
    /// Devices whose products are padded: CUDA, as Inductor's can_pad (tensor cores want aligned sizes; a CPU BLAS
    /// gains nothing from them).
    std::vector<tensor::DeviceType> paddingDevices{tensor::DeviceType::CUDA};
    /// freezing with grad mode off: parameters and buffers are constants of the graph and what is computed from
    /// them alone is folded at compile time (lowering_freezing.cpp).
    bool freezing = false;
    /// Runs the folded ops (constant folding calls the eager ops); freezing folds nothing without it.
    vm::Interpreter* vm = nullptr;
    /// max_fusion_size: a body computing more graph nodes than this is computed into a buffer.
    size_t maxFusionSize = kMaxFusionSize;
};

/// Lowers a captured graph for the given example inputs (one per placeholder).
LoweredGraph lowerGraph(const fx::Graph& graph, const vm::ValueList& exampleInputs, const LoweringOptions& options = {});

}  // namespace eng::inductor
