// The loop-level kernel IR between the scheduler and the code generators: index arithmetic over loop variables
// and size symbols, per-element expressions, and kernels made of a pointwise pass or of reduction passes over
// rows (one fused softmax / layer-norm row is one kernel). CUDA C++ and LLVM IR are both generated from it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "ops/elementwise.h"
#include "tensor/dtype.h"

namespace eng::inductor {

using tensor::DType;

// ---------------------------------------------------------------------------------------------------------
// Index arithmetic: integer expressions of loop variables (x0, x1, ... then r0, r1, ...) and size symbols
// (s0, s1: dynamic dimensions, passed to kernels as int64 arguments). Immutable, shared, folded as built.

struct IndexNode;
using Index = std::shared_ptr<const IndexNode>;

struct IndexNode {
    enum class Op { Constant, Var, Symbol, Add, Mul, FloorDiv, Mod };
    Op op = Op::Constant;
    int64_t value = 0;   // Constant: the value; Var: the variable number
    std::string symbol;  // Symbol: its name ("s0")
    Index lhs, rhs;      // Add/Mul/FloorDiv/Mod (operands are non-negative wherever kernels use them)
};

Index indexConstant(int64_t value);
Index indexVar(int number);
Index indexSymbol(const std::string& name);
Index operator+(const Index& a, const Index& b);
Index operator*(const Index& a, const Index& b);
Index floorDiv(const Index& a, const Index& b);
Index modulo(const Index& a, const Index& b);
std::optional<int64_t> constantValue(const Index& index);
/// Structural equality (the same expression tree).
bool indexEqual(const Index& a, const Index& b);
/// Product of sizes (1 for none).
Index product(std::span<const Index> sizes);

/// Values of the size symbols of one call: name -> value.
using SymbolValues = std::map<std::string, int64_t>;
int64_t evaluate(const Index& index, std::span<const int64_t> vars, const SymbolValues& symbols);
/// The coefficient of variable `number` if `index` is affine in it with a constant coefficient (0 when the
/// variable does not occur); nullopt when it occurs under FloorDiv/Mod or with a symbolic coefficient.
/// Code generators use it to see contiguous (1) and broadcast (0) accesses.
std::optional<int64_t> constantStrideOf(const Index& index, int number);
/// Every symbol the index mentions, added to `out`.
void collectSymbols(const Index& index, std::vector<std::string>& out);
/// C syntax with variables named by `varName` (default x0.., r0.. per kernel: see Kernel::varName).
std::string toString(const Index& index);

// ---------------------------------------------------------------------------------------------------------
// Element expressions. Every expression has a dtype; operands of a binary op have the same dtype (lowering
// inserts casts); comparisons and logical ops give Bool. Loads give the buffer's dtype and a store's value has
// its buffer's dtype, so half/bfloat16 math appears as Cast(Float32) after loads and Cast(half) before stores.

enum class ElementOp {
    // the math functions of ops/unary_math.def, then the other elementwise ops of ops/elementwise.def
#define CWB_UNARY_MATH(Name, function, integers, llvm) Name,
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) Name,
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, ...) Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
};
bool isUnary(ElementOp op);
bool isComparison(ElementOp op);  // the Bool-typed rows of ops/elementwise.def: results are Bool
/// How an op of ops/elementwise.def types its operands and result (that file's `typing` column); the math
/// functions of ops/unary_math.def are Promote, or Same for those that keep integers (floor, ceil, trunc).
using ElementTyping = ops::ElementTyping;
ElementTyping elementTyping(ElementOp op);
const char* elementOpName(ElementOp op);
/// Every op of ops/unary_math.def and ops/elementwise.def by its torch name and its aliases (multiply, and_).
const std::map<std::string, ElementOp, std::less<>>& elementOpsByName();  // "add", "sigmoid", ... (also used in kernel names)

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
    enum class Kind {
        Load,            // buffer[index]
        Constant,        // number of `dtype` (floats in `number`, integers and bools in `integer`)
        IndexValue,      // the value of an index expression, as `dtype` (iota, masks, arange)
        Unary,           // op(a)
        Binary,          // op(a, b)
        Where,           // a ? b : c (a is Bool)
        Cast,            // a converted to `dtype` (PyTorch's conversions: float->int truncates, ->bool is != 0)
        ReductionValue,  // the finished value of reduction `reduction` of an earlier step in the same kernel
    };
    Kind kind = Kind::Constant;
    DType dtype = DType::Float32;
    int buffer = -1;     // Load: index into Kernel::buffers
    Index index;         // Load, IndexValue
    double number = 0;   // Constant (floating dtypes; may be inf/nan)
    int64_t integer = 0; // Constant (integral and bool dtypes)
    ElementOp op = ElementOp::Add;
    ExprPtr a, b, c;
    int reduction = -1;  // ReductionValue
};

ExprPtr load(int buffer, Index index, DType dtype);
ExprPtr constantFloat(double value, DType dtype);
ExprPtr constantInt(int64_t value, DType dtype);
ExprPtr indexValue(Index index, DType dtype);
ExprPtr unary(ElementOp op, ExprPtr a);
ExprPtr binary(ElementOp op, ExprPtr a, ExprPtr b);
ExprPtr where(ExprPtr condition, ExprPtr whenTrue, ExprPtr whenFalse);
ExprPtr cast(ExprPtr a, DType dtype);  // no-op when a already has dtype
ExprPtr reductionValue(int reduction, DType dtype);
/// Whether two expressions compute the same value: the same tree, with indices compared by `sameIndex` (structural
/// by default) and constants bit for bit (NaN equals NaN, 0.0 differs from -0.0).
bool exprEqual(const ExprPtr& a, const ExprPtr& b, bool (*sameIndex)(const Index&, const Index&) = indexEqual);

// ---------------------------------------------------------------------------------------------------------
// Kernels.

enum class ReductionOp {
#define CWB_REDUCTION(Name, function, Result) Name,
#include "ops/reductions.def"
#undef CWB_REDUCTION
};
const char* reductionOpName(ReductionOp op);
/// The dtype a reduction gives when it accumulates in `accumulator`: Int64 for ArgMax/ArgMin, Bool for Any/All.
DType reductionResultDtype(ReductionOp op, DType accumulator);

struct Reduction {
    int id = 0;               // unique within the kernel; ReductionValue refers to it
    ReductionOp op = ReductionOp::Sum;
    ExprPtr value;            // per point of outer x reduction range; its dtype is the accumulator's
    /// Reduced over the outer range instead, once per point of the reduction range (the column sums of a
    /// kernel over rows, read in the same pass as the rows): finished only after every outer point, so only
    /// Kernel::finalStores read it. Not ArgMax/ArgMin.
    bool overOuterRange = false;
    DType resultDtype() const;  // value's dtype, Int64 for ArgMax/ArgMin, Bool for Any/All
};

struct Store {
    int buffer = -1;  // index into Kernel::buffers; value->dtype equals that buffer's dtype
    Index index;
    ExprPtr value;
};

/// One pass of a kernel. A pass over the reduction range runs `stores` at every point of outer x reduction
/// range and accumulates `reductions`; an outer pass (overReductionRange false) runs `stores` once per outer
/// point. ReductionValue may name only reductions of earlier passes.
struct KernelPass {
    bool overReductionRange = false;
    std::vector<Reduction> reductions;
    std::vector<Store> stores;
};

struct KernelBuffer {
    std::string name;  // the scheduler's buffer name (buf0, arg0_1, ...): readable in generated code
    DType dtype = DType::Float32;
    bool read = false;
    bool written = false;
    /// Shares its memory with another buffer of the kernel (a store in place into the input it updates,
    /// in_place_stores.h): the code generators must not declare it unaliased (__restrict__, noalias).
    bool aliased = false;
};

struct ComboPart;

/// A kernel: loop variables 0..outerRanges-1 run over the outer ranges (x0, x1, ...), the next ones over the
/// reduction ranges (r0, r1, ...). Pointwise kernels have no reduction ranges and one outer pass.
/// Parameters, in order: one pointer per buffer, then one int64 per symbol.
/// A combo kernel (Inductor's combo/foreach kernels: one launch for independent pointwise kernels of different
/// sizes, such as an optimizer step over every parameter) has `parts` and no passes; its one outer range is the
/// sum of its parts' flattened ranges, part after part, so a launch over a piece of it runs the pieces of the
/// parts that piece covers.
struct Kernel {
    std::string name;                 // cwb_poi_fused_add_mul_relu_0, cwb_red_fused__softmax_1
    std::vector<KernelBuffer> buffers;
    std::vector<std::string> symbols;
    std::vector<Index> outerRanges;
    std::vector<Index> reductionRanges;
    std::vector<KernelPass> passes;
    std::vector<ComboPart> parts;  // a combo kernel's parts (then passes is empty)
    /// Run once per point of the reduction range after every outer point: the results of reductions over the
    /// outer range and what is computed from them; their indices name reduction variables only. When the outer
    /// range is split into pieces (threads), each piece accumulates its own partial values of those reductions
    /// and the pieces are combined in order before these stores.
    std::vector<Store> finalStores;

    bool isReduction() const { return !reductionRanges.empty(); }
    bool isCombo() const { return !parts.empty(); }
    int outerVarCount() const { return static_cast<int>(outerRanges.size()); }
    /// Variable `number` is the outer variable x<number>, or the reduction variable r<number - outers>.
    std::string varName(int number) const;
    /// Number of reductions over all passes.
    int reductionCount() const;
    /// Whether some reduction runs over the outer range (Reduction::overOuterRange).
    bool hasOuterRangeReductions() const;
};

/// One part of a combo kernel: a pointwise kernel whose buffer j is the combo kernel's buffer `buffers[j]` and
/// whose symbols are the combo's of the same names. Parts write disjoint buffers and read none another writes.
struct ComboPart {
    Kernel kernel;
    std::vector<int> buffers;
};

/// A combo kernel named `name` over `parts` (pointwise kernels with their own buffer numbering, which
/// `bufferKeys` names consistently across parts: equal keys are one buffer): buffers and symbols are the union.
Kernel makeComboKernel(const std::string& name, std::vector<Kernel> parts, const std::vector<std::vector<int>>& bufferKeys);

/// The parameter of a combo kernel's shared body that holds the extent its part runs over (comboSharedBodies).
inline constexpr const char* kSharedBodyExtent = "cwb_numel";

/// A combo kernel's parts whose kernels are the same but for their extent (an optimizer step's update of each
/// parameter) share one body, generated and compiled once: a pointwise kernel over the one flat range
/// [kSharedBodyExtent] (a symbol the part passes), its buffers numbered as the part's and named b0, b1, ....
/// Parts qualify when their sizes are constant and every access is their flat row-major index or one element.
struct ComboSharedBodies {
    std::vector<Kernel> bodies;   // named <combo>_body<i>
    std::vector<int> bodyOfPart;  // per part: its body, or -1 (the part has code of its own)
};
ComboSharedBodies comboSharedBodies(const Kernel& combo);

/// Readable dump of a kernel (used in tests and in the trace when a backend has no source of its own).
std::string kernelText(const Kernel& kernel);
/// Sizes or ranges as the dumps print them: "[2, 3, 5]".
std::string rangesText(const std::vector<Index>& ranges);
/// The buffers an expression loads (each shared subexpression visited once).
std::set<int> loadedBuffers(const ExprPtr& e);
/// Calls `visit` on every node of `root` not in `seen` (adding it), each once: expressions are DAGs whose
/// shared subexpressions a tree walk would visit exponentially often (`x = x * x + x` repeated).
void forEachExprOnce(const ExprPtr& root, const std::function<void(const Expr&)>& visit, std::unordered_set<const Expr*>& seen);
/// The non-leaf nodes of a kernel's expressions that more than one expression node (or statement) reads.
std::unordered_set<const Expr*> sharedSubexpressions(const Kernel& kernel);
/// Throws std::logic_error naming the rule a malformed kernel breaks (dtypes, variables out of range, a
/// ReductionValue before its reduction finished, stores of the outer pass indexing reduction variables).
void verifyKernel(const Kernel& kernel);

// ---------------------------------------------------------------------------------------------------------
// Running kernels on the host, one element at a time: the reference the code generators are tested against.

/// Buffers as raw host memory of each KernelBuffer's dtype, laid out as the kernel's indices say.
void interpretKernel(const Kernel& kernel, std::span<void* const> buffers, const SymbolValues& symbols);

}  // namespace eng::inductor
