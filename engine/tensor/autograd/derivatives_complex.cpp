// Derivatives of ops over complex tensors, by PyTorch's convention: the gradient of a complex input is the conjugate
// Wirtinger derivative (d/dx + i d/dy of a real loss), so a product's gradient takes the other operand's conjugate;
// a real input takes the real part of a complex gradient (the engine's cast to the input's dtype does that, as
// PyTorch's handle_r_to_c). Ops not listed here raise at backward rather than apply a real formula to complex values.
#include "tensor/autograd/derivatives.h"

#include <functional>
#include <set>

#include "tensor/complex.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/pointwise.h"
#include "tensor/shape.h"

namespace eng::tensor::autograd {

namespace {

Tensor conjOf(const Operand& o) { return o.isTensor() ? conj(o.tensor()) : Tensor(); }

// g * conj(other) for one side of a product; `other` a Python number is its own conjugate.
Tensor productGrad(const Tensor& g, const Operand& other) { return other.isTensor() ? mul(g, conjOf(other)) : mul(g, other.scalar()); }

// sgn(z) = z / |z|, 0 where z is 0: the gradient direction of |z| (PyTorch's abs backward for complex inputs).
Tensor sgn(const Tensor& z) {
    const Tensor r = unary(UnaryOp::Abs, z);
    const Tensor inverse = where(eq(r, 0.0), 0.0, binary(BinaryOp::Div, 1.0, r));
    const Tensor pairs = viewAsReal(z);
    return complexFromParts(mul(select(pairs, -1, 0), inverse), mul(select(pairs, -1, 1), inverse));
}

Operand operandAt(const DerivativeCall& call, size_t i) {
    return call.args[i].isTensor() ? Operand(call.args.tensor(i)) : Operand(call.args.scalar(i));
}

// A product or quotient over (args[0], args[1]); `grads` maps (g, a, b) to the two gradients.
Derivative binaryComplex(const std::string& node, std::function<std::pair<Tensor, Tensor>(const Tensor&, const Operand&, const Operand&)> grads) {
    return [node, grads](const DerivativeCall& call) {
        const Operand a = operandAt(call, 0), b = operandAt(call, 1);
        return recordSimple(call, node, {0, 1}, [a, b, grads](const BackwardContext& ctx) {
            auto [ga, gb] = grads(ctx.grad(), a, b);
            return std::vector<Tensor>{ctx.needs(0) ? ga : Tensor(), ctx.needs(1) ? gb : Tensor()};
        }, kSaveNothing);
    };
}

DerivativeTable makeTable() {
    DerivativeTable table;
    table.def({"view_as_complex"}, [](const DerivativeCall& call) {
        return recordSimple(call, "ViewAsComplexBackward0", {0}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{viewAsReal(contiguous(ctx.grad()))};
        }, kSaveNothing);
    });
    table.def({"view_as_real"}, [](const DerivativeCall& call) {
        return recordSimple(call, "ViewAsRealBackward0", {0}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{viewAsComplex(contiguous(ctx.grad()))};
        }, kSaveNothing);
    });
    table.def({"real"}, [](const DerivativeCall& call) {
        return recordSimple(call, "RealBackward0", {0}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{complexFromParts(ctx.grad(), zerosLike(ctx.grad()))};
        }, kSaveNothing);
    });
    table.def({"imag"}, [](const DerivativeCall& call) {
        return recordSimple(call, "ImagBackward0", {0}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{complexFromParts(zerosLike(ctx.grad()), ctx.grad())};
        }, kSaveNothing);
    });
    table.def({"complex"}, [](const DerivativeCall& call) {
        return recordSimple(call, "ComplexBackward0", {0, 1}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{realPart(ctx.grad()), imagPart(ctx.grad())};
        }, kSaveNothing);
    });
    table.def({"conj", "resolve_conj", "conj_physical"}, [](const DerivativeCall& call) {
        return recordSimple(call, "ConjBackward0", {0}, [](const BackwardContext& ctx) { return std::vector<Tensor>{conj(ctx.grad())}; },
                            kSaveNothing);
    });
    table.def({"abs"}, [](const DerivativeCall& call) {
        return recordSimple(call, "AbsBackward0", {0}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{mul(ctx.grad(), sgn(ctx.saved[0]))};
        });
    });
    table.def({"mul", "multiply", "__mul__", "__rmul__"}, binaryComplex("MulBackward0", [](const Tensor& g, const Operand& a, const Operand& b) {
                  return std::pair{productGrad(g, b), productGrad(g, a)};
              }));
    table.def({"div", "true_divide", "__truediv__"}, binaryComplex("DivBackward0", [](const Tensor& g, const Operand& a, const Operand& b) {
                  // d(a/b): g / conj(b) and -g * conj(a / b) / conj(b).
                  const Tensor bc = b.isTensor() ? conj(b.tensor()) : Tensor();
                  const Tensor ga = b.isTensor() ? binary(BinaryOp::Div, g, bc) : binary(BinaryOp::Div, g, b.scalar());
                  if (!b.isTensor()) return std::pair{ga, Tensor()};
                  const Tensor quotient = conj(binary(BinaryOp::Div, a, b));
                  return std::pair{ga, binary(BinaryOp::Div, unary(UnaryOp::Neg, mul(g, quotient)), bc)};
              }));
    auto plus = [](double sign) {
        return [sign](const DerivativeCall& call) {
            const double alpha = sign * (call.args.size() > 2 ? call.args.scalar(2).toDouble() : 1.0);
            return recordSimple(call, sign > 0 ? "AddBackward0" : "SubBackward0", {0, 1}, [alpha](const BackwardContext& ctx) {
                return std::vector<Tensor>{ctx.grad(), ctx.needs(1) ? mul(ctx.grad(), alpha) : Tensor()};
            }, kSaveNothing);
        };
    };
    table.def({"add", "__add__", "__radd__"}, plus(1.0));
    table.def({"sub", "subtract", "__sub__"}, plus(-1.0));
    table.def({"__rsub__"}, [](const DerivativeCall& call) {
        return recordSimple(call, "RsubBackward1", {0, 1}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{unary(UnaryOp::Neg, ctx.grad()), ctx.needs(1) ? ctx.grad() : Tensor()};
        }, kSaveNothing);
    });
    return table;
}

}  // namespace

const Derivative* complexDerivative(std::string_view schemaName) {
    static const DerivativeTable table = makeTable();
    // Ops linear in their input with real coefficients (views, sums, negation) have the same formula for complex
    // values: the real table's, which keeps the gradient's dtype.
    static const std::set<std::string, std::less<>> linear = {"neg", "__neg__", "sum", "mean", "clone", "contiguous", "reshape", "view",
                                                              "flatten", "transpose", "permute", "unsqueeze", "squeeze", "expand", "t"};
    if (const Derivative* d = table.find(schemaName)) return d;
    return linear.contains(schemaName) ? DerivativeTable::instance().find(schemaName) : nullptr;
}

}  // namespace eng::tensor::autograd
