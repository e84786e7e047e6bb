// CUDA C++ source for the eager CUDA kernels, generated from templates per op family (pointwise with any
// arity, row reductions, row softmax) and specialised by dtype, so that NVRTC compiles exactly what an op
// needs. Pure string building: usable, and testable, without a GPU.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cuda/nvrtc_compiler.h"
#include "tensor/dtype.h"
#include "tensor/pointwise.h"

namespace eng::tensor::cudagen {

// Dims a pointwise kernel indexes (PyTorch allows more; cwb's CUDA kernels stop here) and its operands.
constexpr int kMaxDims = 10;
constexpr int kMaxOperands = 4;  // output + up to 3 inputs

// The by-value geometry argument of every pointwise kernel: sizes and per-operand element strides.
struct PointwiseGeometry {
    int ndim = 0;
    long long sizes[kMaxDims] = {};
    long long strides[kMaxOperands][kMaxDims] = {};
};

// One generated kernel: its extern "C" entry point and its code, which relies on the shared prelude (types,
// conversions, helpers, block reductions) that translationUnit puts in front.
struct GeneratedKernel {
    std::string entry;
    std::string body;
};
// The prelude and the kernels as one NVRTC translation unit (entry: the first kernel's). The eager ops
// compile one kernel per unit; tests compile many at once to check every template quickly.
cuda::KernelSource translationUnit(std::span<const GeneratedKernel> kernels);
inline cuda::KernelSource translationUnit(const GeneratedKernel& kernel) { return translationUnit(std::span(&kernel, 1)); }

// The start of every generated CUDA translation unit, eager and inductor alike: the storage types (cwb_half,
// cwb_bf16, cwb_i64, ...), cwb_load (any stored element to its compute value) and cwb_to_half / cwb_to_bf16.
const char* storagePrelude();

// The C++ type an element of dtype is stored as in generated code (cwb_bf16, float, cwb_i64, bool): the prelude's
// storage types, shared with the inductor's generated kernels.
std::string storageTypeName(DType dtype);
// The C++ type a kernel computes in for dtype (float for the 16-bit floats), as spelled in generated code.
std::string computeTypeName(DType dtype);

// out[i] = expression over inputs a, bb, cc, each loaded from its dtype and converted to `computeType`
// (spelled T in the expression); the expression's value has dtype `expressionType` and is cast to outType
// as Tensor.to would. Kernel parameters: (PointwiseGeometry g, long long n, double s0, double s1,
// long long i0, out*, in0*, in1*, ...); s0/s1/i0 are scalars the expression may read.
struct PointwiseSpec {
    std::string name;  // op family + op, e.g. "binary_add": only used to name the entry point
    DType outType = DType::Float32;
    std::vector<DType> inputTypes;
    DType computeType = DType::Float32;
    std::string expression;
    DType expressionType = DType::Float32;
};
GeneratedKernel pointwiseKernel(const PointwiseSpec& spec);

// The expression of a unary / binary op over operands a (and b) of computeType, with its result dtype
// (bool for predicates and comparisons); TensorError(NotImplemented) where the CPU kernel has none either.
struct OpExpression {
    std::string text;
    DType type;
};
OpExpression unaryExpression(UnaryOp op, DType computeType);
OpExpression binaryExpression(BinaryOp op, DType computeType);

// What a row reduction computes for each contiguous row of `cols` elements.
enum class RowReduction { Sum, Mean, Prod, Max, Min, Var, Std, All, Any };
// Parameters: (const In* in, Out* out, long long* indices, long long rows, long long cols, double correction).
// Max/Min also write the first index of the extreme when indices is non-null. One block per row.
GeneratedKernel rowReductionKernel(RowReduction kind, DType inType, DType outType);

// Softmax or log-softmax of each contiguous row: (const T* in, T* out, long long rows, long long cols).
GeneratedKernel rowSoftmaxKernel(DType dtype, bool logarithmic);

// Threads per block of the reduction and softmax kernels (a multiple of the warp size).
constexpr unsigned kRowBlockThreads = 256;

}  // namespace eng::tensor::cudagen
