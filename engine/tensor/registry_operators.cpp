// Registry entries for Python's operator protocol on tensors: Tensor.__add__ / __radd__ / __iadd__ and the
// other arithmetic, comparison and bitwise dunders, __getitem__ / __setitem__, and the conversions to Python
// numbers (__bool__, __float__, __int__, __index__, __len__).
#include <fmt/format.h>

#include "ops/operators.h"
#include "tensor/conversion.h"
#include "tensor/indexing.h"
#include "tensor/linalg.h"
#include "tensor/pointwise.h"
#include "tensor/printing.h"
#include "tensor/reduction.h"
#include "tensor/registry_support.h"

namespace eng::tensor {

namespace {

// Numbers and tensors take part; anything else is Python's "unsupported operand" TypeError.
Operand operandFor(const Value& v, std::string_view symbol, const Tensor& self) {
    if (v.isTensor()) return v.toTensor();
    if (v.isNumber()) return v.toScalar();
    (void)self;
    fail(ErrorKind::Type, fmt::format("unsupported operand type(s) for {}: 'Tensor' and '{}'", symbol, v.typeName()));
}

// The pointwise kernel each Python operator runs on tensors; names and symbols come from the operator table
// (ops/operators.def). Power and matmul have their own entries below.
struct Arithmetic {
    ops::BinaryOperator op;
    BinaryOp kernel;
};

constexpr Arithmetic kArithmetic[] = {
    {ops::BinaryOperator::Add, BinaryOp::Add},
    {ops::BinaryOperator::Subtract, BinaryOp::Sub},
    {ops::BinaryOperator::Multiply, BinaryOp::Mul},
    {ops::BinaryOperator::TrueDivide, BinaryOp::Div},
    {ops::BinaryOperator::FloorDivide, BinaryOp::FloorDiv},
    {ops::BinaryOperator::Remainder, BinaryOp::Mod},
    {ops::BinaryOperator::BitAnd, BinaryOp::BitAnd},
    {ops::BinaryOperator::BitOr, BinaryOp::BitOr},
    {ops::BinaryOperator::BitXor, BinaryOp::BitXor},
    {ops::BinaryOperator::LeftShift, BinaryOp::ShiftLeft},
    {ops::BinaryOperator::RightShift, BinaryOp::ShiftRight},
};

struct Comparison {
    ops::CompareOperator op;
    BinaryOp kernel;
};

constexpr Comparison kComparisons[] = {
    {ops::CompareOperator::Equal, BinaryOp::Eq},     {ops::CompareOperator::NotEqual, BinaryOp::Ne},
    {ops::CompareOperator::Less, BinaryOp::Lt},      {ops::CompareOperator::LessEqual, BinaryOp::Le},
    {ops::CompareOperator::Greater, BinaryOp::Gt},   {ops::CompareOperator::GreaterEqual, BinaryOp::Ge},
};

Scalar singleValue(const Tensor& t, const char* what) {
    if (t.numel() != 1) {
        if (std::string_view(what) == "bool")
            fail(ErrorKind::Runtime, fmt::format("Boolean value of Tensor with more than one value is ambiguous"));
        fail(ErrorKind::Runtime, fmt::format("a Tensor with {} elements cannot be converted to Scalar", t.numel()));
    }
    return item(t);
}

}  // namespace

constexpr std::string_view kPowSymbol = ops::info(ops::BinaryOperator::Power).symbol;

void registerOperatorOps(OpRegistry& r) {
    for (const Arithmetic& a : kArithmetic) {
        const BinaryOp op = a.kernel;
        const std::string_view symbol = ops::info(a.op).symbol, name = ops::info(a.op).dunder;
        r.def({fmt::format("Tensor.__{}__", name)}, fmt::format("__{}__(Tensor self, Any other)", name), [op, symbol](const Args& args) {
            return Value(binary(op, args.tensor(0), operandFor(args[1], symbol, args.tensor(0))));
        });
        r.def({fmt::format("Tensor.__r{}__", name)}, fmt::format("__r{}__(Tensor self, Any other)", name), [op, symbol](const Args& args) {
            return Value(binary(op, operandFor(args[1], symbol, args.tensor(0)), args.tensor(0)));
        });
        r.def({fmt::format("Tensor.__i{}__", name)}, fmt::format("__i{}__(Tensor self, Any other)", name), [op, symbol](const Args& args) {
            return Value(binaryInPlace(op, args.tensor(0), operandFor(args[1], symbol, args.tensor(0))));
        });
    }
    r.def({"Tensor.__pow__"}, "__pow__(Tensor self, Any other)",
          [](const Args& a) { return Value(pow(a.tensor(0), operandFor(a[1], kPowSymbol, a.tensor(0)))); });
    r.def({"Tensor.__rpow__"}, "__rpow__(Tensor self, Any other)",
          [](const Args& a) { return Value(pow(operandFor(a[1], kPowSymbol, a.tensor(0)), a.tensor(0))); });
    r.def({"Tensor.__ipow__"}, "__ipow__(Tensor self, Any other)", [](const Args& a) {
        return Value(copyInto(a.tensor(0), pow(a.tensor(0), operandFor(a[1], kPowSymbol, a.tensor(0)))));
    });
    r.def({"Tensor.__matmul__"}, "__matmul__(Tensor self, Tensor other)", [](const Args& a) { return Value(matmul(a.tensor(0), a.tensor(1))); });
    r.def({"Tensor.__rmatmul__"}, "__rmatmul__(Tensor self, Tensor other)", [](const Args& a) { return Value(matmul(a.tensor(1), a.tensor(0))); });
    r.def({"Tensor.__imatmul__"}, "__imatmul__(Tensor self, Tensor other)",
          [](const Args& a) { return Value(copyInto(a.tensor(0), matmul(a.tensor(0), a.tensor(1)))); });

    for (const Comparison& c : kComparisons) {
        const BinaryOp op = c.kernel;
        const bool isEq = op == BinaryOp::Eq, isNe = op == BinaryOp::Ne;
        const std::string_view symbol = ops::info(c.op).symbol, name = ops::info(c.op).function;
        r.def({fmt::format("Tensor.__{}__", name)}, fmt::format("__{}__(Tensor self, Any other)", name),
              [op, isEq, isNe, symbol](const Args& a) {
                  // Python falls back to identity for == / != with non-numbers (x == None is False).
                  if ((isEq || isNe) && !a[1].isTensor() && !a[1].isNumber()) return Value(isNe);
                  return Value(binary(op, a.tensor(0), operandFor(a[1], symbol, a.tensor(0))));
              });
    }

    r.def({"Tensor.__neg__"}, "__neg__(Tensor self)", [](const Args& a) { return Value(unary(UnaryOp::Neg, a.tensor(0))); });
    r.def({"Tensor.__pos__", "torch.positive", "Tensor.positive"}, "__pos__(Tensor self)", [](const Args& a) { return a[0]; });
    r.def({"Tensor.__abs__"}, "__abs__(Tensor self)", [](const Args& a) { return Value(unary(UnaryOp::Abs, a.tensor(0))); });
    r.def({"Tensor.__invert__"}, "__invert__(Tensor self)", [](const Args& a) { return Value(unary(UnaryOp::BitNot, a.tensor(0))); });

    r.def({"Tensor.__getitem__"}, "__getitem__(Tensor self, Any indices)",
          [](const Args& a) { return Value(getItem(a.tensor(0), toTensorIndices(a[1]))); });
    r.def({"Tensor.__setitem__"}, "__setitem__(Tensor self, Any indices, Any value)", [](const Args& a) {
        const Value& v = a[2];
        const Operand value = v.isTensor() ? Operand(v.toTensor()) : v.isNumber() ? Operand(v.toScalar()) : Operand(tensorFromData(v));
        setItem(a.tensor(0), toTensorIndices(a[1]), value);
        return noneValue();
    });

    r.def({"Tensor.__len__"}, "__len__(Tensor self)", [](const Args& a) {
        if (a.tensor(0).dim() == 0) fail(ErrorKind::Type, "len() of a 0-d tensor");
        return Value(a.tensor(0).sizes()[0]);
    });
    r.def({"Tensor.__bool__"}, "__bool__(Tensor self)", [](const Args& a) { return Value(singleValue(a.tensor(0), "bool").toBool()); });
    r.def({"Tensor.__float__"}, "__float__(Tensor self)", [](const Args& a) { return Value(singleValue(a.tensor(0), "float").toDouble()); });
    r.def({"Tensor.__int__"}, "__int__(Tensor self)", [](const Args& a) { return Value(singleValue(a.tensor(0), "int").toInt()); });
    r.def({"Tensor.__index__"}, "__index__(Tensor self)", [](const Args& a) {
        if (!isIntegral(a.tensor(0).dtype(), true))
            fail(ErrorKind::Type, "only integer tensors of a single element can be converted to an index");
        return Value(singleValue(a.tensor(0), "int").toInt());
    });
    r.def({"Tensor.__contains__"}, "__contains__(Tensor self, Any element)", [](const Args& a) {
        const Operand element = operandFor(a[1], "in", a.tensor(0));
        return Value(item(any(eq(a.tensor(0), element))).toBool());
    });
    r.def({"Tensor.__repr__", "Tensor.__str__"}, "__repr__(Tensor self)", [](const Args& a) { return Value(repr(a.tensor(0))); });
}

}  // namespace eng::tensor
