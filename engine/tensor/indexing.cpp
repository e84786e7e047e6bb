// Indexing. Basic indices become a view (select/slice/unsqueeze); tensor indices become a tensor of storage
// positions, from which one typed loop gathers (getitem) or scatters (setitem).
#include "tensor/indexing.h"

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/iteration.h"
#include "tensor/shape.h"
#include "tensor/cuda_kernels.h"
#include "tensor/host_route.h"

namespace eng::tensor {

namespace {

// The view after basic indexing, plus the tensor index (if any) for each of the view's dims.
struct BasicResult {
    Tensor view;
    std::vector<Tensor> tensorIndices;
    bool hasTensorIndex = false;
};

int64_t consumedDims(const TensorIndex& index) {
    switch (index.kind) {
        case TensorIndex::Kind::Integer:
        case TensorIndex::Kind::Slice: return 1;
        case TensorIndex::Kind::Tensor:
            return index.tensor.dtype() == DType::Bool || index.tensor.dtype() == DType::UInt8 ? index.tensor.dim() : 1;
        default: return 0;
    }
}

BasicResult applyBasic(const Tensor& x, const std::vector<TensorIndex>& indices) {
    int64_t consumed = 0;
    int ellipses = 0;
    for (const TensorIndex& index : indices) {
        consumed += consumedDims(index);
        ellipses += index.kind == TensorIndex::Kind::Ellipsis;
    }
    if (ellipses > 1) fail(ErrorKind::Index, "an index can only have a single ellipsis ('...')");
    if (consumed > x.dim()) fail(ErrorKind::Index, fmt::format("too many indices for tensor of dimension {}", x.dim()));
    BasicResult r{x, {}, false};
    int64_t dim = 0;
    auto placeTensor = [&](int64_t at, Tensor t) {
        if (static_cast<int64_t>(r.tensorIndices.size()) <= at) r.tensorIndices.resize(static_cast<size_t>(at) + 1);
        r.tensorIndices[static_cast<size_t>(at)] = std::move(t);
        r.hasTensorIndex = true;
    };
    for (const TensorIndex& index : indices) {
        switch (index.kind) {
            case TensorIndex::Kind::Integer: r.view = select(r.view, dim, index.integer); break;
            case TensorIndex::Kind::Slice:
                r.view = slice(r.view, dim, index.start, index.stop, index.step.value_or(1));
                ++dim;
                break;
            case TensorIndex::Kind::None:
                r.view = unsqueeze(r.view, dim);
                ++dim;
                break;
            case TensorIndex::Kind::Ellipsis: dim += x.dim() - consumed; break;
            case TensorIndex::Kind::Boolean:
                // A Python bool indexes a new size-1 dim with [0] or [] (so x[True] is a copy, as in PyTorch).
                r.view = unsqueeze(r.view, dim);
                placeTensor(dim, index.boolean ? zeros({1}, TensorOptions{DType::Int64}) : empty({0}, DType::Int64));
                ++dim;
                break;
            case TensorIndex::Kind::Tensor: {
                const Tensor& t = index.tensor;
                if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
                    for (int64_t k = 0; k < t.dim(); ++k)
                        if (t.sizes()[static_cast<size_t>(k)] != r.view.sizes()[static_cast<size_t>(dim + k)])
                            fail(ErrorKind::Index, fmt::format("The shape of the mask {} at index {} does not match the shape of "
                                                               "the indexed tensor {} at index {}",
                                                               shapeStr(t.sizes()), k, shapeStr(r.view.sizes()), dim + k));
                    if (t.dim() == 0) {
                        // A 0-dim mask acts like a Python bool.
                        r.view = unsqueeze(r.view, dim);
                        if (!item(t).toBool()) placeTensor(dim, empty({0}, DType::Int64));
                        ++dim;
                        break;
                    }
                    const Tensor coordinates = nonzero(t);
                    for (int64_t k = 0; k < t.dim(); ++k) placeTensor(dim + k, select(coordinates, 1, k));
                    dim += t.dim();
                } else if (isIntegral(t.dtype(), false)) {
                    placeTensor(dim, t);
                    ++dim;
                } else {
                    fail(ErrorKind::Index, "tensors used as indices must be long, int, byte or bool tensors");
                }
                break;
            }
        }
    }
    if (r.hasTensorIndex) r.tensorIndices.resize(static_cast<size_t>(r.view.dim()));
    return r;
}

// Storage positions (int64, contiguous) of every element of x[indices], and the result's shape.
Tensor positionsFor(const Tensor& x, const std::vector<Tensor>& indices) {
    std::vector<size_t> indexed;
    std::vector<Tensor> wrapped;
    for (size_t d = 0; d < indices.size(); ++d) {
        if (!indices[d].defined()) continue;
        indexed.push_back(d);
        // Bounds-check and wrap negatives once, into an int64 copy.
        std::vector<int64_t> values = toInts(indices[d]);
        const int64_t size = x.sizes()[d];
        for (int64_t& v : values) {
            if (v < -size || v >= size)
                fail(ErrorKind::Index, fmt::format("index {} is out of bounds for dimension {} with size {}", v, d, size));
            if (v < 0) v += size;
        }
        wrapped.push_back(fromInts(values, indices[d].sizes()));
    }
    const Shape indexShape = broadcastAll(wrapped);
    bool adjacent = true;
    for (size_t i = 1; i < indexed.size(); ++i) adjacent = adjacent && indexed[i] == indexed[i - 1] + 1;
    // Result dims: either [before..., index..., after...] (adjacent) or [index..., rest...].
    const size_t indexRank = indexShape.size();
    const size_t insertAt = adjacent ? indexed.front() : 0;
    Shape outShape;
    std::vector<std::pair<size_t, size_t>> restPlacement;  // (dim of x, dim of result)
    for (size_t d = 0; d < static_cast<size_t>(x.dim()); ++d) {
        if (d < indices.size() && indices[d].defined()) continue;
        if (outShape.size() == insertAt) outShape.insert(outShape.end(), indexShape.begin(), indexShape.end());
        restPlacement.emplace_back(d, outShape.size());
        outShape.push_back(x.sizes()[d]);
    }
    if (outShape.size() == insertAt) outShape.insert(outShape.end(), indexShape.begin(), indexShape.end());
    const size_t outRank = outShape.size();
    // positions = offset + sum_k index_k * stride_k (placed at the index dims) + sum_r arange * stride_r.
    Tensor positions = full(outShape, Scalar(x.storageOffset()), TensorOptions{DType::Int64});
    for (size_t k = 0; k < wrapped.size(); ++k) {
        Shape placed(outRank, 1);
        const Tensor b = expandTo(wrapped[k], indexShape);
        for (size_t i = 0; i < indexRank; ++i) placed[insertAt + i] = indexShape[i];
        addInPlace(positions, reshape(mul(contiguous(b), Scalar(x.strides()[indexed[k]])), placed));
    }
    for (auto [xDim, outDim] : restPlacement) {
        Shape placed(outRank, 1);
        placed[outDim] = x.sizes()[xDim];
        addInPlace(positions, reshape(mul(arange(Scalar(x.sizes()[xDim])), Scalar(x.strides()[xDim])), placed));
    }
    return positions;
}

}  // namespace

Tensor advancedIndex(const Tensor& x, const std::vector<Tensor>& indices) {
    if (cudaops::onCuda(x))
        return hostroute::backTo(x.device(), advancedIndex(hostroute::toHost(x), hostroute::toHost(indices)));
    const Tensor positions = positionsFor(x, indices);
    Tensor out = empty(positions.sizes(), x.dtype());
    dispatchDType(x.dtype(), [&]<typename T>() {
        const T* base = static_cast<const T*>(x.storage()->data());
        const int64_t* pos = positions.dataAs<const int64_t>();
        T* o = out.dataAs<T>();
        for (int64_t i = 0; i < out.numel(); ++i) o[i] = base[pos[i]];
    });
    return out;
}

void indexPut(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
    if (cudaops::onCuda(x)) {
        const Tensor host = hostroute::toHost(x);
        indexPut(host, hostroute::toHost(indices), hostroute::toHost(values), accumulate);
        return hostroute::writeBack(x, host);
    }
    const Tensor positions = positionsFor(x, indices);
    Tensor source = values;
    while (source.dim() > positions.dim() && source.sizes()[0] == 1) source = squeeze(source, std::vector<int64_t>{0});
    if (broadcastShapes(source.sizes(), positions.sizes()) != positions.sizes())
        fail(ErrorKind::Runtime, fmt::format("shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of "
                                             "shape {}",
                                             shapeStr(values.sizes()), shapeStr(positions.sizes())));
    const Tensor dense = contiguous(to(expandTo(source, positions.sizes()), x.dtype()));
    dispatchDType(x.dtype(), [&]<typename T>() {
        T* base = static_cast<T*>(x.storage()->data());
        const int64_t* pos = positions.dataAs<const int64_t>();
        const T* v = dense.dataAs<const T>();
        for (int64_t i = 0; i < dense.numel(); ++i) {
            if (accumulate) base[pos[i]] = castValue<T>(static_cast<OpMath<T>>(base[pos[i]]) + static_cast<OpMath<T>>(v[i]));
            else base[pos[i]] = v[i];
        }
    });
}

Tensor getItem(const Tensor& x, const std::vector<TensorIndex>& indices) {
    BasicResult r = applyBasic(x, indices);
    if (!r.hasTensorIndex) return r.view.isSameTensor(x) ? x.asStrided(x.sizes(), x.strides(), x.storageOffset()) : r.view;
    return advancedIndex(r.view, r.tensorIndices);
}

void setItem(const Tensor& x, const std::vector<TensorIndex>& indices, const Operand& value) {
    BasicResult r = applyBasic(x, indices);
    if (r.hasTensorIndex) {
        const Tensor values = value.isTensor() ? value.tensor() : scalarTensor(value.scalar(), x.dtype());
        indexPut(r.view, r.tensorIndices, values);
        return;
    }
    if (!value.isTensor()) {
        fillInPlace(r.view, value);
        return;
    }
    // Leading size-1 dims of the value are dropped first, as PyTorch's setitem does.
    Tensor source = value.tensor();
    while (source.dim() > r.view.dim() && source.sizes()[0] == 1) source = squeeze(source, std::vector<int64_t>{0});
    copyInto(r.view, source);
}

Tensor indexSelect(const Tensor& x, int64_t dim, const Tensor& index) {
    if (index.dim() > 1) fail(ErrorKind::Index, "index_select(): Index is supposed to be a vector");
    if (!isIntegral(index.dtype(), false))
        fail(ErrorKind::Runtime, "index_select(): Expected dtype int32 or int64 for index");
    const int64_t d = wrapDim(dim, x.dim());
    if (x.dim() == 0) return advancedIndex(reshape(x, {1}), {reshape(index, {-1})});
    std::vector<Tensor> indices(static_cast<size_t>(d) + 1);
    indices[static_cast<size_t>(d)] = reshape(index, {-1});
    return advancedIndex(x, indices);
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
    if (cudaops::onCuda(x)) return hostroute::backTo(x.device(), gather(hostroute::toHost(x), dim, hostroute::toHost(index)));
    if (index.dtype() != DType::Int64) fail(ErrorKind::Runtime, "gather(): Expected dtype int64 for index");
    const int64_t d = wrapDim(dim, x.dim());
    if (index.dim() != x.dim())
        fail(ErrorKind::Runtime, "Index tensor must have the same number of dimensions as input tensor");
    const std::vector<int64_t> idx = toInts(index);
    Tensor out = empty(index.sizes(), x.dtype());
    const Shape strides = contiguousStrides(index.sizes());
    dispatchDType(x.dtype(), [&]<typename T>() {
        const T* base = static_cast<const T*>(x.storage()->data());
        T* o = out.dataAs<T>();
        for (int64_t i = 0; i < out.numel(); ++i) {
            int64_t offset = x.storageOffset(), remaining = i;
            for (size_t k = 0; k < strides.size(); ++k) {
                const int64_t coordinate = remaining / strides[k];
                remaining %= strides[k];
                if (static_cast<int64_t>(k) == d) {
                    const int64_t v = idx[static_cast<size_t>(i)];
                    if (v < -x.sizes()[k] || v >= x.sizes()[k])
                        fail(ErrorKind::Runtime, fmt::format("index {} is out of bounds for dimension {} with size {}", v, d, x.sizes()[k]));
                    offset += (v < 0 ? v + x.sizes()[k] : v) * x.strides()[k];
                } else {
                    offset += coordinate * x.strides()[k];
                }
            }
            o[i] = base[offset];
        }
    });
    return out;
}

Tensor nonzero(const Tensor& x) {
    if (cudaops::onCuda(x)) return hostroute::backTo(x.device(), nonzero(hostroute::toHost(x)));
    const Tensor c = contiguous(x);
    std::vector<int64_t> coordinates;
    const Shape strides = contiguousStrides(x.sizes());
    int64_t count = 0;
    dispatchDType(x.dtype(), [&]<typename T>() {
        const T* data = c.dataAs<const T>();
        for (int64_t i = 0; i < c.numel(); ++i) {
            if (static_cast<double>(static_cast<OpMath<T>>(data[i])) == 0.0) continue;
            ++count;
            int64_t remaining = i;
            for (int64_t s : strides) {
                coordinates.push_back(remaining / s);
                remaining %= s;
            }
        }
    });
    return fromInts(coordinates, {count, x.dim()});
}

Tensor maskedSelect(const Tensor& x, const Tensor& mask) {
    if (mask.dtype() != DType::Bool)
        fail(ErrorKind::Runtime, fmt::format("masked_select: expected BoolTensor for mask"));
    const Shape shape = broadcastShapes(x.sizes(), mask.sizes());
    return getItem(expandTo(x, shape), {TensorIndex::fromTensor(expandTo(mask, shape))});
}

}  // namespace eng::tensor
