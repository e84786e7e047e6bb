// Binary pointwise kernels: operands are promoted to a common compute dtype (torch.result_type), broadcast,
// and mapped with one typed loop per op. Integer division and modulo follow Python (floor) semantics.
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/iteration.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"

namespace eng::tensor {

namespace {

bool isComparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::Ge; }
bool isLogical(BinaryOp op) { return op >= BinaryOp::LogicalAnd && op <= BinaryOp::LogicalXor; }
bool isBitwise(BinaryOp op) { return op >= BinaryOp::BitwiseAnd; }

const char* kernelName(BinaryOp op) {
    switch (op) {
        case BinaryOp::Add: return "add_cpu";
        case BinaryOp::Sub: return "sub_cpu";
        case BinaryOp::Mul: return "mul_cpu";
        case BinaryOp::TrueDiv: return "div_true_cpu";
        case BinaryOp::TruncDiv: return "div_trunc_cpu";
        case BinaryOp::FloorDiv: return "div_floor_cpu";
        case BinaryOp::Remainder: return "remainder_cpu";
        case BinaryOp::Fmod: return "fmod_cpu";
        case BinaryOp::Pow: return "pow";
        case BinaryOp::Maximum: return "maximum_cpu";
        case BinaryOp::Minimum: return "minimum_cpu";
        case BinaryOp::Atan2: return "atan2_cpu";
        case BinaryOp::BitwiseAnd: return "bitwise_and_cpu";
        case BinaryOp::BitwiseOr: return "bitwise_or_cpu";
        case BinaryOp::BitwiseXor: return "bitwise_xor_cpu";
        case BinaryOp::ShiftLeft: return "lshift_cpu";
        case BinaryOp::ShiftRight: return "rshift_cpu";
        default: return "binary_cpu";
    }
}

[[noreturn]] void notImplementedFor(const char* kernel, DType dtype) {
    fail(ErrorKind::NotImplemented, fmt::format("\"{}\" not implemented for '{}'", kernel, dtypeKernelName(dtype)));
}

bool isBoolOperand(const Operand& o) { return o.isTensor() ? o.tensor().dtype() == DType::Bool : o.scalar().isBool(); }

void checkOperands(BinaryOp op, const Operand& a, const Operand& b) {
    if (op == BinaryOp::Sub && (isBoolOperand(a) || isBoolOperand(b))) {
        if (isBoolOperand(a) && isBoolOperand(b))
            fail(ErrorKind::Runtime, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                                     "`logical_xor()` operator instead.");
        fail(ErrorKind::Runtime, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                                 "invert a mask, use the `~` or `logical_not()` operator instead.");
    }
}

Tensor tensorOrUndefined(const Operand& o) { return o.isTensor() ? o.tensor() : Tensor(); }

// Python's float floor division and modulo (also PyTorch's), exact for signed zeros and infinities.
template <typename F>
F floorDivFloat(F a, F b) {
    if (b == 0) return a / b;
    F mod = std::fmod(a, b);
    F quotient = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) quotient -= F(1);
    if (quotient == 0) return std::copysign(F(0), a / b);
    F floored = std::floor(quotient);
    if (quotient - floored > F(0.5)) floored += F(1);
    return floored;
}

template <typename F>
F remainderFloat(F a, F b) {
    F mod = std::fmod(a, b);
    if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
    return mod;
}

// PyTorch raises RuntimeError("ZeroDivisionError") for integer division by zero, not Python's class.
[[noreturn]] void zeroDivision() { fail(ErrorKind::Runtime, "ZeroDivisionError"); }

template <typename I>
I powInt(I base, I exponent) {
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

template <typename T>
void runTyped(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
    using Op = OpMath<T>;
    constexpr bool kFloat = std::is_floating_point_v<Op>;
    constexpr bool kBool = std::is_same_v<T, bool>;
    switch (op) {
        case BinaryOp::Eq: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x == y; });
        case BinaryOp::Ne: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x != y; });
        case BinaryOp::Lt: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x < y; });
        case BinaryOp::Le: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x <= y; });
        case BinaryOp::Gt: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x > y; });
        case BinaryOp::Ge: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x >= y; });
        case BinaryOp::LogicalAnd: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x != Op(0) && y != Op(0); });
        case BinaryOp::LogicalOr: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return x != Op(0) || y != Op(0); });
        case BinaryOp::LogicalXor: return mapBinary<bool, T>(out, a, b, [](Op x, Op y) { return (x != Op(0)) != (y != Op(0)); });
        default: break;
    }
    if constexpr (kBool) {
        switch (op) {
            case BinaryOp::Add:
            case BinaryOp::Maximum:
            case BinaryOp::BitwiseOr: return mapBinary<bool, bool>(out, a, b, [](bool x, bool y) { return x || y; });
            case BinaryOp::Mul:
            case BinaryOp::Minimum:
            case BinaryOp::BitwiseAnd: return mapBinary<bool, bool>(out, a, b, [](bool x, bool y) { return x && y; });
            case BinaryOp::BitwiseXor: return mapBinary<bool, bool>(out, a, b, [](bool x, bool y) { return x != y; });
            case BinaryOp::Pow: return mapBinary<bool, bool>(out, a, b, [](bool x, bool y) { return x || !y; });
            default: notImplementedFor(kernelName(op), DType::Bool);
        }
    } else {
        switch (op) {
            case BinaryOp::Add: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return x + y; });
            case BinaryOp::Sub: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return x - y; });
            case BinaryOp::Mul: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return x * y; });
            case BinaryOp::Maximum:
                return mapBinary<T, T>(out, a, b, [](Op x, Op y) {
                    if constexpr (kFloat)
                        if (x != x || y != y) return x != x ? x : y;
                    return x > y ? x : y;
                });
            case BinaryOp::Minimum:
                return mapBinary<T, T>(out, a, b, [](Op x, Op y) {
                    if constexpr (kFloat)
                        if (x != x || y != y) return x != x ? x : y;
                    return x < y ? x : y;
                });
            default: break;
        }
        if constexpr (kFloat) {
            switch (op) {
                case BinaryOp::TrueDiv: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return x / y; });
                case BinaryOp::TruncDiv: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return std::trunc(x / y); });
                case BinaryOp::FloorDiv: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return floorDivFloat(x, y); });
                case BinaryOp::Remainder: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return remainderFloat(x, y); });
                case BinaryOp::Fmod: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return std::fmod(x, y); });
                case BinaryOp::Pow: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return std::pow(x, y); });
                case BinaryOp::Atan2: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return std::atan2(x, y); });
                default: notImplementedFor(kernelName(op), dtypeOf<T>());
            }
        } else {
            switch (op) {
                case BinaryOp::TruncDiv:
                    return mapBinary<T, T>(out, a, b, [](Op x, Op y) -> Op {
                        if (y == 0) zeroDivision();
                        return static_cast<Op>(x / y);
                    });
                case BinaryOp::FloorDiv:
                    return mapBinary<T, T>(out, a, b, [](Op x, Op y) -> Op {
                        if (y == 0) zeroDivision();
                        Op q = static_cast<Op>(x / y);
                        if constexpr (std::is_signed_v<Op>)
                            if (x % y != 0 && ((x < 0) != (y < 0))) --q;
                        return q;
                    });
                case BinaryOp::Remainder:
                    return mapBinary<T, T>(out, a, b, [](Op x, Op y) -> Op {
                        if (y == 0) zeroDivision();
                        Op r = static_cast<Op>(x % y);
                        if constexpr (std::is_signed_v<Op>)
                            if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<Op>(r + y);
                        return r;
                    });
                case BinaryOp::Fmod:
                    return mapBinary<T, T>(out, a, b, [](Op x, Op y) -> Op {
                        if (y == 0) zeroDivision();
                        return static_cast<Op>(x % y);
                    });
                case BinaryOp::Pow: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return powInt<Op>(x, y); });
                case BinaryOp::BitwiseAnd: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return x & y; });
                case BinaryOp::BitwiseOr: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return x | y; });
                case BinaryOp::BitwiseXor: return mapBinary<T, T>(out, a, b, [](Op x, Op y) { return x ^ y; });
                case BinaryOp::ShiftLeft:
                    return mapBinary<T, T>(out, a, b, [](Op x, Op y) -> Op {
                        using U = std::make_unsigned_t<Op>;
                        return y < 0 || y >= static_cast<Op>(sizeof(Op) * 8) ? Op(0) : static_cast<Op>(static_cast<U>(x) << y);
                    });
                case BinaryOp::ShiftRight:
                    return mapBinary<T, T>(out, a, b, [](Op x, Op y) -> Op {
                        const Op bits = static_cast<Op>(sizeof(Op) * 8);
                        if (y < 0 || y >= bits) return x < 0 ? Op(-1) : Op(0);
                        return static_cast<Op>(x >> y);
                    });
                default: notImplementedFor(kernelName(op), dtypeOf<T>());
            }
        }
    }
}

Tensor asComputeTensor(const Operand& o, DType dtype) {
    return o.isTensor() ? to(o.tensor(), dtype) : scalarTensor(o.scalar(), dtype);
}

DType computeTypeFor(BinaryOp op, const Operand& a, const Operand& b) {
    if (isLogical(op)) return DType::Bool;  // each side only matters as zero / non-zero
    DType common = resultType(a, b);
    if ((op == BinaryOp::TrueDiv || op == BinaryOp::Atan2) && isIntegral(common, true)) return kDefaultFloat;
    if (isBitwise(op) && isFloating(common)) notImplementedFor(kernelName(op), common);
    return common;
}

}  // namespace

DType resultType(std::span<const Operand> operands) {
    ResultTypeBuilder builder;
    for (const Operand& o : operands) {
        if (o.isTensor()) builder.addTensor(o.tensor().dtype(), o.tensor().dim());
        else builder.addScalar(o.scalar().kind());
    }
    return builder.result();
}

DType resultType(const Operand& a, const Operand& b) {
    const Operand both[] = {a, b};
    return resultType(both);
}

bool canCast(DType from, DType to) {
    if (isFloating(from) && isIntegral(to, true)) return false;
    if (from != DType::Bool && to == DType::Bool) return false;
    return true;
}

namespace {

/// torch's call of a binary op, as the op recorder writes it.
RecordedCall torchCallOf(BinaryOp op, const Operand& a, const Operand& b, std::string_view& function) {
    RecordedCall call{{recordedValue(a), recordedValue(b)}, {}};
    switch (op) {
        case BinaryOp::Add: function = "add"; break;
        case BinaryOp::Sub: function = "sub"; break;
        case BinaryOp::Mul: function = "mul"; break;
        case BinaryOp::TrueDiv: function = "div"; break;
        case BinaryOp::TruncDiv: function = "div"; call.kwargs.emplace_back("rounding_mode", Value("trunc")); break;
        case BinaryOp::FloorDiv: function = "floor_divide"; break;
        case BinaryOp::Remainder: function = "remainder"; break;
        case BinaryOp::Fmod: function = "fmod"; break;
        case BinaryOp::Pow: function = "pow"; break;
        case BinaryOp::Maximum: function = "maximum"; break;
        case BinaryOp::Minimum: function = "minimum"; break;
        case BinaryOp::Atan2: function = "atan2"; break;
        case BinaryOp::Eq: function = "eq"; break;
        case BinaryOp::Ne: function = "ne"; break;
        case BinaryOp::Lt: function = "lt"; break;
        case BinaryOp::Le: function = "le"; break;
        case BinaryOp::Gt: function = "gt"; break;
        case BinaryOp::Ge: function = "ge"; break;
        case BinaryOp::LogicalAnd: function = "logical_and"; break;
        case BinaryOp::LogicalOr: function = "logical_or"; break;
        case BinaryOp::LogicalXor: function = "logical_xor"; break;
        case BinaryOp::BitwiseAnd: function = "bitwise_and"; break;
        case BinaryOp::BitwiseOr: function = "bitwise_or"; break;
        case BinaryOp::BitwiseXor: function = "bitwise_xor"; break;
        case BinaryOp::ShiftLeft: function = "bitwise_left_shift"; break;
        case BinaryOp::ShiftRight: function = "bitwise_right_shift"; break;
    }
    return call;
}

}  // namespace

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const Tensor* into) {
    if (!into && activeOpRecorder()) {
        std::string_view function;
        RecordedCall call = torchCallOf(op, a, b, function);
        return recordedOp(function, [&] { return std::move(call); }, [&] { return binary(op, a, b); });
    }
    checkOperands(op, a, b);
    const Device device = cudaops::commonDevice({tensorOrUndefined(a), tensorOrUndefined(b)});
    const DType compute = computeTypeFor(op, a, b);
    const DType outType = isComparison(op) || isLogical(op) ? DType::Bool : compute;
    Tensor left = asComputeTensor(a, compute);
    Tensor right = asComputeTensor(b, compute);
    const Shape shape = broadcastShapes(left.sizes(), right.sizes());
    left = expandTo(left, shape);
    right = expandTo(right, shape);
    Tensor out;
    if (into) {
        if (shape != into->sizes())
            fail(ErrorKind::Runtime, fmt::format("output with shape {} doesn't match the broadcast shape {}",
                                                 shapeStr(into->sizes()), shapeStr(shape)));
        if (!canCast(outType, into->dtype()))
            fail(ErrorKind::Runtime, fmt::format("result type {} can't be cast to the desired output type {}",
                                                 dtypeKernelName(outType), dtypeKernelName(into->dtype())));
        if (into->dtype() == outType) out = *into;
    }
    if (!out.defined()) {
        const Tensor inputs[] = {left, right};
        out = emptyForOutput(shape, outType, inputs, device);
    }
    if (cudaops::onCuda(out)) cudaops::binary(op, out, left, right);
    else dispatchDType(compute, [&]<typename T>() { runTyped<T>(op, out, left, right); });
    if (into && !out.isSameTensor(*into)) copyInto(*into, out);
    return into ? *into : out;
}

Tensor add(const Operand& a, const Operand& b, Scalar alpha) {
    if (alpha.isIntegral() && alpha.toInt() == 1) return binary(BinaryOp::Add, a, b);
    return binary(BinaryOp::Add, a, binary(BinaryOp::Mul, b, alpha));
}

Tensor sub(const Operand& a, const Operand& b, Scalar alpha) {
    if (alpha.isIntegral() && alpha.toInt() == 1) return binary(BinaryOp::Sub, a, b);
    checkOperands(BinaryOp::Sub, a, b);
    return binary(BinaryOp::Sub, a, binary(BinaryOp::Mul, b, alpha));
}

Tensor div(const Operand& a, const Operand& b, std::optional<std::string_view> roundingMode) {
    if (!roundingMode) return binary(BinaryOp::TrueDiv, a, b);
    if (*roundingMode == "trunc") return binary(BinaryOp::TruncDiv, a, b);
    if (*roundingMode == "floor") return binary(BinaryOp::FloorDiv, a, b);
    fail(ErrorKind::Value,
         fmt::format("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", *roundingMode));
}

const Tensor& binaryInPlace(BinaryOp op, const Tensor& self, const Operand& other) {
    binary(op, self, other, &self);
    return self;
}

const Tensor& addInPlace(const Tensor& self, const Operand& other, Scalar alpha) {
    if (alpha.isIntegral() && alpha.toInt() == 1) return binaryInPlace(BinaryOp::Add, self, other);
    return binaryInPlace(BinaryOp::Add, self, binary(BinaryOp::Mul, other, alpha));
}

const Tensor& subInPlace(const Tensor& self, const Operand& other, Scalar alpha) {
    if (alpha.isIntegral() && alpha.toInt() == 1) return binaryInPlace(BinaryOp::Sub, self, other);
    return binaryInPlace(BinaryOp::Sub, self, binary(BinaryOp::Mul, other, alpha));
}

}  // namespace eng::tensor
