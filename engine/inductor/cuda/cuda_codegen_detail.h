// Internals shared by the CUDA code generator's files: the prelude, C types of dtypes, index analysis
// (polynomial forms, bounds) and the expression emitter that names one temporary per IR node.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <initializer_list>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "inductor/cuda/cuda_kernel_codegen.h"

namespace eng::inductor::cuda::detail {

// Storage types, 16-bit float conversions, integer/float helpers and group reductions used by generated code.
const std::string& prelude();

std::string storageType(DType dtype);  // what a buffer element is: cwb_bf16, float, cwb_i64, bool
std::string computeType(DType dtype);  // what values are held in: float for the 16-bit floats
int itemBytes(DType dtype);

// Index expressions as polynomials over variables ("v3") and symbols ("s0") with integer coefficients, so
// that x0 * 64 + x1 and x1 + 64 * x0 compare equal. FloorDiv/Mod subtrees free of variables are atoms;
// with variables under them there is no polynomial form.
using Monomial = std::vector<std::string>;  // sorted factor names; empty: the constant term
using Polynomial = std::map<Monomial, int64_t>;
std::optional<Polynomial> polynomialOf(const Index& index);
// The coefficient of variable `number` when it occurs only linearly with a constant coefficient (0 if absent).
std::optional<int64_t> linearCoefficient(const Index& index, int number);
bool mentionsAnyVar(const Index& index);
// The row-major flat index of variables first..first+ranges.size()-1 over `ranges`.
Index flatIndex(const std::vector<Index>& ranges, int first);
bool sameIndex(const Index& a, const Index& b);
// The index with each variable node replaced by replace(that node) (null stays null).
Index mapVars(const Index& index, const std::function<Index(const Index& var)>& replace);
Index substituteVar(const Index& index, int number, const Index& replacement);
// An upper bound of |index| over the variables' ranges; nullopt when a symbol makes it unknown.
std::optional<int64_t> indexBound(const Index& index, const std::vector<int64_t>& varExtents);

// How an index moves across the lanes of a vector step along variable `var` (lane k at var = lane0 + k, k < width,
// lane0 a multiple of width): index(lane k) = index(lane 0) + step * k, and `aligned` when index(lane 0) is a
// multiple of width for every value of the other variables and symbols. Mod and FloorDiv by constant multiples of
// width keep the form (a cat's (x + 768) % 768, a head's c // 64); nullopt when the lanes do not move linearly.
struct LaneForm {
    int64_t step = 0;
    bool aligned = false;
};
std::optional<LaneForm> laneForm(const Index& index, int var, int width);
// Whether a load-free expression has one value on every lane of such a vector step: built from constants, indices
// that do not move across the lanes, and comparisons that a step of whole vectors cannot split (a cat's x < 768).
bool uniformAcrossLanes(const Expr& e, int var, int width);

// Every load and IndexValue index of an expression tree (each node once), for analysis.
void forEachExpr(const ExprPtr& root, const std::function<void(const Expr&)>& visit);
void forEachKernelExpr(const Kernel& kernel, const std::function<void(const Expr&)>& visit);

std::string floatLiteral(double value, DType dtype);
std::string intLiteral(int64_t value, DType dtype);

// Emits C++ statements for expressions: one `const T tmpN = ...;` per IR node, reused for repeated
// shared_ptr nodes (CSE). One emitter per C++ scope, sharing the kernel-wide temporary counter.
class ExprEmitter {
public:
    ExprEmitter(const Kernel& kernel, std::string indexType, std::string indent, int& counter)
        : kernel_(kernel), indexType_(std::move(indexType)), indent_(std::move(indent)), counter_(counter) {}

    // A load's value text in its compute type, replacing the default `cwb_load(buf[index])` (vector lanes).
    std::function<std::optional<std::string>(const Expr&)> loadOverride;
    // A where's side when the code around has already decided its condition (a branch of the store-vector form over a
    // condition the same on every lane); nullopt: the where is emitted in full.
    std::function<std::optional<bool>(const Expr&)> whereTaken;

    // Emits the temporaries `e` needs into code() and returns the C expression (a name or a literal).
    std::string value(const ExprPtr& e);
    // `buf[index] = value;` with the storage conversion; values stored elsewhere pass `target` instead.
    void store(const Store& s, const std::string& target = {});
    std::string storeValue(const Store& s);  // the storage-typed value text of s.value
    std::string index(const Index& index) const;
    void line(const std::string& text) { code_ += indent_ + text + "\n"; }
    void forgetValues() { names_.clear(); }  // after a store that later loads of the same buffer must see
    const std::string& code() const { return code_; }

private:
    std::string emit(const Expr& e);
    std::string unaryText(const Expr& e, const std::string& a);
    std::string binaryText(const Expr& e, const std::string& a, const std::string& b);
    std::string formText(const Expr& e, std::initializer_list<std::string> operands);
    std::string castText(const Expr& e, const std::string& a);
    bool readsMemory(const Expr& e);  // whether emitting e (not yet named) loads from a buffer

    const Kernel& kernel_;
    std::string indexType_;
    std::string indent_;
    int& counter_;
    std::string code_;
    std::unordered_map<const Expr*, std::string> names_;
};

// Whether the stores of `stores` must drop cached values after store i (a later store reads its buffer).
bool laterStoreReads(const std::vector<Store>& stores, size_t i, const std::vector<Reduction>& reductions);

// The C name of a buffer parameter: the scheduler's name unless it would clash with generated locals.
std::string bufferName(const Kernel& kernel, int buffer);
// The names the generated source and kernelText(kernel) hold besides kernel.name that do not decide the code (with
// the locals and entries made from them by appending '_' and a suffix, which kernel_cache::maskNames masks too):
// the buffers' IR and C names, and a combo's parts' (cuda_compile.cpp).
std::vector<std::string> renamableNames(const Kernel& kernel);
// "// " + each line of kernelText(kernel).
std::string irComment(const Kernel& kernel);
// `extern "C" __global__ void __launch_bounds__(threads) name(const float* __restrict__ arg0_1, ..., long long s0)`.
std::string signature(const Kernel& kernel, int threads);
// Index type decision: 32 bits when every range and index is provably below 2^31.
bool needsIndex64(const Kernel& kernel);
// `const IDX x0 = flat % 13; ...` decoding a flat index into the variables of `ranges`, starting at `first`.
std::string decodeVars(const Kernel& kernel, const std::vector<Index>& ranges, int first, const std::string& flat,
                       const std::string& indexType, const std::string& indent, const ExprEmitter& emitter);

// Per pass of a row kernel, the index of the next pass when the two are max(v) then sum(exp(v - max)), which the
// reduction generator computes in one read of the row (online softmax); -1 otherwise.
std::vector<int> onlineSoftmaxPairs(const Kernel& kernel);

CudaKernelCode generatePointwise(const Kernel& kernel, const CudaTuning& tuning);
// The statements of a pointwise kernel's body (its grid-stride loops over blockIdx.x / gridDim.x), filling `code`'s
// strategy, vector width, block and items per block. `index64` overrides the index width needsIndex64 decides.
// With tuning.storeVectors, kernels whose accesses are not all flat may still store 16-byte vectors along a
// contiguous innermost dim (a cat), which changes the items a block covers (combo kernels turn it off).
std::string pointwiseBody(const Kernel& kernel, const CudaTuning& tuning, CudaKernelCode& code, std::optional<bool> index64 = std::nullopt);
// A combo kernel: each part's pointwise body over its own range of the grid's blocks.
CudaKernelCode generateCombo(const Kernel& kernel, const CudaTuning& tuning);
CudaKernelCode generateReduction(const Kernel& kernel, const CudaTuning& tuning);

// Row passes may move 16-byte vectors along the (single) reduction variable: every access of the pass that
// depends on it must be base + r0 (stride 1), and no value a point stores may be read back at that point.
// Whether each row is aligned (base % width, buffer addresses) is checked at run time per row.
struct RowVectorPlan {
    int width = 1;
    std::vector<bool> passOk;          // per pass
    std::vector<Index> bases;          // base (r0 = 0) of every vectorised access, checked % width
    std::set<int> buffers;             // buffers accessed as vectors, checked for address alignment
    bool any() const { return std::find(passOk.begin(), passOk.end(), true) != passOk.end(); }
};

RowVectorPlan planRowVectors(const Kernel& kernel, const CudaTuning& tuning);
/// Whether `index` is a multiple of `width` for every value of its variables and symbols.
bool dividesEveryTerm(int width, const Index& index);
/// The distinct (buffer, index) loads along the row (stride 1) of a kernel's passes: the register arrays a thread
/// keeps when its rows stay in registers.
int rowArrays(const Kernel& kernel);
/// The base (index at r0 = 0) that every load along the row of `pass` shares; nullopt when they differ or there is none.
std::optional<Index> commonRowBase(const Kernel& kernel, const KernelPass& pass);
// Whether a reduction kernel's loads favour the column form (the innermost outer variable contiguous, the reduction
// variable not) over the row form.
bool preferColumns(const Kernel& kernel);
// A column reduction of at most 8192 constant columns over 256 or more rows, one pass of floating sums, products or
// extremes and outer stores of their results, as the equal row kernel whose reductions run over its outer range (the
// rows) with the stores as its finalStores (cuda_column_sums.cpp); nullopt for other kernels or with
// tuning.columnPartials off.
std::optional<Kernel> columnReductionAsRows(const Kernel& kernel, const CudaTuning& tuning);

// How one reduction accumulates per thread (`update` of `acc` by `v`), combines across threads (`combine`: a
// functor of the prelude, `cwb_sum()`) and becomes its ReductionValue (`finish`, from `acc`).
struct Accumulator {
    std::string type, identity, combine, update, finish;
};
Accumulator accumulatorFor(const Reduction& r, const std::string& acc, const std::string& v, const std::string& position);

// Reductions over a row kernel's outer range (Reduction::overOuterRange, B6's column sums beside its row sums;
// cuda_outer_partials.cpp). Each piece of the grid (one block's row of threads: blockIdx.x * blockDim.y +
// threadIdx.y, or the whole block with combineInBlock) reads the same columns of every row it takes, so it keeps per-column partials while it reads its
// rows: in registers when the row is a constant number of aligned vectors, else in its own row of the workspace.
// The partials end in the workspace (reduction j's region: pieces x columns accumulators); a second entry point,
// `<name>_finish`, combines them piece by piece in order (deterministic for a given grid) and runs finalStores.
struct OuterPartials {
    std::vector<const Reduction*> reductions;  // in kernel order: reduction j owns workspace region j
    bool registers = false;  // partials in registers: `iters` vector steps of `width` lanes per thread and row
    int iters = 0, width = 1, bx = 1, by = 1;
    bool exact = false;  // every thread of a row has `iters` whole vector steps (no bounds check)
    // Registers only, blocks of several rows of threads: the rows combine their partials in shared memory (in row
    // order) and the block writes one piece, so a piece is a block (blockIdx.x) instead of a row of threads.
    bool combineInBlock = false;
    std::string idx;  // the kernel's index type
    bool any() const { return !reductions.empty(); }
    bool covers(const KernelPass& pass) const;  // the pass accumulates one of them
    // Statements before the group loop: the piece's partials set to each reduction's identity.
    std::string declarations(const Kernel& kernel) const;
    // Where the point at `rindex` (lane k of the unrolled vector step `it`, in registers) accumulates `r`.
    std::string slot(const Reduction& r) const;
    // Statements after the group loop: partials kept in registers go to the piece's workspace row.
    std::string writeBack() const;
    std::string combineInBlockWriteBack() const;  // writeBack's form with combineInBlock
};
// Plans them for a row kernel whose outer-range passes run `bx` threads a row; `registers` when every such pass
// moves aligned vectors of `width` (no scalar tail) over a row of constant length.
OuterPartials planOuterPartials(const Kernel& kernel, const std::string& indexType, int bx, int by, int width, bool registers);
// The kernel parameters after the symbols: the workspace and the number of pieces the launch has.
const char* outerPartialsParameters();
// The `<name>_finish` entry point (appended to the kernel's source); sets code's finish block.
std::string outerPartialsFinish(const Kernel& kernel, const OuterPartials& partials, CudaKernelCode& code);

}  // namespace eng::inductor::cuda::detail
