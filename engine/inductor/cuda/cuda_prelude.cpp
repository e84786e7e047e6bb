// The prelude in front of every generated kernel: storage types, conversions that round like the reference
// interpreter, integer ops with its wrap-around rules, and group reductions. Needs no headers, as the eager
// runtime's kernels (engine/tensor/cuda_codegen.cpp): 16-bit floats convert with PTX cvt instructions.
#include <string_view>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"
#include "tensor/cuda_codegen.h"

namespace eng::inductor::cuda::detail {

namespace {

// After the eager runtime's storage prelude (tensor::cudagen::storagePrelude: storage types, cwb_load,
// cwb_to_half, cwb_to_bf16).
constexpr const char* kPrelude = R"CUDA(// N elements moved as one access of N * sizeof(T) bytes (16 for float4-like loads).
template <class T, int N> struct alignas(sizeof(T) * N) cwb_vec { T v[N]; };

// Results of 16-bit float dtype are held in float but rounded after every op, as the interpreter does.
__device__ __forceinline__ float cwb_round_half(float f) { return cwb_load(cwb_to_half(f)); }
__device__ __forceinline__ float cwb_round_bf16(float f) { return cwb_load(cwb_to_bf16(f)); }
__device__ __forceinline__ float cwb_inf_f() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ float cwb_nan_f() { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ double cwb_inf_d() { return __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ double cwb_nan_d() { return __longlong_as_double(0x7ff8000000000000LL); }

// sin, cos and tan: inlined, or with CudaTuning::trigCalls called out of line, so that their argument reduction
// (with the slow path for large arguments) is compiled once a kernel instead of once per unrolled vector lane.
#ifdef CWB_TRIG_CALLS
#define CWB_TRIG_LINKAGE __noinline__
#else
#define CWB_TRIG_LINKAGE __forceinline__
#endif
template <class F> __device__ CWB_TRIG_LINKAGE F cwb_sin(F v) { if constexpr (sizeof(F) == 4) return sinf(v); else return sin(v); }
template <class F> __device__ CWB_TRIG_LINKAGE F cwb_cos(F v) { if constexpr (sizeof(F) == 4) return cosf(v); else return cos(v); }
template <class F> __device__ CWB_TRIG_LINKAGE F cwb_tan(F v) { if constexpr (sizeof(F) == 4) return tanf(v); else return tan(v); }

// Float to integer as the interpreter casts: through int64, out-of-range values and NaN give INT64_MIN.
__device__ __forceinline__ cwb_i64 cwb_f2i(double v) { return (v > -9.3e18 && v < 9.3e18) ? (cwb_i64)v : (-9223372036854775807LL - 1); }
// Python's % for floats: the result takes the divisor's sign.
template <class F> __device__ __forceinline__ F cwb_fmod_py(F a, F b) {
  F r = fmod(a, b);
  return (r != F(0) && ((r < F(0)) != (b < F(0)))) ? r + b : r;
}
// torch.maximum / minimum: NaN wins (a when both are); otherwise std::max / std::min (the first operand on ties).
// One select, no branches: a max reduction's next load need not wait for this value to be compared.
template <class T> __device__ __forceinline__ T cwb_maximum(T a, T b) { return ((b != b) | (a < b)) & (a == a) ? b : a; }
template <class T> __device__ __forceinline__ T cwb_minimum(T a, T b) { return ((b != b) | (b < a)) & (a == a) ? b : a; }
// Integer division has no error channel on the GPU: division by zero gives 0 (the interpreter throws).
__device__ __forceinline__ cwb_i64 cwb_idiv(cwb_i64 a, cwb_i64 b) { return b == 0 ? 0 : (b == -1 ? (cwb_i64)(0ULL - (cwb_u64)a) : a / b); }
__device__ __forceinline__ cwb_i64 cwb_ifloordiv(cwb_i64 a, cwb_i64 b) {
  if (b == 0) return 0;
  if (b == -1) return (cwb_i64)(0ULL - (cwb_u64)a);
  cwb_i64 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ cwb_i64 cwb_imod(cwb_i64 a, cwb_i64 b) {
  if (b == 0 || b == -1) return 0;
  cwb_i64 r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ __forceinline__ cwb_i64 cwb_irem(cwb_i64 a, cwb_i64 b) { return (b == 0 || b == -1) ? 0 : a % b; }
// a ** b by repeated multiplication modulo 2^64; negative exponents as PyTorch: 1, +-1 for a base of 1, -1, else 0.
__device__ __forceinline__ cwb_i64 cwb_ipow(cwb_i64 a, cwb_i64 b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  cwb_u64 result = 1, base = (cwb_u64)a;
  for (; b > 0; b >>= 1) { if (b & 1) result *= base; base *= base; }
  return (cwb_i64)result;
}

// Reductions. argmax/argmin carry (value, position); position -1 is "nothing yet".
template <class V> struct cwb_arg { V value; cwb_i64 index; };
template <bool Max, class V> __device__ __forceinline__ bool cwb_arg_better(const cwb_arg<V>& c, const cwb_arg<V>& cur) {
  if (c.index < 0) return false;
  if (cur.index < 0) return true;
  const bool cnan = c.value != c.value, curnan = cur.value != cur.value;
  if (curnan) return cnan && c.index < cur.index;  // the first NaN wins
  if (cnan) return true;
  if (Max ? c.value > cur.value : c.value < cur.value) return true;
  return c.value == cur.value && c.index < cur.index;  // the first occurrence wins
}
struct cwb_sum { template <class A> __device__ __forceinline__ A operator()(A a, A b) const { return a + b; } };
struct cwb_prod { template <class A> __device__ __forceinline__ A operator()(A a, A b) const { return a * b; } };
struct cwb_max { template <class A> __device__ __forceinline__ A operator()(A a, A b) const { return cwb_maximum(a, b); } };
struct cwb_min { template <class A> __device__ __forceinline__ A operator()(A a, A b) const { return cwb_minimum(a, b); } };
struct cwb_any { __device__ __forceinline__ bool operator()(bool a, bool b) const { return a || b; } };
struct cwb_all { __device__ __forceinline__ bool operator()(bool a, bool b) const { return a && b; } };
struct cwb_argmax { template <class V> __device__ __forceinline__ cwb_arg<V> operator()(cwb_arg<V> a, cwb_arg<V> b) const { return cwb_arg_better<true>(b, a) ? b : a; } };
struct cwb_argmin { template <class V> __device__ __forceinline__ cwb_arg<V> operator()(cwb_arg<V> a, cwb_arg<V> b) const { return cwb_arg_better<false>(b, a) ? b : a; } };

__device__ __forceinline__ float cwb_shfl_xor(float v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ double cwb_shfl_xor(double v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ int cwb_shfl_xor(int v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ long long cwb_shfl_xor(long long v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ unsigned long long cwb_shfl_xor(unsigned long long v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ bool cwb_shfl_xor(bool v, int o) { return __shfl_xor_sync(0xffffffffu, (int)v, o) != 0; }
__device__ __forceinline__ cwb_u8 cwb_shfl_xor(cwb_u8 v, int o) { return (cwb_u8)__shfl_xor_sync(0xffffffffu, (int)v, o); }
__device__ __forceinline__ cwb_i8 cwb_shfl_xor(cwb_i8 v, int o) { return (cwb_i8)__shfl_xor_sync(0xffffffffu, (int)v, o); }
__device__ __forceinline__ cwb_i16 cwb_shfl_xor(cwb_i16 v, int o) { return (cwb_i16)__shfl_xor_sync(0xffffffffu, (int)v, o); }
template <class V> __device__ __forceinline__ cwb_arg<V> cwb_shfl_xor(cwb_arg<V> a, int o) {
  a.value = cwb_shfl_xor(a.value, o);
  a.index = cwb_shfl_xor(a.index, o);
  return a;
}
// Online softmax (Milakov & Gimelshein): the running max of a row and the sum of exp(x - max) so far, rescaled
// when the max grows, so one read of the row gives both. -inf elements add nothing (a row of -inf only is fixed
// up by cwb_online_sum); NaN and +inf make the sum NaN, as exp(x - max) summed after the max does.
template <class F> struct cwb_online { F max, sum; };
__device__ __forceinline__ float cwb_exp(float v) { return expf(v); }
__device__ __forceinline__ double cwb_exp(double v) { return exp(v); }
template <class F> __device__ __forceinline__ cwb_online<F> cwb_online_add(cwb_online<F> a, F x) {
  if (x > a.max) {
    a.sum = a.sum * cwb_exp(a.max - x) + cwb_exp(x - x);
    a.max = x;
  } else if (x != -(F)cwb_inf_d()) {
    a.sum += cwb_exp(x - a.max);
    a.max = cwb_maximum(a.max, x);  // NaN
  }
  return a;
}
// A vector's values at once: the max first, then exps that do not wait on each other.
template <class F, int N> __device__ __forceinline__ cwb_online<F> cwb_online_add(cwb_online<F> a, const F (&x)[N]) {
  F m = a.max;
#pragma unroll
  for (int k = 0; k < N; ++k) m = cwb_maximum(m, x[k]);
  if (m > a.max) a.sum = a.sum * cwb_exp(a.max - m);
  F s = F(0);
#pragma unroll
  for (int k = 0; k < N; ++k) s += x[k] == -(F)cwb_inf_d() ? F(0) : cwb_exp(x[k] - m);
  a.sum += s;
  a.max = m;
  return a;
}
struct cwb_online_combine {
  template <class F> __device__ __forceinline__ cwb_online<F> operator()(cwb_online<F> a, cwb_online<F> b) const {
    const F m = cwb_maximum(a.max, b.max), none = -(F)cwb_inf_d();
    return {m, (a.max == none ? F(0) : a.sum * cwb_exp(a.max - m)) + (b.max == none ? F(0) : b.sum * cwb_exp(b.max - m))};
  }
};
// The sum of exp(x - max) over the row; a non-empty row of -inf only gives NaN, as exp(-inf - -inf) does.
template <class F, class I> __device__ __forceinline__ F cwb_online_sum(cwb_online<F> a, I count) {
  return (a.max == -(F)cwb_inf_d() && count > 0) ? (F)cwb_nan_d() : a.sum;
}
template <class F> __device__ __forceinline__ cwb_online<F> cwb_shfl_xor(cwb_online<F> a, int o) {
  a.max = cwb_shfl_xor(a.max, o);
  a.sum = cwb_shfl_xor(a.sum, o);
  return a;
}
// Combines v over the BX threads (a power of two, at least 32) along x of each row group (threadIdx.y); every
// thread of the group gets the same result. scratch: 32 slots per row group. Every thread of the block must
// call it. No barrier at the end: the caller alternates between two scratch areas, so the next reduction never
// writes where a slow warp may still read.
template <int BX, class A, class C> __device__ __forceinline__ A cwb_reduce_x(A v, C combine, A* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = combine(v, cwb_shfl_xor(v, o));
  if (BX <= 32) return v;
  constexpr int W = BX / 32;
  A* group = scratch + threadIdx.y * 32;
  if ((threadIdx.x & 31) == 0) group[threadIdx.x >> 5] = v;
  __syncthreads();
  // Lane i takes warp i % W's partial; xor shuffles over W lanes give every lane the total: one shared load
  // per thread instead of W dependent ones.
  A total = group[threadIdx.x & (W - 1)];
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) total = combine(total, cwb_shfl_xor(total, o));
  return total;
}
// Combines v over the BY threads along y of each column (threadIdx.x), in y order; every thread of the
// column gets the result. scratch: BX * BY slots. Every thread of the block must call it.
template <int BX, int BY, class A, class C> __device__ __forceinline__ A cwb_reduce_y(A v, C combine, A* scratch) {
  if (BY == 1) return v;
  scratch[threadIdx.y * BX + threadIdx.x] = v;
  __syncthreads();
  A total = scratch[threadIdx.x];
#pragma unroll
  for (int y = 1; y < BY; ++y) total = combine(total, scratch[y * BX + threadIdx.x]);
  __syncthreads();
  return total;
}
)CUDA";


// The elementwise ops of ops/elementwise.def as device functions cwb_f_NAME (floating operands) and cwb_i_NAME
// (integral operands, in cwb_i64), each row's form evaluated in namespace cwb_forms. Float forms run over
// cwb_rn<F>, whose * is __fmul_rn/__dmul_rn so that NVRTC never contracts a product with an add into an FMA
// (the interpreter rounds both).
constexpr const char* kFormHelpers = R"CUDA(namespace cwb_forms {
__device__ __forceinline__ float cwb_mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double cwb_mul_rn(double a, double b) { return __dmul_rn(a, b); }
template <class F> struct cwb_rn {
  F v;
  __device__ __forceinline__ cwb_rn(F x) : v(x) {}
  // T(0), T(predicate), T(0.5): an exact match for any constant, so that a double constant of a float form
  // is not ambiguous between float, int and bool.
  template <class C> __device__ __forceinline__ explicit cwb_rn(C x) : v((F)x) {}
};
template <class F> __device__ __forceinline__ cwb_rn<F> operator+(cwb_rn<F> a, cwb_rn<F> b) { return a.v + b.v; }
template <class F> __device__ __forceinline__ cwb_rn<F> operator-(cwb_rn<F> a, cwb_rn<F> b) { return a.v - b.v; }
template <class F> __device__ __forceinline__ cwb_rn<F> operator*(cwb_rn<F> a, cwb_rn<F> b) { return cwb_mul_rn(a.v, b.v); }
template <class F> __device__ __forceinline__ cwb_rn<F> operator/(cwb_rn<F> a, cwb_rn<F> b) { return a.v / b.v; }
template <class F> __device__ __forceinline__ cwb_rn<F> operator-(cwb_rn<F> a) { return -a.v; }
template <class F> __device__ __forceinline__ bool operator==(cwb_rn<F> a, cwb_rn<F> b) { return a.v == b.v; }
template <class F> __device__ __forceinline__ bool operator!=(cwb_rn<F> a, cwb_rn<F> b) { return a.v != b.v; }
template <class F> __device__ __forceinline__ bool operator<(cwb_rn<F> a, cwb_rn<F> b) { return a.v < b.v; }
template <class F> __device__ __forceinline__ bool operator<=(cwb_rn<F> a, cwb_rn<F> b) { return a.v <= b.v; }
template <class F> __device__ __forceinline__ bool operator>(cwb_rn<F> a, cwb_rn<F> b) { return a.v > b.v; }
template <class F> __device__ __forceinline__ bool operator>=(cwb_rn<F> a, cwb_rn<F> b) { return a.v >= b.v; }
template <class V> __device__ __forceinline__ V select(bool c, V a, V b) { return c ? a : b; }
template <class F> __device__ __forceinline__ F cwb_value(cwb_rn<F> a) { return a.v; }
__device__ __forceinline__ bool cwb_value(bool a) { return a; }
__device__ __forceinline__ cwb_i64 cwb_value(cwb_i64 a) { return a; }
template <class F> __device__ __forceinline__ cwb_rn<F> fabs(cwb_rn<F> a) { return ::fabs(a.v); }
template <class F> __device__ __forceinline__ cwb_rn<F> rint(cwb_rn<F> a) { return ::rint(a.v); }  // half to even
template <class F> __device__ __forceinline__ cwb_rn<F> atan2(cwb_rn<F> a, cwb_rn<F> b) { return ::atan2(a.v, b.v); }
// pow and // in double, as the interpreter: float's powf and a float quotient can round differently.
template <class F> __device__ __forceinline__ cwb_rn<F> pow(cwb_rn<F> a, cwb_rn<F> b) { return (F)::pow((double)a.v, (double)b.v); }
template <class F> __device__ __forceinline__ cwb_rn<F> floordiv(cwb_rn<F> a, cwb_rn<F> b) { return (F)::floor((double)a.v / (double)b.v); }
template <class F> __device__ __forceinline__ cwb_rn<F> fmod(cwb_rn<F> a, cwb_rn<F> b) { return ::fmod(a.v, b.v); }
template <class F> __device__ __forceinline__ cwb_rn<F> pymod(cwb_rn<F> a, cwb_rn<F> b) { return cwb_fmod_py(a.v, b.v); }
template <class F> __device__ __forceinline__ cwb_rn<F> maximum(cwb_rn<F> a, cwb_rn<F> b) { return cwb_maximum(a.v, b.v); }
template <class F> __device__ __forceinline__ cwb_rn<F> minimum(cwb_rn<F> a, cwb_rn<F> b) { return cwb_minimum(a.v, b.v); }
__device__ __forceinline__ cwb_i64 idiv(cwb_i64 a, cwb_i64 b) { return cwb_idiv(a, b); }
__device__ __forceinline__ cwb_i64 ifloordiv(cwb_i64 a, cwb_i64 b) { return cwb_ifloordiv(a, b); }
__device__ __forceinline__ cwb_i64 imod(cwb_i64 a, cwb_i64 b) { return cwb_imod(a, b); }
__device__ __forceinline__ cwb_i64 irem(cwb_i64 a, cwb_i64 b) { return cwb_irem(a, b); }
__device__ __forceinline__ cwb_i64 ipow(cwb_i64 a, cwb_i64 b) { return cwb_ipow(a, b); }
__device__ __forceinline__ cwb_i64 ishl(cwb_i64 a, cwb_i64 b) { return (b < 0 || b >= 64) ? 0 : (cwb_i64)((cwb_u64)a << b); }
__device__ __forceinline__ cwb_i64 ishr(cwb_i64 a, cwb_i64 b) { return (b < 0 || b >= 64) ? (a < 0 ? -1 : 0) : (a >> b); }
)CUDA";

std::string elementwiseForms() {
    std::string text = kFormHelpers;
#define CWB_UNARY_MATH(Name, function, integers, llvm)                                                           \
    text += "template <class F> __device__ __forceinline__ cwb_rn<F> " #function "(cwb_rn<F> a) { return ::" #function \
            "(a.v); }\n";
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
    // Each row's forms; a form the typing never uses is left out (it may not compile for that operand type).
    auto row = [&](const char* function, const char* params, const char* args, std::string_view typing, const char* floatForm,
                   const char* integerForm) {
        if (typing != "Integral")
            text += fmt::format("template <class F> __device__ __forceinline__ auto cwb_f_{0}({1}) {{ typedef cwb_rn<F> T; "
                                "return cwb_value({3}); }}\n",
                                function, fmt::format(fmt::runtime(params), "cwb_rn<F>"), args, floatForm);
        if (typing != "Promote" && typing != "Floating")
            text += fmt::format("__device__ __forceinline__ cwb_i64 cwb_i_{0}({1}) {{ typedef cwb_i64 T; return (cwb_i64)({3}); }}\n",
                                function, fmt::format(fmt::runtime(params), "cwb_i64"), args, integerForm);
    };
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    row(#function, "{0} a", "a", #typing, #floatForm, #integerForm);
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, ...) \
    row(#function, "{0} a, {0} b", "a, b", #typing, #floatForm, #integerForm);
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    return text + "}  // namespace cwb_forms\n";
}

}  // namespace

const std::string& prelude() {
    static const std::string text = std::string(tensor::cudagen::storagePrelude()) + kPrelude + elementwiseForms();
    return text;
}

std::string storageType(DType dtype) { return tensor::cudagen::storageTypeName(dtype); }

std::string computeType(DType dtype) { return tensor::cudagen::computeTypeName(dtype); }

int itemBytes(DType dtype) { return static_cast<int>(tensor::itemSize(dtype)); }

}  // namespace eng::inductor::cuda::detail
