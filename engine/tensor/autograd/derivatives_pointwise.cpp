// Derivative formulas of pointwise ops: unary math and activations, arithmetic operators (+ - * / // % **) with
// their reflected forms and scalar operands, maximum/minimum, fmax/fmin, where, clamp, masked_fill, fill_, lerp.
// Gradients may keep the broadcast shape: the engine sums them to each input's shape.
#include <cmath>
#include <numbers>
#include <set>
#include <string_view>

#include "tensor/autograd/derivatives.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/pointwise.h"

namespace eng::tensor::autograd {

namespace {

Tensor u(UnaryOp op, const Tensor& x) { return unary(op, x); }
Tensor zerosOf(const Tensor& like) { return zerosLike(like); }

// d(op(x))/dx times g, from the input x and the result y.
using UnaryGrad = Tensor (*)(const Tensor& g, const Tensor& x, const Tensor& y);

struct UnaryFormula {
    const char* name;
    const char* node;
    UnaryGrad grad;
};

// d asin(x) = 1 / sqrt(1 - x^2); acos is its negation.
Tensor asinGrad(const Tensor& g, const Tensor& x) { return mul(g, u(UnaryOp::Rsqrt, sub(1.0, mul(x, x)))); }

// GELU's derivative of 16-bit float operands is computed in float32 and rounded once, as PyTorch's gelu_backward
// kernel computes in its opmath type (and Inductor's decomposition upcasts, pw_cast_for_opmath): rounding each of
// the formula's ~15 steps to bfloat16 is less exact, and in a generated kernel each rounding is a conversion
// instruction, which made the GPT-2 MLP's GELU backward compute-bound (0.15 ms at 8 x 1024 x 3072 on the H200).
bool inOpmath(const Tensor& g, const Tensor& x) {
    return g.dtype() == DType::BFloat16 || g.dtype() == DType::Float16 || x.dtype() == DType::BFloat16 || x.dtype() == DType::Float16;
}

Tensor geluErfGrad(const Tensor& g, const Tensor& x);
Tensor geluTanhGrad(const Tensor& g, const Tensor& x);

Tensor geluGradInOpmath(const Tensor& g, const Tensor& x, bool tanhForm) {
    const Tensor g32 = to(g, DType::Float32), x32 = to(x, DType::Float32);
    return to(tanhForm ? geluTanhGrad(g32, x32) : geluErfGrad(g32, x32), promoteTypes(g.dtype(), x.dtype()));
}

Tensor geluErfGrad(const Tensor& g, const Tensor& x) {
    if (inOpmath(g, x)) return geluGradInOpmath(g, x, false);
    const Tensor cdf = mul(add(u(UnaryOp::Erf, mul(x, std::numbers::sqrt2 / 2)), 1.0), 0.5);
    const Tensor pdf = mul(u(UnaryOp::Exp, mul(mul(x, x), -0.5)), 1.0 / std::sqrt(2 * std::numbers::pi));
    return mul(g, add(cdf, mul(x, pdf)));
}

Tensor geluTanhGrad(const Tensor& g, const Tensor& x) {
    if (inOpmath(g, x)) return geluGradInOpmath(g, x, true);
    constexpr double kAlpha = 0.044715;
    const double k = std::sqrt(2.0 / std::numbers::pi);
    const Tensor x2 = mul(x, x);
    const Tensor t = u(UnaryOp::Tanh, mul(add(x, mul(mul(x2, x), kAlpha)), k));
    const Tensor left = mul(add(t, 1.0), 0.5);
    const Tensor dInner = mul(add(mul(x2, 3 * kAlpha), 1.0), k);
    const Tensor right = mul(mul(mul(x, 0.5), sub(1.0, mul(t, t))), dInner);
    return mul(g, add(left, right));
}

const UnaryFormula kUnaryFormulas[] = {
    {"abs", "AbsBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Sign, x)); }},
    {"absolute", "AbsBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Sign, x)); }},
    {"__abs__", "AbsBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Sign, x)); }},
    {"neg", "NegBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return u(UnaryOp::Neg, g); }},
    {"negative", "NegBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return u(UnaryOp::Neg, g); }},
    {"__neg__", "NegBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return u(UnaryOp::Neg, g); }},
    {"sign", "SignBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return zerosOf(g); }},
    {"floor", "FloorBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return zerosOf(g); }},
    {"ceil", "CeilBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return zerosOf(g); }},
    {"trunc", "TruncBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return zerosOf(g); }},
    {"fix", "TruncBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return zerosOf(g); }},
    {"round", "RoundBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return zerosOf(g); }},
    {"frac", "FracBackward0", [](const Tensor& g, const Tensor&, const Tensor&) { return g; }},
    {"exp", "ExpBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(g, y); }},
    {"exp2", "Exp2Backward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(mul(g, y), std::numbers::ln2); }},
    {"expm1", "Expm1Backward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(g, add(y, 1.0)); }},
    {"log", "LogBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, x); }},
    {"log2", "Log2Backward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, mul(x, std::numbers::ln2)); }},
    {"log10", "Log10Backward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, mul(x, std::numbers::ln10)); }},
    {"log1p", "Log1PBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, add(x, 1.0)); }},
    {"sin", "SinBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Cos, x)); }},
    {"cos", "CosBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Neg, u(UnaryOp::Sin, x))); }},
    {"tan", "TanBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(g, add(mul(y, y), 1.0)); }},
    {"asin", "AsinBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return asinGrad(g, x); }},
    {"arcsin", "AsinBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return asinGrad(g, x); }},
    {"acos", "AcosBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return u(UnaryOp::Neg, asinGrad(g, x)); }},
    {"arccos", "AcosBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return u(UnaryOp::Neg, asinGrad(g, x)); }},
    {"atan", "AtanBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, add(mul(x, x), 1.0)); }},
    {"arctan", "AtanBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, add(mul(x, x), 1.0)); }},
    {"sinh", "SinhBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Cosh, x)); }},
    {"cosh", "CoshBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Sinh, x)); }},
    // d asinh(x) = 1 / sqrt(x^2 + 1), d acosh(x) = 1 / sqrt(x^2 - 1), d atanh(x) = 1 / (1 - x^2).
    {"asinh", "AsinhBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Rsqrt, add(mul(x, x), 1.0))); }},
    {"arcsinh", "AsinhBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Rsqrt, add(mul(x, x), 1.0))); }},
    {"acosh", "AcoshBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Rsqrt, sub(mul(x, x), 1.0))); }},
    {"arccosh", "AcoshBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(g, u(UnaryOp::Rsqrt, sub(mul(x, x), 1.0))); }},
    {"atanh", "AtanhBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, sub(1.0, mul(x, x))); }},
    {"arctanh", "AtanhBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return div(g, sub(1.0, mul(x, x))); }},
    {"tanh", "TanhBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(g, sub(1.0, mul(y, y))); }},
    {"sigmoid", "SigmoidBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(g, mul(y, sub(1.0, y))); }},
    {"relu", "ReluBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(g, gt(y, 0.0)); }},
    {"silu", "SiluBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) {
         const Tensor s = u(UnaryOp::Sigmoid, x);
         return mul(g, mul(s, add(mul(x, sub(1.0, s)), 1.0)));
     }},
    {"mish", "MishBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) {
         const Tensor t = u(UnaryOp::Tanh, u(UnaryOp::Softplus, x));
         return mul(g, add(t, mul(mul(x, sub(1.0, mul(t, t))), u(UnaryOp::Sigmoid, x))));
     }},
    {"sqrt", "SqrtBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return div(g, mul(y, 2.0)); }},
    {"rsqrt", "RsqrtBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(mul(g, -0.5), mul(mul(y, y), y)); }},
    {"reciprocal", "ReciprocalBackward0", [](const Tensor& g, const Tensor&, const Tensor& y) { return mul(u(UnaryOp::Neg, g), mul(y, y)); }},
    {"square", "PowBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) { return mul(mul(g, x), 2.0); }},
    {"erf", "ErfBackward0", [](const Tensor& g, const Tensor& x, const Tensor&) {
         return mul(mul(g, u(UnaryOp::Exp, u(UnaryOp::Neg, mul(x, x)))), 2.0 / std::sqrt(std::numbers::pi));
     }},
};

// Gradients of (a, b) from g, the operands and the result y; `reflected` ops (__rsub__) have a = args[1].
using BinaryGrad = std::function<std::pair<Tensor, Tensor>(const Tensor& g, const Operand& a, const Operand& b, const Tensor& y,
                                                           const BackwardContext& ctx, bool needA, bool needB)>;

Derivative makeBinary(const std::string& node, bool reflected, BinaryGrad grad, Saves saves = kSaveInputs) {
    return [node, reflected, grad, saves](const DerivativeCall& call) {
        const Args& args = call.args;
        const size_t ia = reflected ? 1 : 0, ib = reflected ? 0 : 1;
        // Numbers are captured by value; tensors travel in `saved` (saved[0] = args[0], saved[1] = args[1], [2] = y).
        const std::optional<Scalar> sa = args[ia].isTensor() ? std::nullopt : std::optional<Scalar>(args.scalar(ia));
        const std::optional<Scalar> sb = args[ib].isTensor() ? std::nullopt : std::optional<Scalar>(args.scalar(ib));
        return recordSimple(call, node, {0, 1}, [ia, ib, sa, sb, grad](const BackwardContext& ctx) {
            const Operand a = sa ? Operand(*sa) : Operand(ctx.saved[ia]);
            const Operand b = sb ? Operand(*sb) : Operand(ctx.saved[ib]);
            auto [ga, gb] = grad(ctx.grad(), a, b, ctx.saved.back(), ctx, ctx.needs(ia), ctx.needs(ib));
            std::vector<Tensor> out(2);
            out[ia] = ga;
            out[ib] = gb;
            return out;
        }, saves);
    };
}

void defBinary(DerivativeTable& table, const std::vector<std::string>& names, const std::string& node, bool reflected, BinaryGrad grad,
               Saves saves = kSaveInputs) {
    table.def(names, makeBinary(node, reflected, std::move(grad), std::move(saves)));
}

Tensor asTensor(const Operand& o, const Tensor& like) { return o.isTensor() ? o.tensor() : fullLike(like, o.scalar()); }

std::pair<Tensor, Tensor> powGrad(const Tensor& g, const Operand& a, const Operand& b, const Tensor& y, bool needA, bool needB) {
    Tensor ga, gb;
    if (needA) {
        if (!b.isTensor() && b.scalar().toDouble() == 0.0) {
            ga = zerosLike(g);
        } else {
            const Tensor bt = asTensor(b, g);
            // b * a^(b-1), with 0 where b == 0 (PyTorch's pow_backward masks 0 * inf there).
            ga = where(eq(bt, 0.0), 0.0, mul(mul(g, bt), pow(a, sub(bt, 1.0))));
        }
    }
    if (needB) {
        const Tensor at = asTensor(a, g);
        const Tensor bt = asTensor(b, g);
        const Tensor full = mul(mul(g, y), u(UnaryOp::Log, at));
        gb = where(logicalAnd(eq(at, 0.0), ge(bt, 0.0)), 0.0, full);
    }
    return {ga, gb};
}

}  // namespace

void registerPointwiseDerivatives(DerivativeTable& table) {
    // As in PyTorch, formulas of the result save only the result, and those that only pass or drop the
    // gradient save nothing.
    const std::set<std::string_view> kSavesNothing = {"neg", "negative", "__neg__", "sign", "floor", "ceil", "trunc", "fix", "round", "frac"};
    const std::set<std::string_view> kSavesResult = {"exp", "exp2", "expm1", "tan", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "reciprocal"};
    for (const UnaryFormula& f : kUnaryFormulas) {
        const UnaryGrad grad = f.grad;
        const Saves saves = kSavesNothing.contains(f.name) ? kSaveNothing : kSavesResult.contains(f.name) ? kSaveResult : kSaveInputs;
        table.def({f.name}, [node = std::string(f.node), grad, saves](const DerivativeCall& call) {
            return recordSimple(
                call, node, {0}, [grad](const BackwardContext& ctx) { return std::vector<Tensor>{grad(ctx.grad(), ctx.saved[0], ctx.saved[1])}; },
                saves);
        });
    }
    table.def({"gelu"}, [](const DerivativeCall& call) {
        const bool tanhForm = call.args.str(1) == "tanh";
        return recordSimple(call, "GeluBackward0", {0}, [tanhForm](const BackwardContext& ctx) {
            return std::vector<Tensor>{tanhForm ? geluTanhGrad(ctx.grad(), ctx.saved[0]) : geluErfGrad(ctx.grad(), ctx.saved[0])};
        });
    });
    table.def({"leaky_relu"}, [](const DerivativeCall& call) {
        const double slope = call.args.real(1);
        return recordSimple(call, "LeakyReluBackward0", {0}, [slope](const BackwardContext& ctx) {
            return std::vector<Tensor>{mul(ctx.grad(), where(gt(ctx.saved[0], 0.0), 1.0, slope))};
        });
    });
    table.def({"softplus"}, [](const DerivativeCall& call) {
        const double beta = call.args.real(1), threshold = call.args.real(2);
        return recordSimple(call, "SoftplusBackward0", {0}, [beta, threshold](const BackwardContext& ctx) {
            const Tensor scaled = mul(ctx.saved[0], beta);
            return std::vector<Tensor>{mul(ctx.grad(), where(gt(scaled, threshold), 1.0, u(UnaryOp::Sigmoid, scaled)))};
        });
    });

    auto plus = [](double alphaSign) {
        return [alphaSign](const DerivativeCall& call) {
            const double alpha = alphaSign * (call.args.size() > 2 ? call.args.scalar(2).toDouble() : 1.0);
            return recordSimple(
                call, alphaSign > 0 ? "AddBackward0" : "SubBackward0", {0, 1},
                [alpha](const BackwardContext& ctx) {
                    return std::vector<Tensor>{ctx.grad(), ctx.needs(1) ? mul(ctx.grad(), alpha) : Tensor()};
                },
                kSaveNothing);
        };
    };
    table.def({"add", "__add__", "__radd__"}, plus(1.0));
    table.def({"sub", "subtract", "__sub__"}, plus(-1.0));
    table.def({"__rsub__"}, [](const DerivativeCall& call) {
        return recordSimple(
            call, "RsubBackward1", {0, 1},
            [](const BackwardContext& ctx) { return std::vector<Tensor>{u(UnaryOp::Neg, ctx.grad()), ctx.needs(1) ? ctx.grad() : Tensor()}; },
            kSaveNothing);
    });
    const BinaryGrad mulGrad = [](const Tensor& g, const Operand& a, const Operand& b, const Tensor&, const BackwardContext&, bool needA,
                                  bool needB) {
        return std::pair{needA ? mul(g, b) : Tensor(), needB ? mul(g, a) : Tensor()};
    };
    defBinary(table, {"mul", "multiply", "__mul__", "__rmul__"}, "MulBackward0", false, mulGrad);
    const BinaryGrad divGrad = [](const Tensor& g, const Operand& a, const Operand& b, const Tensor&, const BackwardContext&, bool needA,
                                  bool needB) {
        const Tensor bt = asTensor(b, g);
        return std::pair{needA ? div(g, b) : Tensor(), needB ? div(mul(u(UnaryOp::Neg, g), a), mul(bt, bt)) : Tensor()};
    };
    defBinary(table, {"true_divide", "__truediv__"}, "DivBackward0", false, divGrad);
    defBinary(table, {"__rtruediv__"}, "DivBackward0", true, divGrad);
    table.def({"div", "divide"}, [trueDivide = makeBinary("DivBackward0", false, divGrad)](const DerivativeCall& call) {
        if (call.args.size() > 2 && !call.args.isNone(2)) {
            // Rounded division is piecewise constant: zero gradients, as PyTorch's div(rounding_mode=...).
            return recordSimple(
                call, "DivBackward1", {0, 1},
                [](const BackwardContext& ctx) { return std::vector<Tensor>{zerosLike(ctx.grad()), zerosLike(ctx.grad())}; }, kSaveNothing);
        }
        return trueDivide(call);
    });
    // floor_divide (//) has no derivative in PyTorch either: it falls to the NotImplemented node.
    const BinaryGrad remainderGrad = [](const Tensor& g, const Operand& a, const Operand& b, const Tensor&, const BackwardContext&, bool,
                                        bool needB) {
        return std::pair{g, needB ? mul(u(UnaryOp::Neg, g), u(UnaryOp::Floor, div(a, b))) : Tensor()};
    };
    defBinary(table, {"remainder", "__mod__"}, "RemainderBackward0", false, remainderGrad);
    defBinary(table, {"__rmod__"}, "RemainderBackward0", true, remainderGrad);
    defBinary(table, {"fmod"}, "FmodBackward0", false, [](const Tensor& g, const Operand& a, const Operand& b, const Tensor&,
                                                          const BackwardContext&, bool, bool needB) {
        return std::pair{g, needB ? mul(u(UnaryOp::Neg, g), u(UnaryOp::Trunc, div(a, b))) : Tensor()};
    });
    const BinaryGrad powFormula = [](const Tensor& g, const Operand& a, const Operand& b, const Tensor& y, const BackwardContext&, bool needA,
                                     bool needB) { return powGrad(g, a, b, y, needA, needB); };
    // PowBackward0: tensor ** number, PowBackward1: tensor ** tensor, PowBackward2: number ** tensor.
    table.def({"pow", "__pow__"}, [tensorScalar = makeBinary("PowBackward0", false, powFormula),
                                   tensorTensor = makeBinary("PowBackward1", false, powFormula, kSaveAll),
                                   scalarTensor = makeBinary("PowBackward2", false, powFormula, kSaveAll)](const DerivativeCall& call) {
        if (!call.args[0].isTensor()) return scalarTensor(call);
        return call.args[1].isTensor() ? tensorTensor(call) : tensorScalar(call);
    });
    defBinary(table, {"__rpow__"}, "PowBackward2", true, powFormula, kSaveAll);
    defBinary(table, {"atan2", "arctan2"}, "Atan2Backward0", false, [](const Tensor& g, const Operand& a, const Operand& b, const Tensor&,
                                                                        const BackwardContext&, bool needA, bool needB) {
        const Tensor at = asTensor(a, g), bt = asTensor(b, g);
        const Tensor denominator = add(mul(at, at), mul(bt, bt));
        return std::pair{needA ? div(mul(g, bt), denominator) : Tensor(), needB ? div(mul(u(UnaryOp::Neg, g), at), denominator) : Tensor()};
    });
    for (const bool wantMax : {true, false}) {
        defBinary(table, {wantMax ? "maximum" : "minimum"}, wantMax ? "MaximumBackward0" : "MinimumBackward0", false,
                  [wantMax](const Tensor& g, const Operand& a, const Operand& b, const Tensor&, const BackwardContext&, bool, bool) {
                      // Ties split the gradient evenly, as PyTorch does.
                      const Tensor at = a.tensor(), bt = b.tensor();
                      const Tensor half = mul(g, 0.5);
                      const Tensor aWins = wantMax ? gt(at, bt) : lt(at, bt);
                      const Tensor bWins = wantMax ? lt(at, bt) : gt(at, bt);
                      const Tensor tie = eq(at, bt);
                      return std::pair{where(aWins, g, where(tie, half, 0.0)), where(bWins, g, where(tie, half, 0.0))};
                  });
        // fmax / fmin: the gradient goes to the operand chosen, self on ties and where other is NaN, as
        // PyTorch's derivatives.yaml: grad.masked_fill((self >= other).logical_or_(other.isnan()).logical_not_(), 0).
        defBinary(table, {wantMax ? "fmax" : "fmin"}, wantMax ? "FmaxBackward0" : "FminBackward0", false,
                  [wantMax](const Tensor& g, const Operand& a, const Operand& b, const Tensor&, const BackwardContext&, bool, bool) {
                      const Tensor at = a.tensor(), bt = b.tensor();
                      const Tensor selfChosen = binary(BinaryOp::LogicalOr, binary(wantMax ? BinaryOp::Ge : BinaryOp::Le, at, bt),
                                                       u(UnaryOp::IsNan, bt));
                      return std::pair{where(selfChosen, g, 0.0), where(selfChosen, 0.0, g)};
                  });
    }

    table.def({"where"}, [](const DerivativeCall& call) {
        return recordSimple(call, "WhereBackward0", {0, 1, 2}, [](const BackwardContext& ctx) {
            const Tensor& condition = ctx.saved[0];
            return std::vector<Tensor>{Tensor(), ctx.needs(1) ? where(condition, ctx.grad(), 0.0) : Tensor(),
                                       ctx.needs(2) ? where(condition, 0.0, ctx.grad()) : Tensor()};
        }, Saves{std::vector<size_t>{0}, false});
    });
    // clamp(x, min, max), clamp_min(x, min), clamp_max(x, max): bounds may be numbers or tensors.
    auto clampDerivative = [](int loIndex, int hiIndex) {
        return [loIndex, hiIndex](const DerivativeCall& call) {
            const Args& a = call.args;
            auto bound = [&a](int i) -> std::optional<Operand> {
                if (i < 0 || a.isNone(static_cast<size_t>(i))) return std::nullopt;
                return a[static_cast<size_t>(i)].isTensor() ? Operand(a.tensor(static_cast<size_t>(i))) : Operand(a.scalar(static_cast<size_t>(i)));
            };
            const std::optional<Operand> lo = bound(loIndex), hi = bound(hiIndex);
            const std::optional<Scalar> loScalar = lo && !lo->isTensor() ? std::optional(lo->scalar()) : std::nullopt;
            const std::optional<Scalar> hiScalar = hi && !hi->isTensor() ? std::optional(hi->scalar()) : std::nullopt;
            const bool hasLo = lo.has_value(), hasHi = hi.has_value();
            const size_t loSlot = loIndex < 0 ? 0 : static_cast<size_t>(loIndex), hiSlot = hiIndex < 0 ? 0 : static_cast<size_t>(hiIndex);
            std::vector<size_t> inputs = {0};
            if (loIndex >= 0) inputs.push_back(loSlot);
            if (hiIndex >= 0) inputs.push_back(hiSlot);
            return recordSimple(call, "ClampBackward1", inputs, [=](const BackwardContext& ctx) {
                const Tensor& x = ctx.saved[0];
                const Tensor& g = ctx.grad();
                size_t k = 1;
                const size_t loK = loIndex >= 0 ? k++ : 0, hiK = hiIndex >= 0 ? k++ : 0;
                const Operand loV = loScalar ? Operand(*loScalar) : Operand(hasLo ? ctx.saved[loK] : Tensor());
                const Operand hiV = hiScalar ? Operand(*hiScalar) : Operand(hasHi ? ctx.saved[hiK] : Tensor());
                Tensor inside = onesLike(x, TensorOptions{DType::Bool, x.device(), false});
                if (hasLo) inside = logicalAnd(inside, ge(x, loV));
                if (hasHi) inside = logicalAnd(inside, le(x, hiV));
                std::vector<Tensor> out(k);
                out[0] = where(inside, g, 0.0);
                if (hasLo && !loScalar && ctx.needs(loK)) out[loK] = where(lt(x, loV), g, 0.0);
                if (hasHi && !hiScalar && ctx.needs(hiK)) out[hiK] = where(gt(x, hiV), g, 0.0);
                return out;
            });
        };
    };
    table.def({"clamp", "clip"}, clampDerivative(1, 2));
    table.def({"clamp_min"}, clampDerivative(1, -1));
    table.def({"clamp_max"}, clampDerivative(-1, 1));
    table.def({"masked_fill"}, [](const DerivativeCall& call) {
        return recordSimple(call, "MaskedFillBackward0", {0, 1, 2}, [](const BackwardContext& ctx) {
            const Tensor& mask = ctx.saved[1];
            return std::vector<Tensor>{where(mask, 0.0, ctx.grad()), Tensor(), ctx.needs(2) ? where(mask, ctx.grad(), 0.0) : Tensor()};
        }, Saves{std::vector<size_t>{1}, false});
    });
    table.def({"fill_"}, [](const DerivativeCall& call) {
        return recordSimple(call, "FillBackward0", {0, 1}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{zerosLike(ctx.grad()), ctx.needs(1) ? ctx.grad() : Tensor()};
        }, kSaveNothing);
    });
    table.def({"zero_", "uniform_", "normal_", "bernoulli_"}, [](const DerivativeCall& call) {
        return recordSimple(
            call, "FillBackward0", {0}, [](const BackwardContext& ctx) { return std::vector<Tensor>{zerosLike(ctx.grad())}; }, kSaveNothing);
    });
    table.def({"lerp"}, [](const DerivativeCall& call) {
        const std::optional<Scalar> weight = call.args[2].isTensor() ? std::nullopt : std::optional(call.args.scalar(2));
        return recordSimple(call, "LerpBackward0", {0, 1, 2}, [weight](const BackwardContext& ctx) {
            const Tensor& g = ctx.grad();
            const Operand w = weight ? Operand(*weight) : Operand(ctx.saved[2]);
            const Operand rest = weight ? Operand(1.0 - weight->toDouble()) : Operand(sub(1.0, ctx.saved[2]));
            return std::vector<Tensor>{mul(g, rest), mul(g, w), ctx.needs(2) ? mul(g, sub(ctx.saved[1], ctx.saved[0])) : Tensor()};
        });
    });
}

}  // namespace eng::tensor::autograd
