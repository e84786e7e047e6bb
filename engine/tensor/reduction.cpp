// Reduction kernels. The input's kept dims are walked in row-major order; for each output element the reduced
// dims (coalesced) arrive as strided 1-D segments to a reducer object, so one driver serves every reduction.
#include "tensor/complex.h"
#include "tensor/reduction.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"
#include "tensor/host_route.h"
#include "tensor/iteration.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/shape.h"
#include "tensor/worker_pool.h"

namespace eng::tensor {

namespace {

struct Geometry {
    Shape outShape;
    Shape keptSizes, keptStrides;
    Shape reducedSizes, reducedStrides;
    int64_t outCount = 1;
    int64_t reducedCount = 1;
};

std::vector<bool> reducedMask(int64_t ndim, const DimList& dims) {
    std::vector<bool> mask(static_cast<size_t>(ndim), !dims || dims->empty());
    if (!dims) return mask;
    std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
    for (int64_t d : *dims) {
        const auto w = static_cast<size_t>(wrapDim(d, ndim));
        if (seen[w]) fail(ErrorKind::Runtime, fmt::format("dim {} appears multiple times in the list of dims", w));
        seen[w] = true;
        if (ndim > 0) mask[w] = true;
    }
    return mask;
}

Geometry makeGeometry(const Tensor& x, const std::vector<bool>& mask, bool keepdim) {
    Geometry g;
    for (size_t d = 0; d < mask.size(); ++d) {
        const int64_t size = x.sizes()[d];
        if (mask[d]) {
            g.reducedCount *= size;
            if (keepdim) g.outShape.push_back(1);
            if (size == 1) continue;
            // Coalesce with the previous reduced dim when they form one strided run.
            if (!g.reducedSizes.empty() && g.reducedStrides.back() == x.strides()[d] * size) {
                g.reducedSizes.back() *= size;
                g.reducedStrides.back() = x.strides()[d];
            } else {
                g.reducedSizes.push_back(size);
                g.reducedStrides.push_back(x.strides()[d]);
            }
        } else {
            g.outShape.push_back(size);
            g.keptSizes.push_back(size);
            g.keptStrides.push_back(x.strides()[d]);
            g.outCount *= size;
        }
    }
    return g;
}

// The element offset of position `index` (row-major) in a grid of these sizes and strides; each dim's position
// goes to `counter` when given.
int64_t unravelOffset(int64_t index, const Shape& sizes, const Shape& strides, std::vector<int64_t>* counter = nullptr) {
    int64_t offset = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
        const int64_t position = index % sizes[d];
        index /= sizes[d];
        offset += position * strides[d];
        if (counter) (*counter)[d] = position;
    }
    return offset;
}

// Elements of the reduced range one partial result covers when a few outputs each reduce a long range.
constexpr int64_t kReductionBlock = 1 << 16;
// Outputs below which a reduction splits each output's range into blocks rather than splitting the outputs.
constexpr int64_t kFewOutputs = 16;

// reducer.segment(...) over the elements [first, end) of one output's reduced range (row-major over the reduced
// dims, so a block may begin and end inside a segment). `counter` is the caller's scratch, reused across calls.
template <typename T, typename Reducer>
void reduceBlock(const T* outputBase, const Geometry& g, Reducer& reducer, int64_t first, int64_t end, std::vector<int64_t>& counter) {
    // An empty range reads nothing; unravelling its start over a size-0 reduced dim would divide by zero.
    if (first >= end) return;
    if (g.reducedSizes.empty()) {
        reducer.segment(outputBase, 1, 0, first);
        return;
    }
    const size_t dims = g.reducedSizes.size();
    counter.assign(dims, 0);
    int64_t offset = unravelOffset(first, g.reducedSizes, g.reducedStrides, &counter);
    const int64_t lastSize = g.reducedSizes.back(), lastStride = g.reducedStrides.back();
    for (int64_t at = first; at < end;) {
        const int64_t count = std::min(lastSize - counter.back(), end - at);
        reducer.segment(outputBase + offset, count, lastStride, at);
        at += count;
        offset += count * lastStride;
        counter.back() += count;
        for (size_t d = dims; d-- > 1 && counter[d] == g.reducedSizes[d];) {
            offset += g.reducedStrides[d - 1] - g.reducedStrides[d] * g.reducedSizes[d];
            counter[d] = 0;
            ++counter[d - 1];
        }
    }
}

// reducer.begin(), the whole reduced range of each output, reducer.end(outIndex), for the outputs
// [firstOut, endOut) (row-major over the kept dims).
template <typename T, typename Reducer>
void reduceOutputs(const Tensor& x, const Geometry& g, Reducer& reducer, int64_t firstOut, int64_t endOut) {
    const T* base = x.dataAs<const T>();
    const size_t kept = g.keptSizes.size();
    std::vector<int64_t> keptCounter(kept, 0), reducedCounter;
    int64_t keptOffset = unravelOffset(firstOut, g.keptSizes, g.keptStrides, &keptCounter);
    for (int64_t o = firstOut; o < endOut; ++o) {
        reducer.begin();
        reduceBlock(base + keptOffset, g, reducer, 0, g.reducedCount, reducedCounter);
        reducer.end(o);
        for (size_t d = kept; d-- > 0;) {
            keptOffset += g.keptStrides[d];
            if (++keptCounter[d] < g.keptSizes[d]) break;
            keptOffset -= g.keptStrides[d] * g.keptSizes[d];
            keptCounter[d] = 0;
        }
    }
}

// Every output. Many outputs are split over the worker pool's threads (each with its own copy of the reducer),
// each output reduced in the same order as on one thread. A few outputs over long ranges (x.sum(), a mean over
// most dims) reduce fixed blocks of kReductionBlock elements as partials that are then combined in block order:
// the blocks depend on the shape alone, so the result is the same on any number of threads.
template <typename T, typename Reducer>
void runReduction(const Tensor& x, const Geometry& g, Reducer& reducer) {
    const int64_t blocks = (g.reducedCount + kReductionBlock - 1) / kReductionBlock;
    if constexpr (requires(Reducer r) { r.combine(r); }) {
        if (g.outCount < kFewOutputs && blocks >= 2) {
            const T* base = x.dataAs<const T>();
            std::vector<int64_t> outputOffsets;
            for (int64_t o = 0; o < g.outCount; ++o) outputOffsets.push_back(unravelOffset(o, g.keptSizes, g.keptStrides));
            std::vector<Reducer> partials(static_cast<size_t>(g.outCount * blocks), reducer);
            parallelRanges(g.outCount * blocks, 1, [&](int64_t first, int64_t end) {
                std::vector<int64_t> counter;
                for (int64_t task = first; task < end; ++task) {
                    const int64_t o = task / blocks, block = task % blocks;
                    Reducer& partial = partials[static_cast<size_t>(task)];
                    partial.begin();
                    reduceBlock(base + outputOffsets[static_cast<size_t>(o)], g, partial, block * kReductionBlock,
                                std::min(g.reducedCount, (block + 1) * kReductionBlock), counter);
                }
            });
            for (int64_t o = 0; o < g.outCount; ++o) {
                Reducer& total = partials[static_cast<size_t>(o * blocks)];
                for (int64_t block = 1; block < blocks; ++block) total.combine(partials[static_cast<size_t>(o * blocks + block)]);
                total.end(o);
            }
            return;
        }
    }
    const int64_t perOutput = std::max<int64_t>(g.reducedCount, 1);
    parallelRanges(g.outCount, (kEagerGrain + perOutput - 1) / perOutput, [&](int64_t first, int64_t end) {
        Reducer local = reducer;
        reduceOutputs<T>(x, g, local, first, end);
    });
}

template <typename T>
using SumAcc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

template <typename T, typename Out>
struct SumReducer {
    using Acc = SumAcc<T>;
    Out* out;
    double divisor = 1.0;  // mean divides by the reduced count
    Acc acc{};
    void begin() { acc = Acc{}; }
    void segment(const T* p, int64_t n, int64_t stride, int64_t) {
        if (stride == 1) {
            // Independent partial sums let the compiler vectorise and also shorten the rounding chains.
            Acc lanes[8] = {};
            int64_t i = 0;
            for (; i + 8 <= n; i += 8)
                for (int k = 0; k < 8; ++k) lanes[k] += static_cast<Acc>(static_cast<OpMath<T>>(p[i + k]));
            for (; i < n; ++i) lanes[0] += static_cast<Acc>(static_cast<OpMath<T>>(p[i]));
            acc += ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        } else {
            for (int64_t i = 0; i < n; ++i) acc += static_cast<Acc>(static_cast<OpMath<T>>(p[i * stride]));
        }
    }
    void combine(const SumReducer& later) { acc += later.acc; }
    void end(int64_t o) {
        if constexpr (std::is_integral_v<Acc>) out[o] = castValue<Out>(acc);
        else out[o] = castValue<Out>(acc / divisor);
    }
};

template <typename T>
struct ProdReducer {
    using Acc = SumAcc<T>;
    T* out;
    Acc acc{};
    void begin() { acc = Acc{1}; }
    void segment(const T* p, int64_t n, int64_t stride, int64_t) {
        for (int64_t i = 0; i < n; ++i) acc *= static_cast<Acc>(static_cast<OpMath<T>>(p[i * stride]));
    }
    void combine(const ProdReducer& later) { acc *= later.acc; }
    void end(int64_t o) { out[o] = castValue<T>(acc); }
};

// Max/min with NaN propagation and the first index of the extreme (PyTorch's rule for ties).
template <typename T, bool kMax>
struct ExtremumReducer {
    using V = OpMath<T>;
    T* values;
    int64_t* indices;  // may be null
    V best{};
    int64_t bestIndex = -1;
    void begin() { bestIndex = -1; }
    void segment(const T* p, int64_t n, int64_t stride, int64_t first) {
        for (int64_t i = 0; i < n; ++i) {
            const V v = static_cast<V>(p[i * stride]);
            bool take = bestIndex < 0;
            if (!take) {
                if constexpr (std::is_floating_point_v<V>) {
                    if (best != best) continue;
                    if (v != v) take = true;
                }
                take = take || (kMax ? v > best : v < best);
            }
            if (take) {
                best = v;
                bestIndex = first + i;
            }
        }
    }
    // The extreme of a later block: the rules above give the same winner as one pass over both blocks.
    void combine(const ExtremumReducer& later) {
        if (later.bestIndex < 0) return;
        bool take = bestIndex < 0;
        if constexpr (std::is_floating_point_v<V>) {
            if (!take && best != best) return;
            take = take || later.best != later.best;
        }
        if (take || (kMax ? later.best > best : later.best < best)) {
            best = later.best;
            bestIndex = later.bestIndex;
        }
    }
    void end(int64_t o) {
        values[o] = static_cast<T>(best);
        if (indices) indices[o] = bestIndex;
    }
};

template <typename T>
struct VarianceReducer {
    using Out = T;
    Out* out;
    double correction;
    bool takeSqrt;
    std::vector<double> buffer;
    void begin() { buffer.clear(); }
    void segment(const T* p, int64_t n, int64_t stride, int64_t) {
        for (int64_t i = 0; i < n; ++i) buffer.push_back(static_cast<double>(static_cast<OpMath<T>>(p[i * stride])));
    }
    void end(int64_t o) {
        double mean = 0;
        for (double v : buffer) mean += v;
        mean /= static_cast<double>(buffer.size());
        double squares = 0;
        for (double v : buffer) squares += (v - mean) * (v - mean);
        double result = squares / std::max(0.0, static_cast<double>(buffer.size()) - correction);
        if (takeSqrt) result = std::sqrt(result);
        out[o] = castValue<Out>(result);
    }
};

template <typename T, bool kAll>
struct LogicalReducer {
    bool* out;
    bool acc = kAll;
    void begin() { acc = kAll; }
    void segment(const T* p, int64_t n, int64_t stride, int64_t) {
        for (int64_t i = 0; i < n; ++i) {
            const bool nonZero = static_cast<double>(static_cast<OpMath<T>>(p[i * stride])) != 0.0;
            acc = kAll ? (acc && nonZero) : (acc || nonZero);
        }
    }
    void combine(const LogicalReducer& later) { acc = kAll ? (acc && later.acc) : (acc || later.acc); }
    void end(int64_t o) { out[o] = acc; }
};

// Sum over leading dims of a contiguous tensor (x.sum(0) and friends): whole rows are accumulated at once,
// which streams memory in order instead of walking each output's column with a large stride.
bool sumLeadingDims(const Tensor& input, const std::vector<bool>& mask, const Tensor& out, bool isMean) {
    size_t leading = 0;
    while (leading < mask.size() && mask[leading]) ++leading;
    for (size_t d = leading; d < mask.size(); ++d)
        if (mask[d]) return false;
    if (leading == 0 || leading == mask.size()) return false;
    int64_t rows = 1;
    for (size_t d = 0; d < leading; ++d) rows *= input.sizes()[d];
    const int64_t width = input.numel() / std::max<int64_t>(rows, 1);
    if (width == 0 || rows == 0) return false;
    dispatchDType(input.dtype(), [&]<typename T>() {
        using Acc = SumAcc<T>;
        const T* in = input.dataAs<const T>();
        T* o = out.dataAs<T>();
        // Threads take blocks of columns; each column is summed over the rows in order, as on one thread.
        parallelRanges(width, (kEagerGrain + rows - 1) / rows, [&](int64_t first, int64_t end) {
            std::vector<Acc> acc(static_cast<size_t>(end - first), Acc{});
            for (int64_t r = 0; r < rows; ++r) {
                const T* row = in + r * width + first;
                for (int64_t j = 0; j < end - first; ++j) acc[static_cast<size_t>(j)] += static_cast<Acc>(static_cast<OpMath<T>>(row[j]));
            }
            for (int64_t j = first; j < end; ++j) {
                const Acc total = acc[static_cast<size_t>(j - first)];
                if constexpr (std::is_integral_v<Acc>) o[j] = castValue<T>(total);
                else o[j] = castValue<T>(isMean ? total / static_cast<double>(rows) : total);
            }
        }, 16);
    });
    return true;
}

Tensor sumOrMean(const Tensor& x, const DimList& dims, bool keepdim, std::optional<DType> dtype, bool isMean) {
    if (isComplex(x.dtype()) || (dtype && isComplex(*dtype))) return complexSum(x, dims, keepdim, dtype, isMean);
    DType outType = dtype.value_or(isIntegral(x.dtype(), true) ? DType::Int64 : x.dtype());
    if (isMean && !isFloating(outType))
        fail(ErrorKind::Runtime,
             fmt::format("mean(): could not infer output dtype. {} dtype must be either a floating point or complex "
                         "dtype. Got: {}",
                         dtype ? "Optional" : "Input", dtypeKernelName(outType)));
    // Integral inputs widen to int64 first (the type sums accumulate and return in).
    const Tensor input = to(x, outType);
    const Geometry g = makeGeometry(input, reducedMask(input.dim(), dims), keepdim);
    Tensor out = empty(g.outShape, outType, x.device());
    if (cudaops::onCuda(x)) {
        cudaops::reduce(isMean ? cudagen::RowReduction::Mean : cudagen::RowReduction::Sum, input, reducedMask(input.dim(), dims), out);
        return out;
    }
    if (input.isContiguous() && sumLeadingDims(input, reducedMask(input.dim(), dims), out, isMean)) return out;
    dispatchDType(outType, [&]<typename T>() {
        SumReducer<T, T> reducer{out.dataAs<T>()};
        if (isMean) reducer.divisor = static_cast<double>(g.reducedCount);
        runReduction<T>(input, g, reducer);
    });
    return out;
}

template <bool kMax>
ValuesIndices extremum(const Tensor& x, const DimList& dims, bool keepdim, bool wantIndices, const char* op) {
    const Geometry g = makeGeometry(x, reducedMask(x.dim(), dims), keepdim);
    if (g.reducedCount == 0)
        fail(ErrorKind::Index, fmt::format("{}(): Expected reduction dim {} to have non-zero size.", op,
                                           dims && !dims->empty() ? wrapDim(dims->front(), x.dim()) : 0));
    ValuesIndices result{empty(g.outShape, x.dtype(), x.device()), wantIndices ? empty(g.outShape, DType::Int64, x.device()) : Tensor()};
    if (cudaops::onCuda(x)) {
        cudaops::reduce(kMax ? cudagen::RowReduction::Max : cudagen::RowReduction::Min, x, reducedMask(x.dim(), dims), result.values,
                        result.indices);
        return result;
    }
    dispatchDType(x.dtype(), [&]<typename T>() {
        ExtremumReducer<T, kMax> reducer{result.values.dataAs<T>(), wantIndices ? result.indices.dataAs<int64_t>() : nullptr};
        runReduction<T>(x, g, reducer);
    });
    return result;
}

template <bool kAll>
Tensor logical(const Tensor& x, const DimList& dims, bool keepdim) {
    const Geometry g = makeGeometry(x, reducedMask(x.dim(), dims), keepdim);
    Tensor out = empty(g.outShape, DType::Bool, x.device());
    if (cudaops::onCuda(x)) {
        cudaops::reduce(kAll ? cudagen::RowReduction::All : cudagen::RowReduction::Any, x, reducedMask(x.dim(), dims), out);
        return out;
    }
    dispatchDType(x.dtype(), [&]<typename T>() {
        LogicalReducer<T, kAll> reducer{out.dataAs<bool>()};
        runReduction<T>(x, g, reducer);
    });
    return out;
}

Tensor variance(const Tensor& x, const DimList& dims, double correction, bool keepdim, bool takeSqrt) {
    if (!isFloating(x.dtype()))
        fail(ErrorKind::Runtime, "std and var only support floating point and complex dtypes");
    const Geometry g = makeGeometry(x, reducedMask(x.dim(), dims), keepdim);
    Tensor out = empty(g.outShape, x.dtype(), x.device());
    if (cudaops::onCuda(x)) {
        cudaops::reduce(takeSqrt ? cudagen::RowReduction::Std : cudagen::RowReduction::Var, x, reducedMask(x.dim(), dims), out, Tensor(),
                        correction);
        return out;
    }
    dispatchDType(x.dtype(), [&]<typename T>() {
        if constexpr (!std::is_integral_v<T>) {
            VarianceReducer<T> reducer{out.dataAs<T>(), correction, takeSqrt, {}};
            runReduction<T>(x, g, reducer);
        }
    });
    return out;
}

DimList singleDim(std::optional<int64_t> dim) {
    if (!dim) return std::nullopt;
    return std::vector<int64_t>{*dim};
}

}  // namespace

Tensor sum(const Tensor& x, const DimList& dims, bool keepdim, std::optional<DType> dtype) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.sum", [&] { return RecordedCall{{Value(x), dims ? recordedInts(*dims) : Value(), Value(keepdim)}, {{"dtype", dtype ? Value(*dtype) : Value()}}}; },
            [&] { return sum(x, dims, keepdim, dtype); });
    return sumOrMean(x, dims, keepdim, dtype, false);
}

Tensor mean(const Tensor& x, const DimList& dims, bool keepdim, std::optional<DType> dtype) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.mean", [&] { return RecordedCall{{Value(x), dims ? recordedInts(*dims) : Value(), Value(keepdim)}, {{"dtype", dtype ? Value(*dtype) : Value()}}}; },
            [&] { return mean(x, dims, keepdim, dtype); });
    return sumOrMean(x, dims, keepdim, dtype, true);
}

Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype) {
    const DType outType = dtype.value_or(isIntegral(x.dtype(), true) ? DType::Int64 : x.dtype());
    const Tensor input = to(x, outType);
    const Geometry g = makeGeometry(input, reducedMask(input.dim(), singleDim(dim)), keepdim);
    Tensor out = empty(g.outShape, outType, x.device());
    if (cudaops::onCuda(x)) {
        cudaops::reduce(cudagen::RowReduction::Prod, input, reducedMask(input.dim(), singleDim(dim)), out);
        return out;
    }
    dispatchDType(outType, [&]<typename T>() {
        ProdReducer<T> reducer{out.dataAs<T>()};
        runReduction<T>(input, g, reducer);
    });
    return out;
}

Tensor amax(const Tensor& x, const DimList& dims, bool keepdim) { return extremum<true>(x, dims, keepdim, false, "amax").values; }
Tensor amin(const Tensor& x, const DimList& dims, bool keepdim) { return extremum<false>(x, dims, keepdim, false, "amin").values; }

ValuesIndices maxDim(const Tensor& x, int64_t dim, bool keepdim) {
    return extremum<true>(x, std::vector<int64_t>{dim}, keepdim, true, "max");
}
ValuesIndices minDim(const Tensor& x, int64_t dim, bool keepdim) {
    return extremum<false>(x, std::vector<int64_t>{dim}, keepdim, true, "min");
}

Tensor maxAll(const Tensor& x) {
    if (x.numel() == 0)
        fail(ErrorKind::Runtime, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
    return extremum<true>(x, std::nullopt, false, false, "max").values;
}
Tensor minAll(const Tensor& x) {
    if (x.numel() == 0)
        fail(ErrorKind::Runtime, "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
    return extremum<false>(x, std::nullopt, false, false, "min").values;
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
    if (!dim) return extremum<true>(reshape(x, {-1}), std::vector<int64_t>{0}, false, true, "argmax").indices;
    return extremum<true>(x, std::vector<int64_t>{*dim}, keepdim, true, "argmax").indices;
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
    if (!dim) return extremum<false>(reshape(x, {-1}), std::vector<int64_t>{0}, false, true, "argmin").indices;
    return extremum<false>(x, std::vector<int64_t>{*dim}, keepdim, true, "argmin").indices;
}

Tensor var(const Tensor& x, const DimList& dims, double correction, bool keepdim) {
    return variance(x, dims, correction, keepdim, false);
}
Tensor stdDev(const Tensor& x, const DimList& dims, double correction, bool keepdim) {
    return variance(x, dims, correction, keepdim, true);
}

Tensor all(const Tensor& x, const DimList& dims, bool keepdim) { return logical<true>(x, dims, keepdim); }
Tensor any(const Tensor& x, const DimList& dims, bool keepdim) { return logical<false>(x, dims, keepdim); }

Tensor logsumexp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
    const Tensor input = isFloating(x.dtype()) ? x : to(x, kDefaultFloat);
    const Tensor maxima = amax(input, dims, true);
    // An infinite maximum would turn x - max into NaN; shifting by zero there keeps the exact result.
    const Tensor shift = where(unary(UnaryOp::IsInf, maxima), Scalar(int64_t{0}), maxima);
    Tensor result = add(unary(UnaryOp::Log, sum(unary(UnaryOp::Exp, sub(input, shift)), dims, true)), shift);
    if (keepdim) return result;
    return reshape(result, sum(input, dims, false).sizes());
}

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
    if (cudaops::onCuda(x)) return hostroute::backTo(x.device(), cumsum(hostroute::toHost(x), dim, dtype));
    const DType outType = dtype.value_or(isIntegral(x.dtype(), true) ? DType::Int64 : x.dtype());
    const Tensor input = to(x, outType);
    Tensor out = empty(x.sizes(), outType);
    if (x.dim() == 0) return copyInto(out, input);
    const int64_t d = wrapDim(dim, x.dim());
    const int64_t n = x.sizes()[static_cast<size_t>(d)];
    const int64_t inStride = input.strides()[static_cast<size_t>(d)];
    const int64_t outStride = out.strides()[static_cast<size_t>(d)];
    dispatchDType(outType, [&]<typename T>() {
        const T* in = input.dataAs<const T>();
        T* o = out.dataAs<T>();
        forEachLineParallel(x.sizes(), input.strides(), out.strides(), d, [&] {
            return [&](int64_t inOffset, int64_t outOffset) {
                SumAcc<T> running{};
                for (int64_t i = 0; i < n; ++i) {
                    running += static_cast<SumAcc<T>>(static_cast<OpMath<T>>(in[inOffset + i * inStride]));
                    o[outOffset + i * outStride] = castValue<T>(running);
                }
            };
        });
    });
    return out;
}

Tensor vectorNorm(const Tensor& x, double ord, const DimList& dims, bool keepdim) {
    if (!isFloating(x.dtype()))
        fail(ErrorKind::Runtime, fmt::format("linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                                             dtypeKernelName(x.dtype())));
    const Tensor magnitude = unary(UnaryOp::Abs, x);
    if (std::isinf(ord)) return ord > 0 ? amax(magnitude, dims, keepdim) : amin(magnitude, dims, keepdim);
    if (ord == 0) return sum(to(ne(x, Scalar(int64_t{0})), x.dtype()), dims, keepdim);
    if (ord == 1) return sum(magnitude, dims, keepdim);
    if (ord == 2) return unary(UnaryOp::Sqrt, sum(mul(magnitude, magnitude), dims, keepdim));
    return pow(sum(pow(magnitude, Scalar(ord)), dims, keepdim), Scalar(1.0 / ord));
}

}  // namespace eng::tensor
