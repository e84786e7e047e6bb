// Derivative formulas of torch.nn.functional layers and losses: layer_norm, dropout, embedding,
// scaled_dot_product_attention, mse_loss, nll_loss and cross_entropy (class indices or probabilities).
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tensor/autograd/derivatives.h"
#include "tensor/autograd/scatter_grad.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_attention.h"
#include "tensor/indexing.h"
#include "tensor/linalg.h"
#include "tensor/nn_functional.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace eng::tensor::autograd {

namespace {

std::vector<int64_t> trailingDims(int64_t rank, size_t count) {
    std::vector<int64_t> dims;
    for (int64_t d = rank - static_cast<int64_t>(count); d < rank; ++d) dims.push_back(d);
    return dims;
}

// Per-row weights of a class-index loss over rows (N, C): the loss gradient `g` (per row for "none", else one
// number), divided by the number of counted rows for "mean"; zero for rows whose target is ignore_index.
// Returns (N, 1) weights and the (N, C) one-hot of the targets.
std::pair<Tensor, Tensor> rowWeights(const Tensor& targets, int64_t classes, int64_t ignoreIndex, const std::string& reduction,
                                     const Tensor& g) {
    const Tensor counted = ne(targets, Scalar(ignoreIndex));
    Tensor weight = reduction == "none" ? reshape(g, {-1}) : g;
    if (reduction == "mean") weight = div(weight, item(sum(counted)).toDouble());
    weight = mul(counted, weight);
    const Tensor classIds = reshape(arange(Scalar(classes), TensorOptions{DType::Int64, kCpu, false}), {1, classes});
    const Tensor positions = to(classIds, std::nullopt, targets.device());
    const Tensor oneHot = to(eq(unsqueeze(targets, 1), positions), g.dtype());
    return {unsqueeze(weight, 1), oneHot};
}

Tensor attentionScores(const Tensor& q, const Tensor& k, const Tensor& mask, bool isCausal, double factor) {
    Tensor scores = mul(matmul(q, transpose(k, -2, -1)), factor);
    const Scalar minusInf(-std::numeric_limits<double>::infinity());
    if (isCausal) {
        const Tensor allowed = to(tril(ones({q.size(-2), k.size(-2)}, TensorOptions{DType::Bool, kCpu, false})), std::nullopt, q.device());
        scores = maskedFill(scores, unary(UnaryOp::LogicalNot, allowed), minusInf);
    }
    if (mask.defined()) scores = mask.dtype() == DType::Bool ? maskedFill(scores, unary(UnaryOp::LogicalNot, mask), minusInf) : add(scores, mask);
    return scores;
}

}  // namespace

void registerNnDerivatives(DerivativeTable& table) {
    table.def({"layer_norm"}, [](const DerivativeCall& call) {
        const size_t k = call.args.intList(1).size();
        const double eps = call.args.real(4);
        return recordSimple(call, "NativeLayerNormBackward0", {0, 2, 3}, [k, eps](const BackwardContext& ctx) {
            const Tensor& x = ctx.saved[0];
            const Tensor& weight = ctx.saved[1];
            const Tensor& g = ctx.grad();
            const std::vector<int64_t> dims = trailingDims(x.dim(), k);
            const Tensor centred = sub(x, mean(x, dims, true));
            const Tensor rstd = unary(UnaryOp::Rsqrt, add(mean(mul(centred, centred), dims, true), eps));
            const Tensor normalized = mul(centred, rstd);
            const Tensor gNormalized = weight.defined() ? mul(g, weight) : g;
            Tensor gx;
            if (ctx.needs(0)) {
                // rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) over the normalized dims.
                const Tensor centredGrad = sub(gNormalized, mean(gNormalized, dims, true));
                const Tensor inner = sub(centredGrad, mul(normalized, mean(mul(gNormalized, normalized), dims, true)));
                gx = mul(rstd, inner);
            }
            return std::vector<Tensor>{gx, ctx.needs(1) ? mul(g, normalized) : Tensor(), ctx.needs(2) ? g : Tensor()};
        }, Saves{std::vector<size_t>{0, 1}, false});
    });
    table.def({"dropout"}, [](const DerivativeCall& call) {
        const Tensor& x = call.args.tensor(0);
        const double p = call.args.real(1);
        const bool training = call.args.boolean(2);
        if (call.inPlace)
            fail(ErrorKind::NotImplemented, "dropout(inplace=True) on a tensor that requires grad is not supported by the cwb autograd");
        if (p < 0 || p > 1 || !training || p == 0) return call.forward(call.args);
        // The forward is run here rather than by the kernel so that the mask is kept for the backward.
        const Tensor scale = p == 1 ? zerosLike(x) : dropoutScale(x, p);
        const Tensor out = mul(x, scale);
        recordOp("NativeDropoutBackward0", {x}, {out}, {scale}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{mul(ctx.grad(), ctx.saved[0])};
        });
        return Value(out);
    });
    table.def({"embedding"}, [](const DerivativeCall& call) {
        const std::optional<int64_t> paddingIdx = call.args.optInteger(2);
        const Shape weightShape = call.args.tensor(1).sizes();
        const DType weightDType = call.args.tensor(1).dtype();
        // Like PyTorch, only the indices are saved: the weight may change in place (an optimizer step).
        return recordSimple(call, "EmbeddingBackward0", {0, 1}, [paddingIdx, weightShape, weightDType](const BackwardContext& ctx) {
            const Tensor& indices = ctx.saved[0];
            Tensor g = ctx.grad();
            // The padding row's gradient stays zero: it is a fixed vector.
            if (paddingIdx) g = mul(g, unsqueeze(ne(indices, Scalar(*paddingIdx < 0 ? *paddingIdx + weightShape[0] : *paddingIdx)), -1));
            Tensor gw = zeros(weightShape, TensorOptions{weightDType, g.device(), false});
            if (structuralOpsRecorded()) gw = indexPutCopy(gw, {indices}, g, true);  // create_graph: recorded
            else indexPut(gw, {indices}, g, true);
            return std::vector<Tensor>{Tensor(), gw};
        }, Saves{std::vector<size_t>{0}, false});
    });
    table.def({"scaled_dot_product_attention"}, [](const DerivativeCall& call) {
        const double dropoutP = call.args.real(4);
        const bool isCausal = call.args.boolean(5);
        const double factor = call.args.optReal(6).value_or(1.0 / std::sqrt(static_cast<double>(call.args.tensor(0).size(-1))));
        return recordSimple(call, "ScaledDotProductAttentionBackward0", {0, 1, 2, 3}, [dropoutP, isCausal, factor](const BackwardContext& ctx) {
            if (dropoutP > 0)
                fail(ErrorKind::NotImplemented, "derivative for aten::scaled_dot_product_attention with dropout_p > 0 is not implemented");
            const Tensor &q = ctx.saved[0], &k = ctx.saved[1], &v = ctx.saved[2], &mask = ctx.saved[3];
            const Tensor& g = ctx.grad();
            if (!mask.defined() && cudaops::flashAttentionBackwardSupported(q, k, v) && g.dtype() == q.dtype()) {
                // The flash backward (as AOT Autograd's joint graph calls it), from the saved output.
                const Tensor grads = cudaops::flashAttentionBackward(g, q, k, v, ctx.saved.back(), isCausal, factor);
                auto item = [&](int64_t i) { return transpose(select(grads, 0, i), 1, 2); };
                return std::vector<Tensor>{ctx.needs(0) ? item(0) : Tensor(), ctx.needs(1) ? item(1) : Tensor(), ctx.needs(2) ? item(2) : Tensor(), Tensor()};
            }
            const Tensor weights = softmax(attentionScores(q, k, mask, isCausal, factor), -1);
            const Tensor gWeights = matmul(g, transpose(v, -2, -1));
            const Tensor gScores = mul(weights, sub(gWeights, sum(mul(gWeights, weights), std::vector<int64_t>{-1}, true)));
            const Tensor gScaled = mul(gScores, factor);
            return std::vector<Tensor>{ctx.needs(0) ? matmul(gScaled, k) : Tensor(), ctx.needs(1) ? matmul(transpose(gScaled, -2, -1), q) : Tensor(),
                                       ctx.needs(2) ? matmul(transpose(weights, -2, -1), g) : Tensor(),
                                       ctx.needs(3) && mask.dtype() != DType::Bool ? gScores : Tensor()};
        }, kSaveAll);
    });
    table.def({"mse_loss"}, [](const DerivativeCall& call) {
        const std::string reduction = call.args.str(4);
        return recordSimple(call, "MseLossBackward0", {0, 1}, [reduction](const BackwardContext& ctx) {
            const Tensor difference = sub(ctx.saved[0], ctx.saved[1]);
            double factor = 2.0;
            if (reduction == "mean") factor /= static_cast<double>(std::max<int64_t>(difference.numel(), 1));
            const Tensor gInput = mul(mul(difference, ctx.grad()), factor);
            return std::vector<Tensor>{gInput, ctx.needs(1) ? unary(UnaryOp::Neg, gInput) : Tensor()};
        });
    });
    table.def({"nll_loss"}, [](const DerivativeCall& call) {
        const std::string reduction = call.args.str(6);
        const int64_t ignoreIndex = call.args.integer(4);
        return recordSimple(call, "NllLossBackward0", {0, 1}, [reduction, ignoreIndex](const BackwardContext& ctx) {
            const Tensor& logProbs = ctx.saved[0];
            const Tensor rows = logProbs.dim() == 1 ? unsqueeze(logProbs, 0) : logProbs;
            const Tensor targets = reshape(ctx.saved[1], {-1});
            auto [weight, oneHot] = rowWeights(targets, rows.size(1), ignoreIndex, reduction, ctx.grad());
            return std::vector<Tensor>{reshape(unary(UnaryOp::Neg, mul(oneHot, weight)), logProbs.sizes()), Tensor()};
        });
    });
    table.def({"cross_entropy"}, [](const DerivativeCall& call) {
        const std::string reduction = call.args.str(6);
        const int64_t ignoreIndex = call.args.integer(4);
        return recordSimple(call, "NllLossBackward0", {0, 1}, [reduction, ignoreIndex](const BackwardContext& ctx) {
            const Tensor& input = ctx.saved[0];
            const Tensor& target = ctx.saved[1];
            const int64_t classDim = input.dim() == 1 ? 0 : 1;
            const Tensor probabilities = softmax(input, classDim);
            const Tensor& g = ctx.grad();
            if (isFloating(target.dtype())) {
                // loss = -sum_c t_c log p_c per position: d/dx = p * sum_c t_c - t, d/dt = -log p.
                Tensor weight = reduction == "none" ? unsqueeze(g, classDim) : g;
                if (reduction == "mean") weight = div(weight, static_cast<double>(std::max<int64_t>(input.numel() / input.size(classDim), 1)));
                const Tensor totals = sum(target, std::vector<int64_t>{classDim}, true);
                const Tensor gInput = mul(sub(mul(probabilities, totals), target), weight);
                Tensor gTarget;
                if (ctx.needs(1)) gTarget = mul(unary(UnaryOp::Neg, logSoftmax(input, classDim)), weight);
                return std::vector<Tensor>{gInput, gTarget};
            }
            // Class indices: rows are the positions with classes last, as the forward flattens them.
            const int64_t classes = input.size(classDim);
            const Tensor rows = input.dim() <= 2 ? reshape(probabilities, {-1, classes}) : reshape(movedim(probabilities, 1, -1), {-1, classes});
            auto [weight, oneHot] = rowWeights(reshape(target, {-1}), classes, ignoreIndex, reduction, g);
            const Tensor gRows = mul(sub(rows, oneHot), weight);
            if (input.dim() <= 2) return std::vector<Tensor>{reshape(gRows, input.sizes()), Tensor()};
            Shape classesLast = input.sizes();
            classesLast.erase(classesLast.begin() + 1);
            classesLast.push_back(classes);
            return std::vector<Tensor>{movedim(reshape(gRows, classesLast), -1, 1), Tensor()};
        });
    });
}

}  // namespace eng::tensor::autograd
