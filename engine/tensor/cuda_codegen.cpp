// Source templates for the eager CUDA kernels. Generated code needs no headers: the 16-bit floats are
// converted with PTX cvt instructions, and math comes from NVRTC's built-in device functions.
#include "tensor/cuda_codegen.h"

#include <fmt/format.h>

namespace eng::tensor::cudagen {

namespace {

// Storage types and the 16-bit float conversions (round to nearest even, as the CPU runtime converts), shared
// with the inductor's generated kernels.
constexpr const char* kStoragePrelude = R"CUDA(typedef unsigned char cwb_u8;
typedef signed char cwb_i8;
typedef short cwb_i16;
typedef int cwb_i32;
typedef long long cwb_i64;
typedef unsigned long long cwb_u64;
struct cwb_half { unsigned short bits; };
struct cwb_bf16 { unsigned short bits; };
__device__ __forceinline__ float cwb_load(cwb_half h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits)); return f; }
__device__ __forceinline__ float cwb_load(cwb_bf16 h) { return __uint_as_float(((unsigned)h.bits) << 16); }
template <class T> __device__ __forceinline__ T cwb_load(T v) { return v; }
__device__ __forceinline__ cwb_half cwb_to_half(float f) { cwb_half h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f)); return h; }
__device__ __forceinline__ cwb_bf16 cwb_to_bf16(float f) { cwb_bf16 h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(f)); return h; }
)CUDA";

// The helpers the op expressions use.
constexpr const char* kPrelude = R"CUDA(
// Float to integer as the CPU runtime casts: through int64, out-of-range values give INT64_MIN.
template <class I> __device__ __forceinline__ I cwb_f2i(double v) {
  if (!(v > -9.3e18 && v < 9.3e18)) return (I)(-9223372036854775807LL - 1);
  return (I)(long long)v;
}
// The helpers of ops/elementwise.def's forms over the kernel's compute type, with the eager CPU kernels'
// semantics (tensor/pointwise_forms.h) but for division by zero, which has no error channel on the GPU and
// yields 0 (documented in README.md). The math functions are NVRTC's built-in overloads.
namespace cwb_eager {
template <class X, class Y> __device__ __forceinline__ X select(bool c, X x, Y y) { return c ? x : (X)y; }
template <class T> __device__ __forceinline__ T maximum(T a, T b) { return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b); }
template <class T> __device__ __forceinline__ T minimum(T a, T b) { return (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b); }
template <class F> __device__ __forceinline__ F floordiv(F a, F b) {
  if (b == 0) return a / b;
  F mod = fmod(a, b);
  F q = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) q -= F(1);
  if (q == 0) return copysign(F(0), a / b);
  F fl = floor(q);
  if (q - fl > F(0.5)) fl += F(1);
  return fl;
}
template <class F> __device__ __forceinline__ F pymod(F a, F b) {
  F mod = fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}
template <class I> __device__ __forceinline__ I idiv(I x, I y) {
  if (y == 0) return I(0);
  if (y == I(-1)) return (I)(0ULL - (unsigned long long)x);
  return (I)(x / y);
}
template <class I> __device__ __forceinline__ I irem(I x, I y) { return (y == 0 || y == I(-1)) ? I(0) : (I)(x % y); }
template <class I> __device__ __forceinline__ I ifloordiv(I x, I y) {
  I q = idiv(x, y);
  if (y != 0 && y != I(-1) && x % y != 0 && ((x < 0) != (y < 0))) --q;
  return q;
}
template <class I> __device__ __forceinline__ I imod(I x, I y) {
  I r = irem(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r = (I)(r + y);
  return r;
}
template <class I> __device__ __forceinline__ I ipow(I base, I e) {
  if (e < 0) { if (base == 1) return 1; if (base == -1) return (e % 2 == 0) ? 1 : -1; return 0; }
  I result = 1;
  while (e) { if (e & 1) result = (I)(result * base); e = (I)(e / 2); base = (I)(base * base); }
  return result;
}
template <class I> __device__ __forceinline__ I ishl(I x, I y) {
  typedef unsigned long long U;
  return (y < 0 || y >= (I)(sizeof(I) * 8)) ? I(0) : (I)((U)x << y);
}
template <class I> __device__ __forceinline__ I ishr(I x, I y) {
  if (y < 0 || y >= (I)(sizeof(I) * 8)) return x < 0 ? I(-1) : I(0);
  return (I)(x >> y);
}
}  // namespace cwb_eager
template <class T> __device__ __forceinline__ T cwb_clamp_lo(T v, T l) { return l != l ? l : (v < l ? l : v); }
template <class T> __device__ __forceinline__ T cwb_clamp_hi(T v, T h) { return h != h ? h : (v > h ? h : v); }
__device__ __forceinline__ double cwb_inf() { return __longlong_as_double(0x7ff0000000000000LL); }
)CUDA";


// Identifier-safe short dtype names for entry points.
std::string shortName(DType d) { return std::string(dtypeName(d)); }

// A value of dtype `from` (held in its compute type) as a value of dtype `to` (in its compute type).
std::string convert(DType to, DType from, const std::string& value) {
    if (to == from || (computeTypeName(to) == computeTypeName(from) && to != DType::Bool)) return value;
    if (to == DType::Bool) return "((" + value + ") != 0)";
    if (isIntegral(to, false) && isFloating(from)) return fmt::format("cwb_f2i<{}>((double)({}))", computeTypeName(to), value);
    return fmt::format("(({})({}))", computeTypeName(to), value);
}

std::string storeAs(DType d, const std::string& value) {
    if (d == DType::Float16) return "cwb_to_half(" + value + ")";
    if (d == DType::BFloat16) return "cwb_to_bf16(" + value + ")";
    return value;
}

// PyTorch's CUDA kernel of a row, for errors: its CPU kernel's name with _cuda for _cpu.
[[noreturn]] void noKernel(std::string_view cpuKernel, DType dtype) {
    std::string kernel(cpuKernel);
    if (kernel.ends_with("_cpu")) kernel.replace(kernel.size() - 4, 4, "_cuda");
    fail(ErrorKind::NotImplemented, fmt::format("\"{}\" not implemented for '{}'", kernel, dtypeKernelName(dtype)));
}

// Each row of ops/elementwise.def as device functions cwb_eager::f_NAME (floating operands) and i_NAME
// (integral ones, and bool ones as int), templated on the compute type T; a form the row's typing never uses
// is left out.
std::string elementwiseForms() {
    std::string text = "namespace cwb_eager {\n";
    auto row = [&](const char* function, const char* params, std::string_view typing, const char* floatForm, const char* integerForm) {
        if (typing != "Integral")
            text += fmt::format("template <class T> __device__ __forceinline__ auto f_{}({}) {{ return {}; }}\n", function, params, floatForm);
        if (typing != "Promote" && typing != "Floating")
            text += fmt::format("template <class T> __device__ __forceinline__ auto i_{}({}) {{ return {}; }}\n", function, params, integerForm);
    };
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    row(#function, "T a", #typing, #floatForm, #integerForm);
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, ...) \
    row(#function, "T a, T b", #typing, #floatForm, #integerForm);
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    return text + "}  // namespace cwb_eager\n";
}

// The function of one row's row of ops/elementwise.def: its name, typing and whether bool tensors are allowed.
struct RowCall {
    std::string_view function;
    const ElementwiseRow& row;
};

// row(a[, bb]) over compute type t, typed as the row says (see ops/elementwise.def's integerForm for bools).
OpExpression rowExpression(const RowCall& call, const char* arguments, const char* boolArguments, DType t) {
    using ops::ElementTyping;
    const ElementTyping typing = call.row.typing;
    const DType result = typing == ElementTyping::Bool ? DType::Bool : t;
    const bool integerForm = typing != ElementTyping::Promote && typing != ElementTyping::Floating;
    if (t == DType::Bool) {
        if (!call.row.bools || !integerForm) noKernel(call.row.kernel, t);
        return {fmt::format("(cwb_eager::i_{}<int>({}) != 0)", call.function, boolArguments), DType::Bool};
    }
    if (isIntegral(t, false)) {
        if (!integerForm) noKernel(call.row.kernel, t);
        return {fmt::format("(({})cwb_eager::i_{}<T>({}))", computeTypeName(result), call.function, arguments), result};
    }
    if (typing == ElementTyping::Integral) noKernel(call.row.kernel, t);
    return {fmt::format("(({})cwb_eager::f_{}<T>({}))", computeTypeName(result), call.function, arguments), result};
}

}  // namespace

std::string storageTypeName(DType d) {
    switch (d) {
        case DType::Bool: return "bool";
        case DType::UInt8: return "cwb_u8";
        case DType::Int8: return "cwb_i8";
        case DType::Int16: return "cwb_i16";
        case DType::Int32: return "cwb_i32";
        case DType::Int64: return "cwb_i64";
        case DType::Float16: return "cwb_half";
        case DType::BFloat16: return "cwb_bf16";
        case DType::Float32: return "float";
        case DType::Float64: return "double";
        case DType::Complex64:
        case DType::Complex128: complexNotImplemented(d);
    }
    return "void";
}

std::string computeTypeName(DType dtype) {
    if (isReducedFloat(dtype)) return "float";
    return storageTypeName(dtype);
}

GeneratedKernel pointwiseKernel(const PointwiseSpec& spec) {
    const size_t inputs = spec.inputTypes.size();
    if (inputs + 1 > static_cast<size_t>(kMaxOperands)) fail(ErrorKind::Runtime, "pointwise CUDA kernel: too many operands");
    std::string entry = "cwb_" + spec.name + "_" + shortName(spec.outType);
    for (DType d : spec.inputTypes) entry += "_" + shortName(d);
    std::string code = fmt::format("extern \"C\" __global__ void {}(CwbGeometry g, long long n, double s0, double s1, long long i0, {}* out",
                        entry, storageTypeName(spec.outType));
    for (size_t k = 0; k < inputs; ++k) code += fmt::format(", const {}* in{}", storageTypeName(spec.inputTypes[k]), k);
    code += ") {\n";
    code += fmt::format("  typedef {} T;\n", computeTypeName(spec.computeType));
    code += "  (void)s0; (void)s1; (void)i0;\n";
    code += "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {\n";
    code += fmt::format("    long long rem = i, off[{}] = {{0}};\n", kMaxOperands);
    // The dims loop stays rolled: NVRTC unrolls it otherwise, and each eager kernel then took about 45% longer to
    // compile (65 against 45 ms for a bf16 add, sm_90) for the same 64-bit divisions per dim.
    code += "    #pragma unroll 1\n    for (int d = g.ndim - 1; d >= 0; --d) {\n";
    code += "      long long idx = rem % g.sizes[d];\n      rem /= g.sizes[d];\n";
    code += fmt::format("      for (int k = 0; k < {}; ++k) off[k] += idx * g.strides[k][d];\n", inputs + 1);
    code += "    }\n";
    const char* names[] = {"a", "bb", "cc"};
    for (size_t k = 0; k < inputs; ++k)
        code += fmt::format("    const T {} = {};\n", names[k],
                            convert(spec.computeType, spec.inputTypes[k], fmt::format("cwb_load(in{}[off[{}]])", k, k + 1)));
    code += fmt::format("    out[off[0]] = {};\n",
                        storeAs(spec.outType, convert(spec.outType, spec.expressionType, "(" + spec.expression + ")")));
    code += "  }\n}\n";
    return {entry, code};
}

namespace {

// A math function of ops/unary_math.def: NVRTC's own overload for floats; integers (computed in float when the
// function promotes them) and bools are kept as they are by floor, ceil and trunc.
OpExpression mathExpression(std::string_view function, const ElementwiseRow& row, DType t) {
    if (isFloating(t)) return {fmt::format("{}(a)", function), t};
    if (row.typing == ops::ElementTyping::Promote) noKernel(row.kernel, t);
    return {"a", t};
}

}  // namespace

OpExpression unaryExpression(UnaryOp op, DType t) {
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case UnaryOp::Name:                                \
        return mathExpression(#function, rowOf(op), t);
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, ...) \
    case UnaryOp::Name:                            \
        return rowExpression({#function, rowOf(op)}, "a", "(int)a", t);
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_UNARY
    }
    noKernel("unary_cpu", t);
}

OpExpression binaryExpression(BinaryOp op, DType t) {
    switch (op) {
#define CWB_ELEMENTWISE_BINARY(Name, function, ...) \
    case BinaryOp::Name:                            \
        return rowExpression({#function, rowOf(op)}, "a, bb", "(int)a, (int)bb", t);
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
    }
    noKernel("binary_cpu", t);
}

namespace {

// Block-wide reductions with warp shuffles; the result is returned to every thread of the block.
constexpr const char* kBlockReduce = R"CUDA(
template <class A, class Combine> __device__ A cwb_block_reduce(A v, Combine combine, A identity) {
  __shared__ A partial[32];
  __shared__ A total;
  for (int o = 16; o > 0; o >>= 1) v = combine(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)((blockDim.x + 31) >> 5) ? partial[lane] : identity;
    for (int o = 16; o > 0; o >>= 1) v = combine(v, __shfl_down_sync(0xffffffffu, v, o));
    if (lane == 0) total = v;
  }
  __syncthreads();
  A result = total;
  __syncthreads();
  return result;
}
struct CwbAdd { template <class A> __device__ A operator()(A x, A y) const { return x + y; } };
struct CwbMul { template <class A> __device__ A operator()(A x, A y) const { return x * y; } };
struct CwbAnd { template <class A> __device__ A operator()(A x, A y) const { return x & y; } };
struct CwbOr { template <class A> __device__ A operator()(A x, A y) const { return x | y; } };
struct CwbMaxNan { template <class A> __device__ A operator()(A x, A y) const { return cwb_eager::maximum(x, y); } };
)CUDA";

}  // namespace

const char* storagePrelude() { return kStoragePrelude; }

cuda::KernelSource translationUnit(std::span<const GeneratedKernel> kernels) {
    static const std::string forms = elementwiseForms();
    std::string code = std::string(kStoragePrelude) + kPrelude + forms;
    code += fmt::format("struct CwbGeometry {{ int ndim; long long sizes[{0}]; long long strides[{1}][{0}]; }};\n", kMaxDims,
                        kMaxOperands);
    code += kBlockReduce;
    for (const GeneratedKernel& kernel : kernels) code += kernel.body;
    return {kernels.empty() ? std::string("cwb_empty") : kernels.front().entry, code};
}

namespace {

std::string accumulatorFor(DType d) { return isFloating(d) ? "double" : (d == DType::Bool ? "int" : "long long"); }

}  // namespace

GeneratedKernel rowReductionKernel(RowReduction kind, DType inType, DType outType) {
    static const char* kindNames[] = {"sum", "mean", "prod", "max", "min", "var", "std", "all", "any"};
    const std::string entry = fmt::format("cwb_reduce_{}_{}_{}", kindNames[static_cast<int>(kind)], shortName(inType),
                                          shortName(outType));
    std::string code = fmt::format("extern \"C\" __global__ void {}(const {}* in, {}* out, long long* indices, long long rows, long long cols, "
                        "double correction) {{\n",
                        entry, storageTypeName(inType), storageTypeName(outType));
    code += fmt::format("  typedef {} V;\n", computeTypeName(inType));
    code += "  (void)indices; (void)correction;\n";
    code += "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n";
    code += "    const long long base = row * cols;\n";
    const std::string load = "cwb_load(in[base + j])";
    const std::string loopHead = "    for (long long j = threadIdx.x; j < cols; j += blockDim.x) ";
    auto store = [&](const std::string& value, DType valueType) {
        return fmt::format("    if (threadIdx.x == 0) out[row] = {};\n", storeAs(outType, convert(outType, valueType, value)));
    };
    switch (kind) {
        case RowReduction::Sum:
        case RowReduction::Mean:
        case RowReduction::Prod: {
            const std::string acc = accumulatorFor(inType);
            const bool product = kind == RowReduction::Prod;
            code += fmt::format("    typedef {} A;\n    A acc = A({});\n", acc, product ? 1 : 0);
            code += loopHead + fmt::format("acc {}= (A){};\n", product ? "*" : "+", load);
            code += fmt::format("    acc = cwb_block_reduce(acc, {}(), A({}));\n", product ? "CwbMul" : "CwbAdd", product ? 1 : 0);
            if (kind == RowReduction::Mean) code += "    const double result = (double)acc / (double)cols;\n";
            else code += "    const A result = acc;\n";
            const DType resultType = kind == RowReduction::Mean ? DType::Float64 : (isFloating(inType) ? DType::Float64 : DType::Int64);
            code += store("result", resultType);
            break;
        }
        case RowReduction::All:
        case RowReduction::Any: {
            const bool isAll = kind == RowReduction::All;
            code += fmt::format("    int acc = {};\n", isAll ? 1 : 0);
            code += loopHead + fmt::format("acc {}= ((V){} != V(0)) ? 1 : 0;\n", isAll ? "&" : "|", load);
            code += fmt::format("    acc = cwb_block_reduce(acc, {}(), {});\n", isAll ? "CwbAnd" : "CwbOr", isAll ? 1 : 0);
            code += "    if (threadIdx.x == 0) out[row] = acc != 0;\n";
            break;
        }
        case RowReduction::Var:
        case RowReduction::Std: {
            // Two passes over the row (mean, then squared deviations), in double as the CPU kernel does.
            code += "    double acc = 0;\n";
            code += loopHead + "acc += (double)" + load + ";\n";
            code += "    const double mean = cwb_block_reduce(acc, CwbAdd(), 0.0) / (double)cols;\n";
            code += "    double squares = 0;\n";
            code += loopHead + "{ const double dv = (double)" + load + " - mean; squares += dv * dv; }\n";
            code += "    squares = cwb_block_reduce(squares, CwbAdd(), 0.0);\n";
            code += "    double result = squares / fmax(0.0, (double)cols - correction);\n";
            if (kind == RowReduction::Std) code += "    result = sqrt(result);\n";
            code += store("result", DType::Float64);
            break;
        }
        case RowReduction::Max:
        case RowReduction::Min: {
            // Per thread: the first extreme (NaN wins, then the larger/smaller value, then the lower index);
            // then a shuffle tree over (value, index) pairs with the same rule.
            const bool isMax = kind == RowReduction::Max;
            code += fmt::format("    typedef {} S;\n", isFloating(inType) ? computeTypeName(inType) : std::string("long long"));
            code += "    S best = S(0); long long bestIndex = -1;\n";
            code += fmt::format("    auto better = [](S v, long long i, S w, long long k) -> bool {{\n"
                                "      if (k < 0) return i >= 0;\n      if (i < 0) return false;\n"
                                "      if (w != w) return v != v && i < k;\n      if (v != v) return true;\n"
                                "      if (v {} w) return true;\n      return v == w && i < k;\n    }};\n",
                                isMax ? ">" : "<");
            code += loopHead + "{ const S v = (S)" + load + "; if (better(v, j, best, bestIndex)) { best = v; bestIndex = j; } }\n";
            code += "    __shared__ S bestValues[32]; __shared__ long long bestIndices[32];\n";
            code += "    for (int o = 16; o > 0; o >>= 1) {\n"
                    "      const S v = __shfl_down_sync(0xffffffffu, best, o);\n"
                    "      const long long i = __shfl_down_sync(0xffffffffu, bestIndex, o);\n"
                    "      if (better(v, i, best, bestIndex)) { best = v; bestIndex = i; }\n    }\n";
            code += "    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n";
            code += "    if (lane == 0) { bestValues[warp] = best; bestIndices[warp] = bestIndex; }\n    __syncthreads();\n";
            code += "    if (warp == 0) {\n"
                    "      const bool present = lane < (int)((blockDim.x + 31) >> 5);\n"
                    "      best = present ? bestValues[lane] : S(0); bestIndex = present ? bestIndices[lane] : -1;\n"
                    "      for (int o = 16; o > 0; o >>= 1) {\n"
                    "        const S v = __shfl_down_sync(0xffffffffu, best, o);\n"
                    "        const long long i = __shfl_down_sync(0xffffffffu, bestIndex, o);\n"
                    "        if (better(v, i, best, bestIndex)) { best = v; bestIndex = i; }\n      }\n";
            code += fmt::format("      if (lane == 0) {{ out[row] = {}; if (indices) indices[row] = bestIndex; }}\n",
                                storeAs(outType, convert(outType, isFloating(inType) ? inType : DType::Int64, "best")));
            code += "    }\n    __syncthreads();\n";
            break;
        }
    }
    code += "  }\n}\n";
    return {entry, code};
}

GeneratedKernel rowSoftmaxKernel(DType dtype, bool logarithmic) {
    if (!isFloating(dtype)) noKernel(logarithmic ? "log_softmax" : "softmax", dtype);
    const std::string entry = fmt::format("cwb_{}softmax_{}", logarithmic ? "log_" : "", shortName(dtype));
    std::string code = fmt::format("extern \"C\" __global__ void {}(const {}* in, {}* out, long long rows, long long cols) {{\n", entry,
                        storageTypeName(dtype), storageTypeName(dtype));
    code += fmt::format("  typedef {} F;\n", computeTypeName(dtype));
    code += "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n";
    code += "    const long long base = row * cols;\n";
    code += "    F localMax = -(F)cwb_inf();\n";
    code += "    for (long long j = threadIdx.x; j < cols; j += blockDim.x) localMax = cwb_eager::maximum(localMax, (F)cwb_load(in[base + j]));\n";
    code += "    const F maximum = cwb_block_reduce(localMax, CwbMaxNan(), -(F)cwb_inf());\n";
    code += "    double total = 0;\n";
    code += "    for (long long j = threadIdx.x; j < cols; j += blockDim.x) total += (double)exp((F)cwb_load(in[base + j]) - maximum);\n";
    code += "    total = cwb_block_reduce(total, CwbAdd(), 0.0);\n";
    if (logarithmic) {
        code += "    const F shift = maximum + (F)log(total);\n";
        code += fmt::format("    for (long long j = threadIdx.x; j < cols; j += blockDim.x) out[base + j] = {};\n",
                            storeAs(dtype, "(F)((F)cwb_load(in[base + j]) - shift)"));
    } else {
        code += fmt::format("    for (long long j = threadIdx.x; j < cols; j += blockDim.x) out[base + j] = {};\n",
                            storeAs(dtype, "(F)(exp((F)cwb_load(in[base + j]) - maximum) * (F(1) / (F)total))"));
    }
    code += "  }\n}\n";
    return {entry, code};
}

}  // namespace eng::tensor::cudagen
