// Binary pointwise kernels: operands are promoted to a common compute dtype (torch.result_type),
// broadcast, and mapped with one typed loop per row of ops/elementwise.def, computed from the row's
// forms.
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

namespace eng::tensor {

namespace {

constexpr ElementwiseRow kRows[] = {
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, bools, kernel, \
                               call)                                                          \
    {ops::ElementTyping::typing, eagerforms::kBools##bools, kernel, call},
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
};

[[noreturn]] void notImplemented(BinaryOp op, DType dtype) {
    eagerforms::notImplemented(rowOf(op), dtype);
}

bool isBoolOperand(const Operand& o) {
    return o.isTensor() ? o.tensor().dtype() == DType::Bool : o.scalar().isBool();
}

void checkOperands(BinaryOp op, const Operand& a, const Operand& b) {
    if (op == BinaryOp::Sub && (isBoolOperand(a) || isBoolOperand(b))) {
        if (isBoolOperand(a) && isBoolOperand(b))
            fail(ErrorKind::Runtime,
                 "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                 "`^` or "
                 "`logical_xor()` operator instead.");
        fail(ErrorKind::Runtime,
             "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
             "trying to "
             "invert a mask, use the `~` or `logical_not()` operator instead.");
    }
}

Tensor tensorOrUndefined(const Operand& o) { return o.isTensor() ? o.tensor() : Tensor(); }

}  // namespace

const ElementwiseRow& rowOf(BinaryOp op) { return kRows[static_cast<size_t>(op)]; }

namespace eagerforms {
namespace {

template <typename Element>
void binaryKernel(BinaryOp op, const Tensor& out, const Tensor& x, const Tensor& y) {
    switch (op) {
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, ...) \
    case BinaryOp::Name:                                                            \
        return runRow<Element, ops::ElementTyping::typing>(                         \
            rowOf(op),                                                              \
            []([[maybe_unused]] auto a, [[maybe_unused]] auto b) {                  \
                using T [[maybe_unused]] = decltype(a);                             \
                return floatForm;                                                   \
            },                                                                      \
            []([[maybe_unused]] auto a, [[maybe_unused]] auto b) {                  \
                using T [[maybe_unused]] = decltype(a);                             \
                return integerForm;                                                 \
            },                                                                      \
            out, x, y);
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
    }
}

}  // namespace
}  // namespace eagerforms

namespace {

Tensor asComputeTensor(const Operand& o, DType dtype) {
    return o.isTensor() ? to(o.tensor(), dtype) : scalarTensor(o.scalar(), dtype);
}

DType computeTypeFor(BinaryOp op, const Operand& a, const Operand& b) {
    const DType common = resultType(a, b);
    const ops::ElementTyping typing = rowOf(op).typing;
    // true division and the Promote rows (atan2) of integers compute in the default float type
    if ((op == BinaryOp::Div || typing == ops::ElementTyping::Promote) && isIntegral(common, true))
        return kDefaultFloat;
    if (typing == ops::ElementTyping::Integral && isFloating(common)) notImplemented(op, common);
    if (typing == ops::ElementTyping::Floating && !isFloating(common)) notImplemented(op, common);
    return common;
}

bool isComplexCall(const Operand& a, const Operand& b) {
    return (a.isTensor() && isComplex(a.tensor().dtype())) || (b.isTensor() && isComplex(b.tensor().dtype()));
}

/// Both operands in the compute type, broadcast to their common shape: what the loop reads.
struct BinaryOperands {
    Tensor left;
    Tensor right;
    Shape shape;
};

/// binary()'s and binaryInto's opening steps (real operands), shared so the two agree: PyTorch's operand checks,
/// the device, the compute and result types. The conversions wait for operandsOf, so binaryInto declines first.
struct BinaryPlan {
    Device device;
    DType compute;
    DType outType;

    BinaryOperands operandsOf(const Operand& a, const Operand& b) const {
        Tensor left = asComputeTensor(a, compute);
        Tensor right = asComputeTensor(b, compute);
        const Shape shape = broadcastShapes(left.sizes(), right.sizes());
        return {expandTo(left, shape), expandTo(right, shape), shape};
    }
};

BinaryPlan planBinary(BinaryOp op, const Operand& a, const Operand& b) {
    checkOperands(op, a, b);
    const Device device = cudaops::commonDevice({tensorOrUndefined(a), tensorOrUndefined(b)});
    const DType compute = computeTypeFor(op, a, b);
    return {device, compute, rowOf(op).typing == ops::ElementTyping::Bool ? DType::Bool : compute};
}

}  // namespace

DType resultType(std::span<const Operand> operands) {
    ResultTypeBuilder builder;
    for (const Operand& o : operands) {
        if (o.isTensor())
            builder.addTensor(o.tensor().dtype(), o.tensor().dim());
        else
            builder.addScalar(o.scalar().kind());
    }
    return builder.result();
}

DType resultType(const Operand& a, const Operand& b) {
    const Operand both[] = {a, b};
    return resultType(both);
}

bool canCast(DType from, DType to) {
    if (isComplex(from) && !isComplex(to)) return false;
    if (isFloating(from) && isIntegral(to, true)) return false;
    if (from != DType::Bool && to == DType::Bool) return false;
    return true;
}

namespace {

/// torch's call of a binary op, as the op recorder writes it (its row's `call` column).
RecordedCall torchCallOf(BinaryOp op, const Operand& a, const Operand& b,
                         std::string_view& function) {
    const ops::TorchCall torch = ops::torchCallOf(rowOf(op).call);
    RecordedCall call{{recordedValue(a), recordedValue(b)}, {}};
    function = torch.function;
    if (!torch.keyword.empty())
        call.kwargs.emplace_back(std::string(torch.keyword), Value(std::string(torch.value)));
    return call;
}

}  // namespace

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const Tensor* into) {
    if (!into && activeOpRecorder()) {
        std::string_view function;
        RecordedCall call = torchCallOf(op, a, b, function);
        return recordedOp(
            function, [&] { return std::move(call); }, [&] { return binary(op, a, b); });
    }
    if (isComplexCall(a, b)) {
        checkOperands(op, a, b);
        return complexBinary(op, a, b, into);
    }
    const BinaryPlan plan = planBinary(op, a, b);
    const DType compute = plan.compute;
    const DType outType = plan.outType;
    const auto [left, right, shape] = plan.operandsOf(a, b);
    Tensor out;
    if (into) {
        if (shape != into->sizes())
            fail(ErrorKind::Runtime,
                 fmt::format("output with shape {} doesn't match the broadcast shape {}",
                             shapeStr(into->sizes()), shapeStr(shape)));
        if (!canCast(outType, into->dtype()))
            fail(ErrorKind::Runtime,
                 fmt::format("result type {} can't be cast to the desired output type {}",
                             dtypeKernelName(outType), dtypeKernelName(into->dtype())));
        if (into->dtype() == outType) out = *into;
    }
    if (!out.defined()) {
        const Tensor inputs[] = {left, right};
        out = emptyForOutput(shape, outType, inputs, plan.device);
    }
    if (cudaops::onCuda(out))
        cudaops::binary(op, out, left, right);
    else if (!into && isFloating(compute))  // a fresh result of a loop that cannot fail: the capture may defer it
        fillOrDefer(out, {left, right}, [op, compute](const Tensor& o, std::span<const Tensor> in) {
            dispatchDType(compute, [&]<typename T>() { eagerforms::binaryKernel<T>(op, o, in[0], in[1]); });
        });
    else
        dispatchDType(compute,
                      [&]<typename T>() { eagerforms::binaryKernel<T>(op, out, left, right); });
    if (into && !out.isSameTensor(*into)) copyInto(*into, out);
    return into ? *into : out;
}

bool outTakesResult(const Tensor& out, const Shape& shape, DType dtype, std::span<const Tensor> inputs) {
    if (!out.device().isCpu() || out.dtype() != dtype || out.sizes() != shape || activeOpRecorder() || deferringFills()) return false;
    const Shape fresh = outputStridesFor(shape, inputs);
    for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 1 && out.strides()[d] != fresh[d]) return false;
    for (const Tensor& input : inputs)
        if (overlapsInexactly(input, out)) return false;
    return true;
}

bool binaryInto(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out) {
    if (isComplexCall(a, b)) return false;
    const BinaryPlan plan = planBinary(op, a, b);
    // binary()'s loops that cannot fail: an error never leaves `out` half written.
    if (!plan.device.isCpu() || !isFloating(plan.compute) || out.dtype() != plan.outType) return false;
    const auto [left, right, shape] = plan.operandsOf(a, b);
    const Tensor inputs[] = {left, right};
    if (!outTakesResult(out, shape, plan.outType, inputs)) return false;
    dispatchDType(plan.compute, [&]<typename T>() { eagerforms::binaryKernel<T>(op, out, left, right); });
    return true;
}

bool isUnitAlpha(Scalar alpha) { return alpha.isIntegral() && alpha.toInt() == 1; }

BinaryOp divOpFor(std::optional<std::string_view> roundingMode) {
    if (!roundingMode) return BinaryOp::Div;
    if (*roundingMode == "trunc") return BinaryOp::DivTrunc;
    if (*roundingMode == "floor") return BinaryOp::FloorDiv;
    fail(ErrorKind::Value,
         fmt::format(
             "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'",
             *roundingMode));
}

Tensor add(const Operand& a, const Operand& b, Scalar alpha) {
    if (isUnitAlpha(alpha)) return binary(BinaryOp::Add, a, b);
    return binary(BinaryOp::Add, a, binary(BinaryOp::Mul, b, alpha));
}

Tensor sub(const Operand& a, const Operand& b, Scalar alpha) {
    if (isUnitAlpha(alpha)) return binary(BinaryOp::Sub, a, b);
    checkOperands(BinaryOp::Sub, a, b);
    return binary(BinaryOp::Sub, a, binary(BinaryOp::Mul, b, alpha));
}

Tensor div(const Operand& a, const Operand& b, std::optional<std::string_view> roundingMode) {
    return binary(divOpFor(roundingMode), a, b);
}

const Tensor& binaryInPlace(BinaryOp op, const Tensor& self, const Operand& other) {
    binary(op, self, other, &self);
    return self;
}

const Tensor& addInPlace(const Tensor& self, const Operand& other, Scalar alpha) {
    if (isUnitAlpha(alpha)) return binaryInPlace(BinaryOp::Add, self, other);
    return binaryInPlace(BinaryOp::Add, self, binary(BinaryOp::Mul, other, alpha));
}

const Tensor& subInPlace(const Tensor& self, const Operand& other, Scalar alpha) {
    if (isUnitAlpha(alpha)) return binaryInPlace(BinaryOp::Sub, self, other);
    return binaryInPlace(BinaryOp::Sub, self, binary(BinaryOp::Mul, other, alpha));
}

}  // namespace eng::tensor
