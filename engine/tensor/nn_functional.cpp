// Kernels behind torch.nn.functional: row-wise softmax and layer_norm (statistics in double, output math in the
// input's opmath type), plus compositions for dropout, embedding, attention and losses.
#include "tensor/nn_functional.h"

#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"
#include "tensor/cpu_attention.h"
#include "tensor/creation.h"
#include "tensor/cuda_attention.h"
#include "tensor/cuda_indexing.h"
#include "tensor/cuda_kernels.h"
#include "tensor/indexing.h"
#include "tensor/iteration.h"
#include "tensor/linalg.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"
#include "tensor/simd_dispatch.h"
#include "tensor/vector_math.h"
#include "tensor/worker_pool.h"

namespace eng::tensor {

namespace {

// NaN when the row holds one (every output is then NaN, as PyTorch's), else the row's maximum; in kSumLanes
// interleaved maxima that vectorise.
template <typename F>
[[gnu::always_inline]] inline F rowMaximum(const F* row, int64_t n) {
    F lanes[simd::kSumLanes];
    for (F& lane : lanes) lane = -std::numeric_limits<F>::infinity();
    bool sawNan = false;
    int64_t i = 0;
    for (; i + simd::kSumLanes <= n; i += simd::kSumLanes) {
#pragma GCC unroll 16
        for (int k = 0; k < simd::kSumLanes; ++k) {
            const F v = row[i + k];
            lanes[k] = v > lanes[k] ? v : lanes[k];
            sawNan |= v != v;
        }
    }
    F maximum = -std::numeric_limits<F>::infinity();
    for (; i < n; ++i) {
        maximum = row[i] > maximum ? row[i] : maximum;
        sawNan |= row[i] != row[i];
    }
    for (F lane : lanes) maximum = lane > maximum ? lane : maximum;
    return sawNan ? std::numeric_limits<F>::quiet_NaN() : maximum;
}

// float32's exponential is vector_math.h's (within 4 ulps), which vectorises; double's is libm's.
template <typename F>
[[gnu::always_inline]] inline F rowExp(F v) {
    if constexpr (std::is_same_v<F, float>)
        return vecmath::exp(v);
    else
        return std::exp(v);
}

// softmax / log_softmax of one contiguous row of float or double on the host's widest vectors: the same sums
// in double as the strided path below, taken in simd::laneSum's fixed order.
template <typename F>
void contiguousSoftmaxRow(const F* row, F* dst, int64_t n, bool logarithmic) {
    simd::run([=] {
        const F maximum = rowMaximum(row, n);
        if (logarithmic) {
            const double total = simd::laneSum(n, [=](int64_t i) { return static_cast<double>(rowExp(row[i] - maximum)); });
            const F shift = maximum + static_cast<F>(std::log(total));
            for (int64_t i = 0; i < n; ++i) dst[i] = row[i] - shift;
            return;
        }
        for (int64_t i = 0; i < n; ++i) dst[i] = rowExp(row[i] - maximum);
        const F inverse = F(1) / static_cast<F>(simd::laneSum(n, [=](int64_t i) { return static_cast<double>(dst[i]); }));
        for (int64_t i = 0; i < n; ++i) dst[i] *= inverse;
    });
}

Tensor softmaxImpl(const Tensor& x, int64_t dim, std::optional<DType> dtype, bool logarithmic) {
    const Tensor input = dtype ? to(x, *dtype) : x;
    if (input.dim() == 0) return reshape(softmaxImpl(reshape(input, {1}), 0, std::nullopt, logarithmic), {});
    const int64_t d = wrapDim(dim, input.dim());
    if (!isFloating(input.dtype()))
        fail(ErrorKind::NotImplemented, fmt::format("\"{}softmax_{}kernel_impl\" not implemented for '{}'", logarithmic ? "log_" : "",
                                                    d == input.dim() - 1 ? "lastdim_" : "", dtypeKernelName(input.dtype())));
    Tensor out = empty(input.sizes(), input.dtype(), input.device());
    if (cudaops::onCuda(input)) {
        cudaops::softmax(out, input, d, logarithmic);
        return out;
    }
    const int64_t n = input.sizes()[static_cast<size_t>(d)];
    const int64_t inStride = input.strides()[static_cast<size_t>(d)];
    const int64_t outStride = out.strides()[static_cast<size_t>(d)];
    dispatchDType(input.dtype(), [&]<typename T>() {
        if constexpr (!std::is_integral_v<T>) {
            using F = OpMath<T>;
            const T* in = input.dataAs<const T>();
            T* o = out.dataAs<T>();
            forEachLineParallel(input.sizes(), input.strides(), out.strides(), d, [&] {
                return [&, exps = std::vector<F>()](int64_t inOffset, int64_t outOffset) mutable {
                    const T* row = in + inOffset;
                    T* dst = o + outOffset;
                    if constexpr (std::is_same_v<T, F>) {
                        if (inStride == 1 && outStride == 1) return contiguousSoftmaxRow(row, dst, n, logarithmic);
                    }
                    F maximum = -std::numeric_limits<F>::infinity();
                    for (int64_t i = 0; i < n; ++i) {
                        const F v = static_cast<F>(row[i * inStride]);
                        if (v > maximum || v != v) maximum = v;
                        if (v != v) break;
                    }
                    double total = 0;
                    if (logarithmic) {
                        for (int64_t i = 0; i < n; ++i) total += static_cast<double>(std::exp(static_cast<F>(row[i * inStride]) - maximum));
                        const F shift = maximum + static_cast<F>(std::log(total));
                        for (int64_t i = 0; i < n; ++i) dst[i * outStride] = static_cast<T>(static_cast<F>(row[i * inStride]) - shift);
                    } else {
                        // Exponentials stay in opmath precision until the final scaling (16-bit types round once).
                        exps.resize(static_cast<size_t>(n));
                        for (int64_t i = 0; i < n; ++i) {
                            exps[static_cast<size_t>(i)] = std::exp(static_cast<F>(row[i * inStride]) - maximum);
                            total += static_cast<double>(exps[static_cast<size_t>(i)]);
                        }
                        const F inverse = F(1) / static_cast<F>(total);
                        for (int64_t i = 0; i < n; ++i) dst[i * outStride] = static_cast<T>(exps[static_cast<size_t>(i)] * inverse);
                    }
                };
            });
        }
    });
    return out;
}

std::string_view checkedReduction(std::string_view reduction) {
    if (reduction != "mean" && reduction != "sum" && reduction != "none")
        fail(ErrorKind::Value, fmt::format("{} is not a valid value for reduction", reduction));
    return reduction;
}

Tensor reduce(const Tensor& losses, std::string_view reduction) {
    if (checkedReduction(reduction) == "none") return losses;
    return reduction == "sum" ? sum(losses) : mean(losses);
}

}  // namespace

// Recorded under create_graph (a formula's softmax, as cross_entropy's backward calls it, carries its history).
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.softmax", [&] { return RecordedCall{{Value(x), Value(dim), dtype ? Value(*dtype) : Value()}, {}}; },
            [&] { return softmaxImpl(x, dim, dtype, false); });
    return softmaxImpl(x, dim, dtype, false);
}
Tensor logSoftmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.log_softmax", [&] { return RecordedCall{{Value(x), Value(dim), dtype ? Value(*dtype) : Value()}, {}}; },
            [&] { return softmaxImpl(x, dim, dtype, true); });
    return softmaxImpl(x, dim, dtype, true);
}

namespace {

/// layer_norm on a CUDA tensor from the device's reduction and pointwise kernels (statistics in float32 for 16-bit
/// inputs, as PyTorch's CUDA kernel accumulates), so that it never round-trips through host memory.
LayerNormResult layerNormOnDevice(const Tensor& x, size_t normalizedDims, const Tensor& weight, const Tensor& bias, double eps) {
    const DType compute = isReducedFloat(x.dtype()) ? DType::Float32 : x.dtype();
    const Tensor input = to(x, compute);
    std::vector<int64_t> dims;
    for (size_t i = 0; i < normalizedDims; ++i) dims.push_back(x.dim() - 1 - static_cast<int64_t>(i));
    const Tensor meanValue = mean(input, dims, true);
    const Tensor centred = sub(input, meanValue);
    const Tensor rstd = unary(UnaryOp::Rsqrt, add(var(input, dims, 0.0, true), Scalar(eps)));
    Tensor y = mul(centred, rstd);
    if (weight.defined()) y = mul(y, to(weight, compute));
    if (bias.defined()) y = add(y, to(bias, compute));
    return {to(y, x.dtype()), meanValue, rstd};
}

// layer_norm of one row of float or double on the host's widest vectors: mean and variance in double (in
// simd::laneSum's fixed order), the output in the row's own type.
template <typename F>
std::pair<double, double> contiguousLayerNormRow(const F* row, F* dst, int64_t n, const F* g, const F* b, double eps) {
    std::pair<double, double> statistics;
    simd::run([=, &statistics] {
        const double count = static_cast<double>(n);
        const double meanValue = simd::laneSum(n, [=](int64_t i) { return static_cast<double>(row[i]); }) / count;
        const double variance = simd::laneSum(n, [=](int64_t i) {
            const double centred = static_cast<double>(row[i]) - meanValue;
            return centred * centred;
        }) / count;
        const F rstd = static_cast<F>(1.0 / std::sqrt(std::max(variance, 0.0) + eps));
        const F shift = -static_cast<F>(meanValue) * rstd;
        statistics = {meanValue, static_cast<double>(rstd)};
        // One loop per affine form, so that none tests for the weight or bias per element.
        if (g && b)
            for (int64_t i = 0; i < n; ++i) dst[i] = (row[i] * rstd + shift) * g[i] + b[i];
        else if (g)
            for (int64_t i = 0; i < n; ++i) dst[i] = (row[i] * rstd + shift) * g[i];
        else if (b)
            for (int64_t i = 0; i < n; ++i) dst[i] = (row[i] * rstd + shift) + b[i];
        else
            for (int64_t i = 0; i < n; ++i) dst[i] = row[i] * rstd + shift;
    });
    return statistics;
}

}  // namespace

DType layerNormStatisticsDType(DType input, bool cuda, bool mixedParameters) {
    if (cuda || mixedParameters) return isReducedFloat(input) ? DType::Float32 : input;
    return input;
}

Tensor layerNorm(const Tensor& x, const Shape& normalizedShape, const Tensor& weight, const Tensor& bias, double eps) {
    return nativeLayerNorm(x, normalizedShape, weight, bias, eps).out;
}

LayerNormResult nativeLayerNorm(const Tensor& x, const Shape& normalizedShape, const Tensor& weight, const Tensor& bias, double eps) {
    const size_t k = normalizedShape.size();
    bool matches = k >= 1 && static_cast<size_t>(x.dim()) >= k;
    for (size_t i = 0; matches && i < k; ++i) matches = x.sizes()[x.sizes().size() - k + i] == normalizedShape[i];
    if (!matches)
        fail(ErrorKind::Runtime, fmt::format("Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
                                             shapeStr(normalizedShape), fmt::join(normalizedShape, ", "), shapeStr(x.sizes())));
    for (const Tensor* param : {&weight, &bias})
        if (param->defined() && param->sizes() != normalizedShape)
            fail(ErrorKind::Runtime, fmt::format("Expected weight to be of same shape as normalized_shape, but got weight of shape "
                                                 "{} and normalized_shape = {}",
                                                 shapeStr(param->sizes()), shapeStr(normalizedShape)));
    if (!isFloating(x.dtype()))
        fail(ErrorKind::Runtime, fmt::format("\"LayerNormKernelImpl\" not implemented for '{}'", dtypeKernelName(x.dtype())));
    Shape statisticsShape(x.sizes().begin(), x.sizes().end() - static_cast<std::ptrdiff_t>(k));
    statisticsShape.resize(x.sizes().size(), 1);
    if (cudaops::onCuda(x)) return layerNormOnDevice(x, k, weight, bias, eps);  // statistics kept as [*, 1, ...]
    const Tensor input = contiguous(x);
    const int64_t n = shapeNumel(normalizedShape);
    const int64_t rows = n == 0 ? 0 : input.numel() / n;
    Tensor out = empty(x.sizes(), x.dtype());
    const bool mixed = isReducedFloat(x.dtype()) && ((weight.defined() && !isReducedFloat(weight.dtype())) || (bias.defined() && !isReducedFloat(bias.dtype())));
    const DType statisticsDType = layerNormStatisticsDType(x.dtype(), false, mixed);
    // Filled as doubles, then cast: the statistics are rows numbers, next to the rows x n elements normalised.
    Tensor meanRows = empty(statisticsShape, DType::Float64), rstdRows = empty(statisticsShape, DType::Float64);
    double* means = meanRows.dataAs<double>();
    double* rstds = rstdRows.dataAs<double>();
    const Tensor gamma = weight.defined() ? contiguous(to(weight, x.dtype())) : Tensor();
    const Tensor beta = bias.defined() ? contiguous(to(bias, x.dtype())) : Tensor();
    dispatchDType(x.dtype(), [&]<typename T>() {
        if constexpr (!std::is_integral_v<T>) {
            using F = OpMath<T>;
            const T* in = input.dataAs<const T>();
            T* o = out.dataAs<T>();
            const T* g = gamma.defined() ? gamma.dataAs<const T>() : nullptr;
            const T* b = beta.defined() ? beta.dataAs<const T>() : nullptr;
            const auto normaliseRows = [&](int64_t firstRow, int64_t endRow) {
                for (int64_t r = firstRow; r < endRow; ++r) {
                    if constexpr (std::is_same_v<T, F>) {
                        std::tie(means[r], rstds[r]) = contiguousLayerNormRow(in + r * n, o + r * n, n, g, b, eps);
                        continue;
                    }
                    const T* row = in + r * n;
                    double meanValue = 0;
                    for (int64_t i = 0; i < n; ++i) meanValue += static_cast<double>(static_cast<F>(row[i]));
                    meanValue /= static_cast<double>(n);
                    double variance = 0;
                    for (int64_t i = 0; i < n; ++i) {
                        const double centred = static_cast<double>(static_cast<F>(row[i])) - meanValue;
                        variance += centred * centred;
                    }
                    variance /= static_cast<double>(n);
                    const F rstd = static_cast<F>(1.0 / std::sqrt(std::max(variance, 0.0) + eps));
                    const F shift = -static_cast<F>(meanValue) * rstd;
                    means[r] = meanValue;
                    rstds[r] = static_cast<double>(rstd);
                    for (int64_t i = 0; i < n; ++i) {
                        F v = static_cast<F>(row[i]) * rstd + shift;
                        if (g) v *= static_cast<F>(g[i]);
                        if (b) v += static_cast<F>(b[i]);
                        o[r * n + i] = static_cast<T>(v);
                    }
                }
            };
            parallelRanges(rows, (kEagerGrain + n - 1) / std::max<int64_t>(n, 1), normaliseRows);
        }
    });
    return {out, to(meanRows, statisticsDType), to(rstdRows, statisticsDType)};
}

Tensor dropout(const Tensor& x, double p, bool training) {
    if (p < 0 || p > 1) fail(ErrorKind::Value, fmt::format("dropout probability has to be between 0 and 1, but got {}", p));
    if (!training || p == 0) return x;
    if (p == 1) return zerosLike(x);
    return mul(x, dropoutScale(x, p));
}

Tensor dropoutScale(const Tensor& x, double p) {
    Tensor keep = emptyLike(x, TensorOptions{x.dtype(), x.device(), false});
    // PyTorch's CPU dropout: noise.bernoulli_(1 - p).div_(1 - p), then input * noise.
    bernoulliInPlace(keep, 1 - p);
    return div(keep, Scalar(1.0 - p));
}

Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> paddingIdx) {
    (void)paddingIdx;  // only affects gradients
    if (indices.dtype() != DType::Int64 && indices.dtype() != DType::Int32)
        fail(ErrorKind::Runtime, fmt::format("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                                             "Long, Int; but got torch.{}Tensor instead (while checking arguments for embedding)",
                                             dtypeKernelName(indices.dtype())));
    if (weight.dim() != 2) fail(ErrorKind::Runtime, "'weight' must be 2-D");
    Shape outShape = indices.sizes();
    outShape.push_back(weight.sizes()[1]);
    // On CUDA the kernel that makes the rows' positions checks them (raised at the next synchronisation) unless
    // CWB_HOST_CHECKS=1; otherwise the smallest and largest index decide (on CUDA one read of both back).
    if (cudaops::onCuda(weight) && !cudaops::synchronisingHostChecks()) return reshape(embeddingRowsOnCuda(weight, indices), outShape);
    if (indices.numel() > 0)
        for (int64_t index : toInts(stack({minAll(indices), maxAll(indices)})))
            if (index < 0 || index >= weight.sizes()[0]) fail(ErrorKind::Index, "index out of range in self");
    return reshape(indexSelect(weight, 0, reshape(indices, {-1})), outShape);
}

Tensor scaledDotProductAttention(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attnMask,
                                 double dropoutP, bool isCausal, std::optional<double> scale) {
    if (isCausal && attnMask.defined())
        fail(ErrorKind::Runtime, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
    const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
    // The fused CUDA kernel has no backward of its own: a call that records history keeps the composite path.
    const bool recording = autograd::isGradEnabled() && (query.requiresGrad() || key.requiresGrad() || value.requiresGrad());
    if (!attnMask.defined() && dropoutP == 0 && cudaops::flashAttentionSupported(query, key, value)) {
        if (!recording) return cudaops::flashAttention(query, key, value, isCausal, factor);
        if (cudaops::flashAttentionBackwardSupported(query, key, value)) cudaops::prefetchFlashAttention(query, isCausal);
    }
    // The CPU flash kernel (PyTorch's CPU flash path): the scores stay in per-thread tiles, not a [L, S] tensor.
    if (!recording && !attnMask.defined() && dropoutP == 0 && cpuops::flashAttentionSupported(query, key, value))
        return cpuops::flashAttention(query, key, value, isCausal, factor);
    Tensor scores = mul(matmul(query, transpose(key, -2, -1)), Scalar(factor));
    const int64_t queries = query.size(-2), keys = key.size(-2);
    if (isCausal) {
        // The mask lives where the scores do: a CPU mask next to CUDA scores is a device mismatch.
        const Tensor allowed = tril(ones({queries, keys}, TensorOptions{DType::Bool, query.device()}));
        scores = maskedFill(scores, unary(UnaryOp::LogicalNot, allowed), Scalar(-std::numeric_limits<double>::infinity()));
    }
    if (attnMask.defined()) {
        if (attnMask.dtype() == DType::Bool)
            scores = maskedFill(scores, unary(UnaryOp::LogicalNot, attnMask), Scalar(-std::numeric_limits<double>::infinity()));
        else
            scores = add(scores, attnMask);
    }
    Tensor weights = softmax(scores, -1);
    if (dropoutP > 0) weights = dropout(weights, dropoutP, true);
    return matmul(weights, value);
}

Tensor mseLoss(const Tensor& input, const Tensor& target, std::string_view reduction) {
    const Tensor diff = sub(input, target);
    return reduce(mul(diff, diff), reduction);
}

void checkClassTargets(const Tensor& target, int64_t classes, int64_t ignoreIndex) {
    if (target.numel() == 0) return;
    if (cudaops::onCuda(target)) return cudaops::checkClassTargets(target, classes, ignoreIndex);
    for (int64_t label : toInts(target))
        if (label != ignoreIndex && (label < 0 || label >= classes)) fail(ErrorKind::Index, fmt::format("Target {} is out of bounds.", label));
}

namespace {

// nll_loss of CUDA rows (batch x classes): each row's label picked on the device; labels equal to ignoreIndex
// count zero and are left out of the mean. Nothing waits for the device: the labels are checked by a kernel that
// asserts on the device (the next synchronisation raises, as PyTorch's CUDA kernel asserts), and a bad label reads
// column 0 meanwhile, never memory outside the rows (gather would read its indices back to check them).
Tensor nllLossOnDevice(const Tensor& rows, const Tensor& target, std::string_view reduction, int64_t ignoreIndex, bool single) {
    const int64_t batch = rows.sizes()[0], classes = rows.sizes()[1];
    const Tensor labels = reshape(to(target, DType::Int64, rows.device()), {-1});
    checkClassTargets(labels, classes, ignoreIndex);
    const Tensor counted = ne(labels, ignoreIndex);
    const Tensor inRange = logicalAnd(ge(labels, int64_t{0}), lt(labels, classes));
    const Tensor safe = mul(labels, logicalAnd(counted, inRange));  // 0 where not read (no scalar copied over)
    cudaops::IndexedAccess access;
    access.sizes = {batch};
    access.dataStrides = {rows.strides()[0]};
    access.table = contiguous(mul(safe, Scalar(rows.strides()[1])));
    access.tableStrides = {1};
    const Tensor picked = empty({batch}, rows.dtype(), rows.device());
    if (batch > 0) cudaops::gatherIndexed(picked, rows, access);
    const Tensor losses = where(counted, unary(UnaryOp::Neg, picked), 0.0);
    if (reduction == "none") return single ? reshape(losses, {}) : losses;
    const Tensor total = sum(losses);
    if (reduction == "sum") return total;
    return div(total, sum(counted, std::nullopt, false, rows.dtype()));
}

}  // namespace

Tensor nllLoss(const Tensor& logProbs, const Tensor& target, std::string_view reduction, int64_t ignoreIndex) {
    checkedReduction(reduction);
    if (logProbs.dim() < 1 || logProbs.dim() > 2)
        fail(ErrorKind::Value, fmt::format("Expected 1 or 2 dimensions (got {})", logProbs.dim()));
    if (isFloating(target.dtype()))
        fail(ErrorKind::Runtime, fmt::format("expected scalar type Long but found {}", dtypeKernelName(target.dtype())));
    const Tensor rows = logProbs.dim() == 1 ? unsqueeze(logProbs, 0) : logProbs;
    const int64_t batch = rows.sizes()[0], classes = rows.sizes()[1];
    if (target.numel() != batch)
        fail(ErrorKind::Value, fmt::format("Expected input batch_size ({}) to match target batch_size ({}).", batch, target.numel()));
    if (cudaops::onCuda(logProbs)) return nllLossOnDevice(rows, target, reduction, ignoreIndex, logProbs.dim() == 1);
    checkClassTargets(target, classes, ignoreIndex);
    const std::vector<int64_t> labels = toInts(target);
    std::vector<double> losses(static_cast<size_t>(batch), 0.0);
    double total = 0;
    int64_t counted = 0;
    for (int64_t i = 0; i < batch; ++i) {
        const int64_t label = labels[static_cast<size_t>(i)];
        if (label == ignoreIndex) continue;
        losses[static_cast<size_t>(i)] = -item(select(select(rows, 0, i), 0, label)).toDouble();
        total += losses[static_cast<size_t>(i)];
        ++counted;
    }
    if (reduction == "none") {
        Tensor out = fromDoubles(losses, {batch}, logProbs.dtype());
        return logProbs.dim() == 1 ? reshape(out, {}) : out;
    }
    const double result = reduction == "sum" ? total : total / static_cast<double>(counted);
    return scalarTensor(Scalar(result), logProbs.dtype(), logProbs.device());
}

Tensor crossEntropy(const Tensor& input, const Tensor& target, std::string_view reduction, int64_t ignoreIndex) {
    const int64_t classDim = input.dim() == 1 ? 0 : 1;
    const Tensor logProbs = logSoftmax(input, classDim);
    if (isFloating(target.dtype())) {
        // Class probabilities rather than indices.
        const Tensor losses = unary(UnaryOp::Neg, sum(mul(target, logProbs), std::vector<int64_t>{classDim}));
        return reduce(losses, reduction);
    }
    if (input.dim() <= 2) return nllLoss(logProbs, target, reduction, ignoreIndex);
    // (N, C, d1, ...): classes last, everything else flattened into the batch.
    const Tensor flat = reshape(movedim(logProbs, 1, -1), {-1, input.sizes()[1]});
    Tensor losses = nllLoss(flat, reshape(target, {-1}), reduction, ignoreIndex);
    return reduction == "none" ? reshape(losses, target.sizes()) : losses;
}

}  // namespace eng::tensor
