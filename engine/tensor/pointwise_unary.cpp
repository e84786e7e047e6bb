// Unary pointwise kernels: every unary row of ops/unary_math.def and ops/elementwise.def (math
// functions, activations, predicates) computed from the row's forms, in float for 16-bit types and
// in the default float type for integral inputs where the row promotes.
#include <type_traits>

#include <fmt/format.h>

#include "tensor/complex.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/deferred_fill.h"
#include "tensor/iteration.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/pointwise_forms.h"
#include "tensor/vector_libm.h"

namespace eng::tensor {

namespace {

// The math functions of ops/unary_math.def keep integers (Keep: floor) or compute them in the
// default float type (Promote: exp), like the Same and Promote rows of ops/elementwise.def.
constexpr ops::ElementTyping kMathTypingKeep = ops::ElementTyping::Same;
constexpr ops::ElementTyping kMathTypingPromote = ops::ElementTyping::Promote;

constexpr ElementwiseRow kRows[] = {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    {kMathTyping##integers, true, #function "_cpu", #function},
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, bools, kernel, call) \
    {ops::ElementTyping::typing, eagerforms::kBools##bools, kernel, call},
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_UNARY
};

[[noreturn]] void notImplemented(UnaryOp op, DType dtype) {
    eagerforms::notImplemented(rowOf(op), dtype);
}

}  // namespace

const ElementwiseRow& rowOf(UnaryOp op) { return kRows[static_cast<size_t>(op)]; }

namespace eagerforms {
namespace {

template <typename Element>
void unaryKernel(UnaryOp op, const Tensor& out, const Tensor& x) {
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm)                                          \
    case UnaryOp::Name:                                                                         \
        return runRow<Element, kMathTyping##integers>(                                          \
            rowOf(op), [](auto a) { return eagermath::function(a); }, [](auto a) { return a; }, \
            out, x);
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    case UnaryOp::Name:                                                            \
        return runRow<Element, ops::ElementTyping::typing>(                        \
            rowOf(op),                                                             \
            []([[maybe_unused]] auto a) {                                          \
                using T [[maybe_unused]] = decltype(a);                            \
                return floatForm;                                                  \
            },                                                                     \
            []([[maybe_unused]] auto a) {                                          \
                using T [[maybe_unused]] = decltype(a);                            \
                return integerForm;                                                \
            },                                                                     \
            out, x);
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_UNARY
    }
}

}  // namespace
}  // namespace eagerforms

namespace {

DType unaryResultType(UnaryOp op, DType input) {
    switch (rowOf(op).typing) {
        case ops::ElementTyping::Bool: return DType::Bool;
        case ops::ElementTyping::Promote: return isFloating(input) ? input : kDefaultFloat;
        case ops::ElementTyping::Floating:
            if (!isFloating(input)) notImplemented(op, input);
            return input;
        case ops::ElementTyping::Same:
        case ops::ElementTyping::Integral:
            return op == UnaryOp::Square && input == DType::Bool ? DType::Int64 : input;
    }
    return input;
}

// PyTorch's own errors for the operators on the wrong dtype; ~ of a bool tensor is logical_not.
UnaryOp checkedOp(UnaryOp op, DType dtype) {
    if (op == UnaryOp::BitNot && isFloating(dtype))
        fail(ErrorKind::Type,
             "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
    if (op == UnaryOp::Neg && dtype == DType::Bool)
        fail(ErrorKind::Runtime,
             "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
             "invert a mask, use "
             "the `~` or `logical_not()` operator instead.");
    return op == UnaryOp::BitNot && dtype == DType::Bool ? UnaryOp::LogicalNot : op;
}

void runUnary(UnaryOp op, const Tensor& out, const Tensor& x) {
    // float32 sin and cos: libmvec's vector functions (the compiled kernels' too) instead of libm's scalar ones.
    if (x.dtype() == DType::Float32 && out.dtype() == DType::Float32 && x.isContiguous() && out.isContiguous() && vectorlibm::covers(op))
        return vectorlibm::run(op, x.dataAs<const float>(), out.dataAs<float>(), out.numel());
    dispatchDType(x.dtype(), [&]<typename T>() { eagerforms::unaryKernel<T>(op, out, x); });
}

/// unary()'s and unaryInto's opening steps, shared so the two agree: PyTorch's dtype errors, the result type, the
/// dtype the loop reads (the result type, ints become floats first; predicates read the input as is) and whether
/// that loop cannot fail (float elements, not an integral-only row). No conversion yet: unaryInto declines first.
struct UnaryPlan {
    UnaryOp op;
    DType outType;
    bool readsAsIs;  // a predicate
    bool cannotFail;
    Tensor inputOf(const Tensor& x) const { return readsAsIs ? x : to(x, outType); }
};

UnaryPlan planUnary(UnaryOp op, const Tensor& x) {
    op = checkedOp(op, x.dtype());
    const DType outType = unaryResultType(op, x.dtype());
    const ops::ElementTyping typing = rowOf(op).typing;
    const bool readsAsIs = typing == ops::ElementTyping::Bool;
    return {op, outType, readsAsIs, isFloating(readsAsIs ? x.dtype() : outType) && typing != ops::ElementTyping::Integral};
}

/// torch's call of a unary op, as the op recorder writes it (its row's `call` column).
RecordedCall torchCallOf(UnaryOp op, const Tensor& x, std::string_view& function) {
    const ops::TorchCall torch = ops::torchCallOf(rowOf(op).call);
    RecordedCall call{{Value(x)}, {}};
    function = torch.function;
    if (!torch.keyword.empty())
        call.kwargs.emplace_back(std::string(torch.keyword), Value(std::string(torch.value)));
    return call;
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x) {
    if (activeOpRecorder()) {
        std::string_view function;
        RecordedCall call = torchCallOf(op, x, function);
        return recordedOp(
            function, [&] { return std::move(call); }, [&] { return unary(op, x); });
    }
    if (isComplex(x.dtype())) return complexUnary(op, x);
    const UnaryPlan plan = planUnary(op, x);
    const Tensor input = plan.inputOf(x);
    const Tensor inputs[] = {input};
    Tensor out = emptyForOutput(x.sizes(), plan.outType, inputs, x.device());
    if (cudaops::onCuda(x))
        cudaops::unary(plan.op, out, input);
    else if (plan.cannotFail)
        fillOrDefer(out, {input}, [op = plan.op](const Tensor& o, std::span<const Tensor> in) { runUnary(op, o, in[0]); });
    else
        runUnary(plan.op, out, input);
    return out;
}

bool unaryInto(UnaryOp op, const Tensor& x, const Tensor& out) {
    if (isComplex(x.dtype()) || !x.device().isCpu()) return false;
    const UnaryPlan plan = planUnary(op, x);
    // Only the loops that cannot fail: an error never leaves `out` half written.
    if (!plan.cannotFail || out.dtype() != plan.outType || out.sizes() != x.sizes()) return false;
    const Tensor input = plan.inputOf(x);
    const Tensor inputs[] = {input};
    if (!outTakesResult(out, x.sizes(), plan.outType, inputs)) return false;
    runUnary(plan.op, out, input);
    return true;
}

const Tensor& unaryInPlace(UnaryOp op, const Tensor& self) {
    if (isComplex(self.dtype())) {
        const Tensor result = complexUnary(op, self);
        if (!isComplex(result.dtype())) fail(ErrorKind::Runtime, fmt::format("result type {} can't be cast to the desired output type {}",
                                                                            dtypeKernelName(result.dtype()), dtypeKernelName(self.dtype())));
        copyInto(self, result);
        return self;
    }
    op = checkedOp(op, self.dtype());
    const DType outType = unaryResultType(op, self.dtype());
    if (outType != self.dtype()) {
        if (!canCast(outType, self.dtype()))
            fail(ErrorKind::Runtime,
                 fmt::format("result type {} can't be cast to the desired output type {}",
                             dtypeKernelName(outType), dtypeKernelName(self.dtype())));
        copyInto(self, unary(op, self));
        return self;
    }
    if (cudaops::onCuda(self))
        cudaops::unary(op, self, self);
    else
        runUnary(op, self, self);
    return self;
}

Tensor gelu(const Tensor& x, std::string_view approximate) {
    if (approximate == "none") return unary(UnaryOp::Gelu, x);
    if (approximate == "tanh") return unary(UnaryOp::GeluTanh, x);
    fail(ErrorKind::Runtime, fmt::format("approximate argument must be either none or tanh."));
}

Tensor leakyRelu(const Tensor& x, double negativeSlope) {
    if (activeOpRecorder())
        return recordedOp(
            "nn.functional.leaky_relu",
            [&] {
                return RecordedCall{{Value(x), Value(negativeSlope)}, {}};
            },
            [&] { return leakyRelu(x, negativeSlope); });
    if (!isFloating(x.dtype()))
        fail(ErrorKind::NotImplemented, fmt::format("\"leaky_relu_cpu\" not implemented for '{}'",
                                                    dtypeKernelName(x.dtype())));
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
