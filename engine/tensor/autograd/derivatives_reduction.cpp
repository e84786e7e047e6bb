// Derivative formulas of reductions (sum, mean, amax/amin, max/min, var/std, logsumexp, cumsum, norms) and of
// softmax / log_softmax. Reduced gradients are broadcast back over the reduced dims of the input.
#include <cmath>

#include <fmt/format.h>

#include "tensor/autograd/derivatives.h"
#include "tensor/autograd/grad_utils.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace eng::tensor::autograd {

namespace {

using DimsOpt = std::optional<std::vector<int64_t>>;

// F.softmax without dim: PyTorch's legacy implicit choice (the registry kernel makes the same one).
int64_t softmaxDim(const Args& a, const Tensor& x) {
    if (!a.isNone(1)) return a.integer(1);
    return (x.dim() == 0 || x.dim() == 1 || x.dim() == 3) ? 0 : 1;
}

// Gradient of a reduction that every element of a slice feeds equally (sum, or mean with scale 1/count).
Value sumLike(const DerivativeCall& call, const char* node, const DimsOpt& dimsArg, bool keepdim, bool isMean) {
    const Tensor& x = call.args.tensor(0);
    const Shape shape = x.sizes();
    const std::vector<int64_t> dims = reducedDims(dimsArg, x.dim());
    const double scale = isMean ? 1.0 / static_cast<double>(std::max<int64_t>(reducedCount(shape, dims), 1)) : 1.0;
    const bool zeroCount = isMean && reducedCount(shape, dims) == 0;
    Value out = call.forward(call.args);
    recordOp(node, {x}, {out.toTensor()}, {}, [shape, dims, keepdim, scale, zeroCount](const BackwardContext& ctx) {
        Tensor g = expandReduced(ctx.grad(), shape, dims, keepdim);
        if (zeroCount) return std::vector<Tensor>{g};
        return std::vector<Tensor>{scale == 1.0 ? contiguous(g) : mul(g, scale)};
    });
    return out;
}

// amax/amin and max()/min() over all: the gradient is split evenly among the elements equal to the extreme.
Value extremeEvenly(const DerivativeCall& call, const char* node, const DimsOpt& dimsArg, bool keepdim) {
    const Tensor& x = call.args.tensor(0);
    const std::vector<int64_t> dims = reducedDims(dimsArg, x.dim());
    Value out = call.forward(call.args);
    recordOp(node, {x}, {out.toTensor()}, {x, out.toTensor()}, [dims, keepdim](const BackwardContext& ctx) {
        const Tensor& input = ctx.saved[0];
        const Tensor hit = eq(input, unsqueezeReduced(ctx.saved[1], dims, keepdim));
        const Tensor count = unsqueezeReduced(sum(hit, dims, false), dims, false);
        const Tensor g = unsqueezeReduced(ctx.grad(), dims, keepdim);
        return std::vector<Tensor>{mul(div(g, count), hit)};
    });
    return out;
}

// max(x, dim) / min(x, dim): the gradient goes to the element whose index was returned.
Value extremeAlongDim(const DerivativeCall& call, const char* node) {
    const Tensor& x = call.args.tensor(0);
    const int64_t dim = wrapDim(call.args.integer(1), x.dim());
    const bool keepdim = call.args.boolean(2);
    const Shape shape = x.sizes();
    Value out = call.forward(call.args);
    const Tensor values = out.items()[0].toTensor(), indices = out.items()[1].toTensor();
    recordOp(node, {x}, {values, indices}, {indices}, [dim, keepdim, shape](const BackwardContext& ctx) {
        const Tensor index = keepdim || shape.empty() ? ctx.saved[0] : unsqueeze(ctx.saved[0], dim);
        const Tensor g = keepdim || shape.empty() ? ctx.grad() : unsqueeze(ctx.grad(), dim);
        if (shape.empty()) return std::vector<Tensor>{reshape(g, shape)};
        Shape positionsShape(shape.size(), 1);
        positionsShape[static_cast<size_t>(dim)] = shape[static_cast<size_t>(dim)];
        const Tensor positions = to(reshape(arange(Scalar(shape[static_cast<size_t>(dim)]), TensorOptions{DType::Int64, kCpu, false}), positionsShape),
                                    std::nullopt, g.device());
        return std::vector<Tensor>{mul(g, eq(positions, index))};
    });
    return out;
}

// var / std: the three schemas carry (dims, correction, keepdim) differently.
struct VarianceArgs {
    DimsOpt dims;
    double correction = 1.0;
    bool keepdim = false;
};

VarianceArgs varianceArgs(const DerivativeCall& call) {
    const Args& a = call.args;
    if (a.size() == 2) return {std::nullopt, a.boolean(1) ? 1.0 : 0.0, false};
    const bool byCorrection = call.schema.params[2].name == "correction";
    const double correction = byCorrection ? (a.optScalar(2) ? a.scalar(2).toDouble() : 1.0) : (a.boolean(2) ? 1.0 : 0.0);
    return {a.optIntList(1), correction, a.boolean(3)};
}

Value variance(const DerivativeCall& call, bool takeSqrt) {
    const Tensor& x = call.args.tensor(0);
    const VarianceArgs v = varianceArgs(call);
    const std::vector<int64_t> dims = reducedDims(v.dims, x.dim());
    const double denominator = static_cast<double>(reducedCount(x.sizes(), dims)) - v.correction;
    const bool keepdim = v.keepdim;
    Value out = call.forward(call.args);
    recordOp(takeSqrt ? "StdBackward0" : "VarBackward0", {x}, {out.toTensor()}, {x, out.toTensor()},
             [dims, keepdim, denominator, takeSqrt](const BackwardContext& ctx) {
                 const Tensor& input = ctx.saved[0];
                 const Tensor centred = sub(input, mean(input, dims, true));
                 Tensor g = unsqueezeReduced(ctx.grad(), dims, keepdim);
                 // d var = 2 (x - mean) / (N - correction); d std = d var / (2 std).
                 if (takeSqrt) return std::vector<Tensor>{div(mul(g, centred), mul(unsqueezeReduced(ctx.saved[1], dims, keepdim), denominator))};
                 return std::vector<Tensor>{mul(mul(g, centred), 2.0 / denominator)};
             });
    return out;
}

Value vectorNormDerivative(const DerivativeCall& call, double p, const DimsOpt& dimsArg, bool keepdim) {
    const Tensor& x = call.args.tensor(0);
    const std::vector<int64_t> dims = reducedDims(dimsArg, x.dim());
    Value out = call.forward(call.args);
    if (!std::isfinite(p) || p <= 0) {
        recordOp("NormBackward1", {x}, {out.toTensor()}, {}, [p](const BackwardContext&) -> std::vector<Tensor> {
            fail(ErrorKind::NotImplemented, fmt::format("derivative for aten::linalg_vector_norm with ord={} is not implemented", p));
        });
        return out;
    }
    recordOp("NormBackward1", {x}, {out.toTensor()}, {x, out.toTensor()}, [dims, keepdim, p](const BackwardContext& ctx) {
        const Tensor& input = ctx.saved[0];
        const Tensor norm = unsqueezeReduced(ctx.saved[1], dims, keepdim);
        const Tensor g = unsqueezeReduced(ctx.grad(), dims, keepdim);
        // d||x||_p = x |x|^(p-2) / ||x||^(p-1); zero where the norm is zero (PyTorch's masked subgradient).
        const Tensor scaled = p == 2.0 ? input : mul(input, pow(unary(UnaryOp::Abs, input), p - 2.0));
        const Tensor ratio = div(scaled, p == 2.0 ? norm : pow(norm, p - 1.0));
        return std::vector<Tensor>{where(eq(norm, 0.0), 0.0, mul(g, ratio))};
    });
    return out;
}

}  // namespace

void registerReductionDerivatives(DerivativeTable& table) {
    table.def({"sum"}, [](const DerivativeCall& c) {
        return sumLike(c, c.args.isNone(1) ? "SumBackward0" : "SumBackward1", c.args.optIntList(1), c.args.boolean(2), false);
    });
    table.def({"mean"}, [](const DerivativeCall& c) {
        return sumLike(c, c.args.isNone(1) ? "MeanBackward0" : "MeanBackward1", c.args.optIntList(1), c.args.boolean(2), true);
    });
    table.def({"amax"}, [](const DerivativeCall& c) { return extremeEvenly(c, "AmaxBackward0", c.args.intList(1), c.args.boolean(2)); });
    table.def({"amin"}, [](const DerivativeCall& c) { return extremeEvenly(c, "AminBackward0", c.args.intList(1), c.args.boolean(2)); });
    for (const char* name : {"max", "min"}) {
        const bool isMax = std::string_view(name) == "max";
        table.def({name}, [isMax](const DerivativeCall& c) {
            if (c.args.size() == 1) return extremeEvenly(c, isMax ? "MaxBackward1" : "MinBackward1", std::nullopt, false);
            if (c.args[1].isTensor()) return DerivativeTable::instance().find(isMax ? "maximum" : "minimum")->operator()(c);
            return extremeAlongDim(c, isMax ? "MaxBackward0" : "MinBackward0");
        });
    }
    table.def({"var"}, [](const DerivativeCall& c) { return variance(c, false); });
    table.def({"std"}, [](const DerivativeCall& c) { return variance(c, true); });
    table.def({"logsumexp"}, [](const DerivativeCall& c) {
        const Tensor& x = c.args.tensor(0);
        const std::vector<int64_t> dims = reducedDims(c.args.intList(1), x.dim());
        const bool keepdim = c.args.boolean(2);
        Value out = c.forward(c.args);
        recordOp("LogsumexpBackward0", {x}, {out.toTensor()}, {x, out.toTensor()}, [dims, keepdim](const BackwardContext& ctx) {
            const Tensor weights = unary(UnaryOp::Exp, sub(ctx.saved[0], unsqueezeReduced(ctx.saved[1], dims, keepdim)));
            return std::vector<Tensor>{mul(unsqueezeReduced(ctx.grad(), dims, keepdim), weights)};
        });
        return out;
    });
    table.def({"cumsum"}, [](const DerivativeCall& c) {
        const Tensor& x = c.args.tensor(0);
        const int64_t dim = x.dim() == 0 ? 0 : wrapDim(c.args.integer(1), x.dim());
        const bool scalar = x.dim() == 0;
        Value out = c.forward(c.args);
        recordOp("CumsumBackward0", {x}, {out.toTensor()}, {}, [dim, scalar](const BackwardContext& ctx) {
            if (scalar) return std::vector<Tensor>{ctx.grad()};
            // Each input feeds every later output: a reversed cumulative sum of the gradient.
            return std::vector<Tensor>{flip(cumsum(flip(ctx.grad(), {dim}), dim), {dim})};
        });
        return out;
    });
    table.def({"norm"}, [](const DerivativeCall& c) {
        const double p = c.args[1].isString() ? 2.0 : (c.args.optScalar(1) ? c.args.scalar(1).toDouble() : 2.0);
        return vectorNormDerivative(c, p, c.args.optIntList(2), c.args.boolean(3));
    });
    table.def({"vector_norm"}, [](const DerivativeCall& c) {
        return vectorNormDerivative(c, c.args.scalar(1).toDouble(), c.args.optIntList(2), c.args.boolean(3));
    });

    for (const char* name : {"softmax", "log_softmax"}) {
        const bool logarithmic = std::string_view(name) == "log_softmax";
        table.def({name}, [logarithmic](const DerivativeCall& c) {
            const Tensor& x = c.args.tensor(0);
            const int64_t dim = x.dim() == 0 ? 0 : wrapDim(softmaxDim(c.args, x), x.dim());
            const bool scalar = x.dim() == 0;
            Value out = c.forward(c.args);
            recordOp(logarithmic ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {x}, {out.toTensor()}, {out.toTensor()},
                     [dim, scalar, logarithmic](const BackwardContext& ctx) {
                         const Tensor& y = ctx.saved[0];
                         const Tensor& g = ctx.grad();
                         if (scalar) return std::vector<Tensor>{zerosLike(g)};
                         const std::vector<int64_t> dims{dim};
                         if (logarithmic) return std::vector<Tensor>{sub(g, mul(unary(UnaryOp::Exp, y), sum(g, dims, true)))};
                         return std::vector<Tensor>{mul(y, sub(g, sum(mul(g, y), dims, true)))};
                     });
            return out;
        });
    }
}

}  // namespace eng::tensor::autograd
