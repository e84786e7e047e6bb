// The helpers that ops/elementwise.def's forms call, for the eager CPU kernels: over each kernel's
// own scalar type (OpMath<T> for floats, the element type for integers) with PyTorch's eager
// semantics, where they differ from compiled code: Python's exact floor division of floats
// (div_floor_floating), and integer division by zero raises RuntimeError("ZeroDivisionError").
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "tensor/error.h"
#include "tensor/iteration.h"
#include "tensor/pointwise.h"
#include "tensor/vector_math.h"

namespace eng::tensor {

// The math functions of ops/unary_math.def as the eager kernels compute them: libm's, but float32
// tanh and erf take the vectorisable versions (vector_math.h). glibc's expf stays for torch.exp
// itself: it is correctly rounded, and exp's own values are the ones printed and compared most.
namespace eagermath {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    template <class F>                                 \
    [[gnu::always_inline]] inline F function(F v) {    \
        return std::function(v);                       \
    }
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
template <>
[[gnu::always_inline]] inline float tanh<float>(float v) {
    return vecmath::tanh(v);
}
template <>
[[gnu::always_inline]] inline float erf<float>(float v) {
    return vecmath::erf(v);
}
}  // namespace eagermath

namespace eagerforms {

#define CWB_UNARY_MATH(Name, function, integers, llvm) using eagermath::function;
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
// Inside activations (sigmoid, silu, softplus, ...) float32 exp is the vectorisable one too.
[[gnu::always_inline]] inline float exp(float v) { return vecmath::exp(v); }

template <class X, class Y>
[[gnu::always_inline]] inline std::common_type_t<X, Y> select(bool condition, X whenTrue,
                                                              Y whenFalse) {
    return condition ? whenTrue : whenFalse;
}

template <class F>
[[gnu::always_inline]] inline F fabs(F a) {
    return std::abs(a);
}
template <class F>
[[gnu::always_inline]] inline F rint(F a) {
    return std::nearbyint(a);
}
template <class F>
[[gnu::always_inline]] inline F pow(F a, F b) {
    return std::pow(a, b);
}
template <class F>
[[gnu::always_inline]] inline F atan2(F a, F b) {
    return std::atan2(a, b);
}
template <class F>
[[gnu::always_inline]] inline F fmod(F a, F b) {
    return std::fmod(a, b);
}
// torch.maximum / minimum: a NaN operand wins.
template <class F>
[[gnu::always_inline]] inline F maximum(F a, F b) {
    return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b);
}
template <class F>
[[gnu::always_inline]] inline F minimum(F a, F b) {
    return (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b);
}

// Python's float floor division and modulo (also PyTorch's), exact for signed zeros and infinities.
template <class F>
F floordiv(F a, F b) {
    if (b == 0) return a / b;
    const F mod = std::fmod(a, b);
    F quotient = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) quotient -= F(1);
    if (quotient == 0) return std::copysign(F(0), a / b);
    F floored = std::floor(quotient);
    if (quotient - floored > F(0.5)) floored += F(1);
    return floored;
}
template <class F>
[[gnu::always_inline]] inline F pymod(F a, F b) {
    const F mod = std::fmod(a, b);
    return (mod != 0 && ((b < 0) != (mod < 0))) ? mod + b : mod;
}

// PyTorch raises RuntimeError("ZeroDivisionError") for integer division by zero, not Python's
// class. A divisor of -1 negates (wrapping, so that INT_MIN / -1 does not trap).
template <class I>
I nonzeroDivisor(I b) {
    if (b == 0) fail(ErrorKind::Runtime, "ZeroDivisionError");
    return b;
}
template <class I>
I wrappingNegate(I a) {
    return static_cast<I>(-static_cast<std::make_unsigned_t<I>>(a));
}
template <class I>
I idiv(I a, I b) {
    if constexpr (std::is_signed_v<I>)
        if (nonzeroDivisor(b) == I(-1)) return wrappingNegate(a);
    return static_cast<I>(a / nonzeroDivisor(b));
}
template <class I>
I irem(I a, I b) {
    if constexpr (std::is_signed_v<I>)
        if (nonzeroDivisor(b) == I(-1)) return I(0);
    return static_cast<I>(a % nonzeroDivisor(b));
}
template <class I>
I ifloordiv(I a, I b) {
    const I q = idiv(a, b);
    if constexpr (std::is_signed_v<I>)
        if (b != I(-1) && a % b != 0 && ((a < 0) != (b < 0))) return static_cast<I>(q - 1);
    return q;
}
template <class I>
I imod(I a, I b) {
    const I r = irem(a, b);
    if constexpr (std::is_signed_v<I>)
        if (r != 0 && ((r < 0) != (b < 0))) return static_cast<I>(r + b);
    return r;
}
// Integer pow by squaring; negative exponents give 1 for a base of 1, +-1 for -1 and 0 otherwise,
// as PyTorch.
template <class I>
I ipow(I base, I exponent) {
    if constexpr (std::is_signed_v<I>) {
        if (exponent < 0) {
            if (base == 1) return 1;
            if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
            return 0;
        }
    }
    I result = 1;
    while (exponent) {
        if (exponent & 1) result = static_cast<I>(result * base);
        exponent = static_cast<I>(exponent / 2);
        base = static_cast<I>(base * base);
    }
    return result;
}
// Shifts: a count outside [0, bits) shifts every bit out (ishr keeps the sign).
template <class I>
I ishl(I a, I b) {
    using U = std::make_unsigned_t<I>;
    return (b < 0 || b >= static_cast<I>(sizeof(I) * 8)) ? I(0)
                                                         : static_cast<I>(static_cast<U>(a) << b);
}
template <class I>
I ishr(I a, I b) {
    if (b < 0 || b >= static_cast<I>(sizeof(I) * 8)) return a < 0 ? I(-1) : I(0);
    return static_cast<I>(a >> b);
}

// The `bools` column's values.
constexpr bool kBoolsYes = true;
constexpr bool kBoolsNo = false;

[[noreturn]] inline void notImplemented(const ElementwiseRow& row, DType dtype) {
    fail(ErrorKind::NotImplemented,
         fmt::format("\"{}\" not implemented for '{}'", row.kernel, dtypeKernelName(dtype)));
}

template <typename Out, typename In, typename F, typename... Inputs>
void mapInputs(const Tensor& out, F f, const Inputs&... inputs) {
    if constexpr (sizeof...(Inputs) == 1)
        mapUnary<Out, In>(out, inputs..., f);
    else
        mapBinary<Out, In>(out, inputs..., f);
}

// One row of ops/elementwise.def on one dtype: floatForm over OpMath<Element> for floating tensors,
// integerForm over the element type for integral ones and over int (0/1, the result != 0) for bool
// ones; bool results for predicates. The dtypes the row's typing refuses raise PyTorch's "not
// implemented" error.
template <typename Element, ops::ElementTyping typing, typename FloatForm, typename IntegerForm,
          typename... Inputs>
void runRow(const ElementwiseRow& row, FloatForm floatForm, IntegerForm integerForm,
            const Tensor& out, const Inputs&... inputs) {
    using ops::ElementTyping;
    using Out = std::conditional_t<typing == ElementTyping::Bool, bool, Element>;
    if constexpr (std::is_same_v<Element, bool>) {
        if (!row.bools) notImplemented(row, DType::Bool);
        mapInputs<bool, bool>(
            out, [=](auto... v) { return integerForm(int{v}...) != 0; }, inputs...);
    } else if constexpr (std::is_integral_v<Element>) {
        if constexpr (typing == ElementTyping::Promote || typing == ElementTyping::Floating)
            notImplemented(row, dtypeOf<Element>());
        else
            mapInputs<Out, Element>(
                out, [=](auto... v) { return static_cast<Out>(integerForm(v...)); }, inputs...);
    } else {
        using Value = std::conditional_t<typing == ElementTyping::Bool, bool, OpMath<Element>>;
        if constexpr (typing == ElementTyping::Integral)
            notImplemented(row, dtypeOf<Element>());
        else
            mapInputs<Out, Element>(
                out, [=](auto... v) { return static_cast<Value>(floatForm(v...)); }, inputs...);
    }
}

}  // namespace eagerforms

}  // namespace eng::tensor
