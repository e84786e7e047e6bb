// Shared state of the lowering passes (lowering*.cpp): the value each graph node lowered to (a tensor as a
// loader over index expressions, a number, a size expression, or a list), argument reading, broadcasting,
// type promotion and realization of values into buffers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cuda/blas.h"
#include "inductor/lowered_graph.h"
#include "tensor/linalg.h"
#include "tensor/view_ops.h"

namespace eng::inductor::lowering {

/// A graph node's value during lowering.
struct LValue {
    enum class Kind { Tensor, Number, Size, List, None };
    Kind kind = Kind::None;
    // Tensor
    DType dtype = DType::Float32;
    std::vector<Index> sizes{};
    Loader loader{};
    int buffer = -1;                     // the value is exactly this buffer (read in its own layout)
    std::vector<std::string> origins{};  // graph nodes computed by this value's body
    // Number / Size
    vm::Value number{};
    Index size{};
    // List (tuples too)
    std::vector<LValue> items{};

    bool isTensor() const { return kind == Kind::Tensor; }
    bool isScalar() const { return kind == Kind::Number || kind == Kind::Size; }
    int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
};

LValue numberValue(vm::Value v);
LValue sizeValue(Index size);
std::vector<Index> contiguousStrides(const std::vector<Index>& sizes);
bool sameIndex(const Index& a, const Index& b);
bool sameSizes(const std::vector<Index>& a, const std::vector<Index>& b);
/// Dot product of an index with strides.
Index offsetOf(const std::vector<Index>& index, const std::vector<Index>& strides);

class Lowering;

/// The op name a node lowers by: torch.sin -> sin, operator.mul -> mul, x.relu() -> relu.
std::string nodeOpName(const fx::Node& node);
/// Whether the node writes an argument (x.mul_(y), x += y; the op registry's marks, fx::writtenArguments).
bool nodeIsInPlace(const fx::Node& node);
/// A node's argument as Python binds it: the keyword `name` if given, else position `position`; null if absent.
const fx::Arg* findArg(const fx::Node& node, size_t position, const std::string& name);

/// Positional-or-keyword access to a node's arguments, as Python binds them.
class NodeArgs {
public:
    NodeArgs(Lowering& lowering, const fx::Node& node) : lowering_(lowering), node_(node) {}
    bool has(size_t position, const std::string& name) const;
    LValue get(size_t position, const std::string& name) const;
    LValue tensor(size_t position, const std::string& name) const;
    /// A number argument (error if absent and no default).
    double number(size_t position, const std::string& name, std::optional<double> fallback = std::nullopt) const;
    int64_t integer(size_t position, const std::string& name, std::optional<int64_t> fallback = std::nullopt) const;
    bool flag(size_t position, const std::string& name, bool fallback) const;
    /// A dim list: an int or a list/tuple of ints, absent -> nullopt.
    std::optional<std::vector<int64_t>> dims(size_t position, const std::string& name) const;
    std::optional<DType> dtype(size_t position, const std::string& name) const;
    std::string text(size_t position, const std::string& name, const std::string& fallback) const;
    size_t positionalCount() const { return node_.args.size(); }

private:
    const fx::Arg* find(size_t position, const std::string& name) const;
    Lowering& lowering_;
    const fx::Node& node_;
};

class Lowering {
public:
    Lowering(const fx::Graph& graph, const vm::ValueList& examples, const LoweringOptions& options = {});
    LoweredGraph run();
    const LoweringOptions& options() const { return options_; }

    // --- used by the op lowerings ---
    LValue valueOf(const fx::Arg& arg);
    /// A tensor operand from any value (numbers become 0-dim constants).
    LValue asTensor(const LValue& value, DType dtypeForNumbers);
    /// Makes the value a buffer of its own (contiguous) unless it already is one; returns the buffer id.
    int realize(LValue& value, const std::string& origin);
    /// An extern kernel computing `node` eagerly from the realized tensor arguments.
    LValue externFallback(const fx::Node& node);
    /// An extern kernel of our own: `call` gets the realized `inputs` and returns a tensor of `sizes` and `dtype`.
    LValue externCall(const std::string& op, std::vector<LValue> inputs, std::vector<Index> sizes, DType dtype,
                      std::function<vm::Value(const vm::ValueList&)> call);
    /// The loader of a realized buffer in its own layout.
    Loader bufferLoader(int buffer);
    /// The tensor value that is exactly buffer `id`.
    LValue bufferValue(int id);
    GraphBuffer& buffer(int id) { return graph_.buffers.at(static_cast<size_t>(id)); }
    LoweredGraph& graph() { return graph_; }
    /// Evaluate a size expression with the example inputs' symbol values.
    int64_t hint(const Index& size) const;
    std::vector<int64_t> hints(const std::vector<Index>& sizes) const;
    const fx::Node* currentNode() const { return current_; }
    /// The node that reads `node` when exactly one argument of the whole graph does (an epilogue candidate).
    const fx::Node* soleUser(const fx::Node& node) const;
    /// `user` was computed as part of an earlier node (a library epilogue): it lowers to `value` as it is.
    void absorb(const fx::Node& user, const LValue& value) { absorbed_[&user] = value; }
    std::string newBufferName() { return "buf" + std::to_string(computedCount_++); }
    /// When `value` only reads one buffer through index arithmetic (a view, computing nothing): that load, its
    /// index over the loop variables x0, x1, ... of value's dims; else null.
    ExprPtr viewedLoad(const LValue& value) const;
    /// When `value` reads one computed buffer at constant strides: the buffer and that view of it, which an
    /// extern call can take in place. A graph input is viewed so only for `readOnly` calls (the op writes no
    /// argument) and when it is declared contiguous: an input arriving in another layout is made contiguous
    /// (CompiledGraph::bindInputs), so only then do the view's strides still hold.
    std::optional<std::pair<int, ExternView>> stridedView(const LValue& value, bool readOnly = false) const;
    /// Appends `input` to an extern call's operands: a view of its buffer when stridedView finds one, else the
    /// buffer it is realized into (which `input` then reads). `readOnly`: the call writes none of its operands.
    void addExternInput(ExternCall& call, LValue& input, const std::string& origin, bool readOnly);

private:
    // freezing (lowering_freezing.cpp)
    /// Picks the graph inputs that are parameters or buffers and so constants of the graph, unless an in-place op
    /// reaches one (what it writes must reach the module, as eagerly): then nothing is frozen, and a note says why.
    void chooseFrozenInputs();
    /// A node computed from frozen tensors alone by a deterministic op: its value, computed now, as a constant
    /// buffer; nullopt when the node is computed as usual.
    std::optional<LValue> foldFrozen(const fx::Node& node);

    void lowerPlaceholder(const fx::Node& node, size_t inputIndex);
    LValue lowerCall(const fx::Node& node);
    // True when the node reads or makes a complex tensor (it then runs as an extern kernel).
    bool touchesComplex(const fx::Node& node) const;
    void lowerOutput(const fx::Node& node);
    void checkAgainstExample(const fx::Node& node, const LValue& value) const;
    /// `output` as its buffer or a strided view of the buffer of `root`, the tensor whose storage it and the
    /// other outputs in `sharing` are eagerly; throws when it cannot be one.
    std::pair<int, std::optional<ExternView>> viewOfStorage(const fx::Node& output, const fx::Node& root,
                                                            const std::vector<const fx::Node*>& sharing) const;
    /// The tensor whose storage `node`'s value is, following views and in-place results to their first argument.
    const fx::Node* storageRoot(const fx::Node* node) const;
    /// Whether `node` is (an in-place result of) a view op's result.
    bool isViewNode(const fx::Node* node) const;
    /// Whether a view op's node shares its first argument's storage: x.to(torch.bfloat16) of a float32 x is a copy
    /// (autocast's weight casts), so a SelfWhenUnchanged op aliases only where the traced examples share storage.
    static bool aliasesItsInput(const tensor::ViewOp& view, const fx::Node& node, const fx::Node& self) {
        return view.aliasing == tensor::ViewAliasing::View || !node.example.is(vm::Kind::Tensor) || !self.example.is(vm::Kind::Tensor) ||
               node.example.as<vm::TensorObject>().value.sharesStorageWith(self.example.as<vm::TensorObject>().value);
    }
    /// Whether `node` is an item of `self`'s tuple that shares storage with no other item and no tensor argument of
    /// `self` (native_layer_norm's output and statistics): then it is no view of the others.
    static bool distinctItem(const fx::Node& node, const fx::Node& self);
    /// Throws when an in-place op on `self` would have to reach a view's base or a view taken earlier.
    void checkInPlaceTarget(const fx::Node& node, const fx::Node& self) const;

    const fx::Graph& source_;
    const vm::ValueList& examples_;
    LoweringOptions options_;
    /// freezing: graph inputs that are constants and nodes folded from them -> their value at compile time.
    std::map<const fx::Node*, tensor::Tensor> frozen_;
    int foldedCount_ = 0;
    LoweredGraph graph_;
    std::map<const fx::Node*, LValue> values_;
    std::map<const fx::Node*, int> users_;
    std::map<const fx::Node*, const fx::Node*> lastUser_;  // with users_ == 1: the sole user
    std::map<const fx::Node*, LValue> absorbed_;
    SymbolValues hints_;
    const fx::Node* current_ = nullptr;
    int computedCount_ = 0;
    std::map<const fx::Node*, int> placeholderBuffer_;
    std::map<const fx::Node*, const fx::Node*> aliasOf_;  // in-place results -> the input they mutated
    std::map<const fx::Node*, int> lastWriteBack_;             // input -> buffer written back into it
    std::map<const fx::Node*, const fx::Node*> storageBase_;  // views and in-place results -> operand
    std::map<const fx::Node*, const fx::Node*> inPlaceSelf_;  // in-place results -> their operand
    std::map<const fx::Node*, tensor::Tensor> inputExamples_;      // tensor placeholders -> example input
    bool deviceChosenByRealInput_ = false;  // graph_.device came from an input that is not a 0-d cpu tensor
};

/// linear on CUDA as one cuBLASLt call with its epilogue (lowering_linear.cpp); nullopt where it does not apply
/// (the CPU, other dtypes, a symbolic weight), which keeps matmul + a pointwise bias.
std::optional<LValue> lowerLinearLt(Lowering& lowering, const fx::Node& node, NodeArgs& args);
/// linear on the CPU where oneDNN takes the product (tensor::cpuBiasFusesInProduct, the eager op's rule) and there
/// is a bias or an activation to fuse (lowering_linear.cpp): one extern call to tensor::linearWithActivation, which
/// adds the bias and applies the activation in oneDNN's matmul; nullopt elsewhere (matmul + a pointwise kernel).
std::optional<LValue> lowerLinearOneDnn(Lowering& lowering, const fx::Node& node, NodeArgs& args);
/// The activation a linear's library call on `device` applies for `soleUser` (its only reader), the one choice of
/// both libraries: relu (not in place) on both; gelu(approximate='tanh') on CUDA in float32 only (eager rounds a
/// 16-bit linear's result before the GELU, cuBLASLt's epilogue would not; relu alone commutes with that rounding),
/// and both GELU forms on the CPU (oneDNN's eltwise_gelu_tanh / eltwise_gelu_erf; cuBLASLt has no exact GELU).
/// *absorbed is then that reader, computed by the call; None (and null) where nothing fuses.
tensor::LinearActivation chooseLinearEpilogue(const fx::Node& linear, tensor::DType dtype, tensor::DeviceType device,
                                              const fx::Node* soleUser, const fx::Node** absorbed);
/// The activation as the output code names it ("relu", "gelu", "gelu(approximate='tanh')"; "" for None).
std::string linearActivationName(tensor::LinearActivation activation);

/// shape_padding of a CUDA linear (lowering_pad_mm.cpp): the rows to add to its weight, so that its output's rows are
/// aligned (cuBLAS writes an unaligned leading dim slowly: the 50257-wide GPT-2 head), when pad_mm would pad the same
/// product; 0 when not. The output is then read in place at the padded row stride.
int64_t linearOutputPadding(Lowering& lowering, const fx::Node& node, const LValue& x, const LValue& w);
/// `x` with `pad` zeros after the end of each dim of `pads` (dim -> count) (lowering_pad_mm.cpp).
LValue padWithZeros(Lowering& lowering, const LValue& x, const std::map<int64_t, int64_t>& pads);
/// Realizes `value`, read by several nodes, into a buffer; Inductor's comprehensive_padding on the padding devices: a
/// floating value whose last dim is constant, unaligned and over 1024 wide gets rows padded to 128 bytes (its buffer's
/// row stride; the padding is never read), so the matrix products reading it get aligned leading dims.
void realizeShared(Lowering& lowering, LValue& value, const std::string& origin);
/// torch.ops.higher_order.cond: an extern kernel that runs the branch its predicate picks (lowering_cond.cpp); a
/// list of its one output.
LValue lowerCond(Lowering& lowering, const fx::Node& node);

/// The output sizes of an extern kernel for `node` derived from its operands' sizes (mm, bmm, matmul, cat, stack;
/// lowering_extern_shapes.cpp); nullopt for other ops.
std::optional<std::vector<Index>> externOutputSizes(Lowering& lowering, const fx::Node& node);

// Pointwise building blocks shared by the families (lowering_pointwise.cpp).
DType promote(const std::vector<const LValue*>& operands);
std::vector<Index> broadcastSizes(const std::vector<Index>& a, const std::vector<Index>& b);
/// The operand's element at `index` of a broadcast result with `resultSizes`, cast to `dtype`.
ExprPtr broadcastLoad(const LValue& operand, const std::vector<Index>& index, const std::vector<Index>& resultSizes, DType dtype);
/// A tensor value computed elementwise from operands (broadcast together) by `body`, which sees each operand's
/// element already cast to computeDtype; the result is cast to resultDtype.
LValue mapElements(const std::vector<LValue>& operands, DType computeDtype, DType resultDtype,
                   std::function<ExprPtr(const std::vector<ExprPtr>&)> body);
/// The dtype math happens in for a result dtype (float for the 16-bit floats, as Inductor's opmath).
DType computeTypeFor(DType dtype);
/// Union of origin lists.
std::vector<std::string> mergeOrigins(const std::vector<LValue>& operands, const std::string& self);

/// A reduction of `input` over `dims` (normalised, sorted) with its element function applied to the input's
/// value (already in the accumulation dtype); the result is a new Reduction buffer's value.
LValue reduce(Lowering& lowering, const LValue& input, const std::vector<int64_t>& dims, bool keepdim, ReductionOp op,
              DType accumulate, std::function<ExprPtr(ExprPtr)> element = nullptr);

}  // namespace eng::inductor::lowering
