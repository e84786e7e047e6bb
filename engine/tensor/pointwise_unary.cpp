// Unary pointwise kernels: math functions (computed in float for 16-bit types, in the default float type for
// integral inputs), activations (relu, gelu in erf and tanh forms, silu, sigmoid, ...) and predicates.
#include <cmath>
#include <numbers>
#include <type_traits>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/iteration.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/vector_math.h"

namespace eng::tensor {

namespace {

// Keep: integral inputs keep their dtype; Promote: they compute in the default float type (the names of
// ops/unary_math.def's `integers` column).
enum class UnaryTyping { Keep, Promote, FloatOnly, BoolResult };

UnaryTyping typingOf(UnaryOp op) {
    switch (op) {
        case UnaryOp::Neg:
        case UnaryOp::Abs:
        case UnaryOp::Sign:
        case UnaryOp::Relu:
        case UnaryOp::Square:
        case UnaryOp::Round:
        case UnaryOp::BitwiseNot: return UnaryTyping::Keep;
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case UnaryOp::Name:                                \
        return UnaryTyping::integers;
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
        case UnaryOp::Silu:
        case UnaryOp::GeluErf:
        case UnaryOp::GeluTanh:
        case UnaryOp::Mish:
        case UnaryOp::Softplus:
        case UnaryOp::Frac: return UnaryTyping::FloatOnly;
        case UnaryOp::LogicalNot:
        case UnaryOp::IsNan:
        case UnaryOp::IsInf:
        case UnaryOp::IsFinite: return UnaryTyping::BoolResult;
        default: return UnaryTyping::Promote;
    }
}

const char* kernelName(UnaryOp op) {
    switch (op) {
        case UnaryOp::Silu: return "silu_cpu";
        case UnaryOp::GeluErf:
        case UnaryOp::GeluTanh: return "GeluKernelImpl";
        case UnaryOp::Mish: return "mish_cpu";
        case UnaryOp::Softplus: return "softplus_cpu";
        case UnaryOp::Frac: return "frac_cpu";
        case UnaryOp::BitwiseNot: return "bitwise_not_cpu";
        default: return "unary_cpu";
    }
}

// Inside activations float32 takes the vectorisable versions (vector_math.h); double keeps libm's.
template <typename F>
[[gnu::always_inline]] inline F expOf(F v) {
    if constexpr (std::is_same_v<F, float>) return vecmath::exp(v);
    else return std::exp(v);
}

template <typename F>
[[gnu::always_inline]] inline F tanhOf(F v) {
    if constexpr (std::is_same_v<F, float>) return vecmath::tanh(v);
    else return std::tanh(v);
}

template <typename F>
[[gnu::always_inline]] inline F erfOf(F v) {
    if constexpr (std::is_same_v<F, float>) return vecmath::erf(v);
    else return std::erf(v);
}

template <typename F>
F softplusValue(F x) {
    return x > F(20) ? x : std::log1p(std::exp(x));
}

template <typename T>
void floatMath(UnaryOp op, const Tensor& out, const Tensor& x) {
    using F = OpMath<T>;
    // float32 tanh and erf take the vectorisable versions (vector_math.h); the other math functions are libm's
    // (glibc's expf is correctly rounded, and exp's own values are the ones printed and compared most).
    if (op == UnaryOp::Tanh) return mapUnary<T, T>(out, x, [](F v) { return tanhOf(v); });
    if (op == UnaryOp::Erf) return mapUnary<T, T>(out, x, [](F v) { return erfOf(v); });
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case UnaryOp::Name:                                \
        return mapUnary<T, T>(out, x, [](F v) { return std::function(v); });
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
        case UnaryOp::Neg: return mapUnary<T, T>(out, x, [](F v) { return -v; });
        case UnaryOp::Abs: return mapUnary<T, T>(out, x, [](F v) { return std::abs(v); });
        case UnaryOp::Sign: return mapUnary<T, T>(out, x, [](F v) { return v != v ? v : F((F(0) < v) - (v < F(0))); });
        case UnaryOp::Sigmoid: return mapUnary<T, T>(out, x, [](F v) { return F(1) / (F(1) + expOf(-v)); });
        case UnaryOp::Relu: return mapUnary<T, T>(out, x, [](F v) { return v > F(0) || v != v ? v : F(0); });
        case UnaryOp::Silu: return mapUnary<T, T>(out, x, [](F v) { return v / (F(1) + expOf(-v)); });
        case UnaryOp::GeluErf:
            return mapUnary<T, T>(out, x, [](F v) { return v * F(0.5) * (F(1) + erfOf(v * F(std::numbers::sqrt2 / 2))); });
        case UnaryOp::GeluTanh:
            return mapUnary<T, T>(out, x, [](F v) {
                constexpr F kBeta = F(std::numbers::sqrt2 * (2 * std::numbers::inv_sqrtpi) * 0.5);
                constexpr F kKappa = F(0.044715);
                const F inner = kBeta * (v + kKappa * v * v * v);
                return F(0.5) * v * (F(1) + tanhOf(inner));
            });
        case UnaryOp::Mish: return mapUnary<T, T>(out, x, [](F v) { return v * std::tanh(softplusValue(v)); });
        case UnaryOp::Softplus: return mapUnary<T, T>(out, x, [](F v) { return softplusValue(v); });
        case UnaryOp::Rsqrt: return mapUnary<T, T>(out, x, [](F v) { return F(1) / std::sqrt(v); });
        case UnaryOp::Reciprocal: return mapUnary<T, T>(out, x, [](F v) { return F(1) / v; });
        case UnaryOp::Square: return mapUnary<T, T>(out, x, [](F v) { return v * v; });
        case UnaryOp::Round: return mapUnary<T, T>(out, x, [](F v) { return std::nearbyint(v); });
        case UnaryOp::Frac: return mapUnary<T, T>(out, x, [](F v) { return v - std::trunc(v); });
        case UnaryOp::IsNan: return mapUnary<bool, T>(out, x, [](F v) { return v != v; });
        case UnaryOp::IsInf: return mapUnary<bool, T>(out, x, [](F v) { return std::isinf(v); });
        case UnaryOp::IsFinite: return mapUnary<bool, T>(out, x, [](F v) { return std::isfinite(v); });
        case UnaryOp::LogicalNot: return mapUnary<bool, T>(out, x, [](F v) { return v == F(0); });
        case UnaryOp::BitwiseNot: break;
    }
    fail(ErrorKind::NotImplemented, fmt::format("\"{}\" not implemented for '{}'", kernelName(op), dtypeKernelName(dtypeOf<T>())));
}

template <typename T>
void integralMath(UnaryOp op, const Tensor& out, const Tensor& x) {
    using I = T;
    switch (op) {
        case UnaryOp::Neg: return mapUnary<T, T>(out, x, [](I v) { return static_cast<I>(-v); });
        case UnaryOp::Abs:
            return mapUnary<T, T>(out, x, [](I v) {
                if constexpr (std::is_signed_v<I>) return static_cast<I>(v < 0 ? -v : v);
                else return v;
            });
        case UnaryOp::Sign: return mapUnary<T, T>(out, x, [](I v) { return static_cast<I>((I(0) < v) - (v < I(0))); });
        case UnaryOp::Relu: return mapUnary<T, T>(out, x, [](I v) { return v > I(0) ? v : I(0); });
        case UnaryOp::Square: return mapUnary<T, T>(out, x, [](I v) { return static_cast<I>(v * v); });
        case UnaryOp::Floor:
        case UnaryOp::Ceil:
        case UnaryOp::Round:
        case UnaryOp::Trunc: return mapUnary<T, T>(out, x, [](I v) { return v; });
        case UnaryOp::BitwiseNot: return mapUnary<T, T>(out, x, [](I v) { return static_cast<I>(~v); });
        case UnaryOp::IsNan:
        case UnaryOp::IsInf: return mapUnary<bool, T>(out, x, [](I) { return false; });
        case UnaryOp::IsFinite: return mapUnary<bool, T>(out, x, [](I) { return true; });
        case UnaryOp::LogicalNot: return mapUnary<bool, T>(out, x, [](I v) { return v == I(0); });
        default: break;
    }
    fail(ErrorKind::NotImplemented, fmt::format("\"{}\" not implemented for '{}'", kernelName(op), dtypeKernelName(dtypeOf<T>())));
}

void boolMath(UnaryOp op, const Tensor& out, const Tensor& x) {
    switch (op) {
        case UnaryOp::Neg:
            fail(ErrorKind::Runtime,
                 "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
                 "the `~` or `logical_not()` operator instead.");
        case UnaryOp::BitwiseNot:
        case UnaryOp::LogicalNot: return mapUnary<bool, bool>(out, x, [](bool v) { return !v; });
        case UnaryOp::IsNan:
        case UnaryOp::IsInf: return mapUnary<bool, bool>(out, x, [](bool) { return false; });
        case UnaryOp::IsFinite: return mapUnary<bool, bool>(out, x, [](bool) { return true; });
        default: return mapUnary<bool, bool>(out, x, [](bool v) { return v; });
    }
}

DType unaryResultType(UnaryOp op, DType input) {
    switch (typingOf(op)) {
        case UnaryTyping::BoolResult: return DType::Bool;
        case UnaryTyping::Promote: return isFloating(input) ? input : kDefaultFloat;
        case UnaryTyping::FloatOnly:
            if (!isFloating(input))
                fail(ErrorKind::NotImplemented, fmt::format("\"{}\" not implemented for '{}'", kernelName(op), dtypeKernelName(input)));
            return input;
        case UnaryTyping::Keep: return op == UnaryOp::Square && input == DType::Bool ? DType::Int64 : input;
    }
    return input;
}

void runUnary(UnaryOp op, const Tensor& out, const Tensor& x) {
    dispatchDType(x.dtype(), [&]<typename T>() {
        if constexpr (std::is_same_v<T, bool>) boolMath(op, out, x);
        else if constexpr (std::is_integral_v<T>) integralMath<T>(op, out, x);
        else floatMath<T>(op, out, x);
    });
}

}  // namespace

namespace {

/// torch's call of a unary op, as the op recorder writes it.
RecordedCall torchCallOf(UnaryOp op, const Tensor& x, std::string_view& function) {
    RecordedCall call{{Value(x)}, {}};
    switch (op) {
#define CWB_UNARY_MATH(Name, fn, integers, llvm) \
    case UnaryOp::Name: function = #fn; break;
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
        case UnaryOp::Neg: function = "neg"; break;
        case UnaryOp::Abs: function = "abs"; break;
        case UnaryOp::Sign: function = "sign"; break;
        case UnaryOp::Sigmoid: function = "sigmoid"; break;
        case UnaryOp::Relu: function = "relu"; break;
        case UnaryOp::Silu: function = "nn.functional.silu"; break;
        case UnaryOp::GeluErf: function = "nn.functional.gelu"; break;
        case UnaryOp::GeluTanh: function = "nn.functional.gelu"; call.kwargs.emplace_back("approximate", Value("tanh")); break;
        case UnaryOp::Mish: function = "nn.functional.mish"; break;
        case UnaryOp::Softplus: function = "nn.functional.softplus"; break;
        case UnaryOp::Rsqrt: function = "rsqrt"; break;
        case UnaryOp::Reciprocal: function = "reciprocal"; break;
        case UnaryOp::Square: function = "square"; break;
        case UnaryOp::Round: function = "round"; break;
        case UnaryOp::Frac: function = "frac"; break;
        case UnaryOp::LogicalNot: function = "logical_not"; break;
        case UnaryOp::BitwiseNot: function = "bitwise_not"; break;
        case UnaryOp::IsNan: function = "isnan"; break;
        case UnaryOp::IsInf: function = "isinf"; break;
        case UnaryOp::IsFinite: function = "isfinite"; break;
    }
    return call;
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x) {
    if (activeOpRecorder()) {
        std::string_view function;
        RecordedCall call = torchCallOf(op, x, function);
        return recordedOp(function, [&] { return std::move(call); }, [&] { return unary(op, x); });
    }
    if (op == UnaryOp::BitwiseNot && isFloating(x.dtype()))
        fail(ErrorKind::Type, "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
    const DType outType = unaryResultType(op, x.dtype());
    // Compute in the result type (ints become floats first), except predicates which read the input as is.
    const Tensor input = typingOf(op) == UnaryTyping::BoolResult ? x : to(x, outType);
    const Tensor inputs[] = {input};
    Tensor out = emptyForOutput(x.sizes(), outType, inputs, x.device());
    if (cudaops::onCuda(x)) cudaops::unary(op, out, input);
    else runUnary(op, out, input);
    return out;
}

const Tensor& unaryInPlace(UnaryOp op, const Tensor& self) {
    const DType outType = unaryResultType(op, self.dtype());
    if (outType != self.dtype()) {
        if (!canCast(outType, self.dtype()))
            fail(ErrorKind::Runtime, fmt::format("result type {} can't be cast to the desired output type {}",
                                                 dtypeKernelName(outType), dtypeKernelName(self.dtype())));
        copyInto(self, unary(op, self));
        return self;
    }
    if (cudaops::onCuda(self)) cudaops::unary(op, self, self);
    else runUnary(op, self, self);
    return self;
}

Tensor gelu(const Tensor& x, std::string_view approximate) {
    if (approximate == "none") return unary(UnaryOp::GeluErf, x);
    if (approximate == "tanh") return unary(UnaryOp::GeluTanh, x);
    fail(ErrorKind::Runtime, fmt::format("approximate argument must be either none or tanh."));
}

Tensor leakyRelu(const Tensor& x, double negativeSlope) {
    if (activeOpRecorder())
        return recordedOp("nn.functional.leaky_relu", [&] { return RecordedCall{{Value(x), Value(negativeSlope)}, {}}; }, [&] { return leakyRelu(x, negativeSlope); });
    if (!isFloating(x.dtype()))
        fail(ErrorKind::NotImplemented, fmt::format("\"leaky_relu_cpu\" not implemented for '{}'", dtypeKernelName(x.dtype())));
    const Tensor inputs[] = {x};
    Tensor out = emptyForOutput(x.sizes(), x.dtype(), inputs, x.device());
    if (cudaops::onCuda(x)) {
        cudaops::leakyRelu(out, x, negativeSlope);
        return out;
    }
    dispatchDType(x.dtype(), [&]<typename T>() {
        if constexpr (!std::is_integral_v<T>) {
            using F = OpMath<T>;
            const F slope = static_cast<F>(negativeSlope);
            mapUnary<T, T>(out, x, [slope](F v) { return v > F(0) ? v : v * slope; });
        }
    });
    return out;
}

}  // namespace eng::tensor
