// Indexing. Basic indices become a view (select/slice/unsqueeze); tensor indices become a tensor of storage
// positions, from which one typed loop gathers (getitem) or scatters (setitem).
#include "tensor/indexing.h"

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/iteration.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"
#include "tensor/cuda_indexing.h"
#include "tensor/cuda_kernels.h"
#include "tensor/host_route.h"

namespace eng::tensor {

void failIndexOutOfBounds(ErrorKind kind, int64_t value, int64_t dim, int64_t size) {
    fail(kind, fmt::format("index {} is out of bounds for dimension {} with size {}", value, dim, size));
}

namespace {

// The start of x's storage (the positions count from there), through Tensor::data(): a deferred result is filled
// first (tensor/deferred_fill.h).
void* storageBase(const Tensor& x) { return static_cast<char*>(x.data()) - x.storageOffset() * static_cast<int64_t>(x.itemBytes()); }

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

// Where x[indices] takes its elements from: the index tensors (int64 on x's device, negatives wrapped, checked
// against their dims) and the result's dims, either [before..., index..., after...] (indexed dims adjacent) or
// [index..., rest...].
struct IndexLayout {
    std::vector<size_t> indexed;  // x's dims that have an index tensor
    std::vector<Tensor> wrapped;  // their indices
    Shape indexShape;             // the indices broadcast together
    size_t insertAt = 0;          // where the index dims sit in the result
    Shape outShape;
    std::vector<std::pair<size_t, size_t>> restPlacement;  // (dim of x, dim of result) of the dims not indexed
};

// The index values as int64 on `device`, negatives wrapped; `kind` of error (IndexError for x[idx], RuntimeError for
// gather) for a value outside [-size, size) ([0, size) without negativesWrap: gather's rule, PyTorch raises for a
// negative index there instead of counting from the end). On the host the first such value is named. On a CUDA device the values
// stay as they are, unchecked: the kernel that makes the position table from them (cudaops::indexTablePart) checks and
// wraps them on the device, so nothing waits for it; with CWB_HOST_CHECKS=1 they are checked here as before, the
// smallest or largest named (one read of both back, a synchronisation).
Tensor wrappedIndex(const Tensor& index, int64_t size, size_t dim, Device device, ErrorKind kind = ErrorKind::Index, bool negativesWrap = true) {
    const int64_t lowest = negativesWrap ? -size : 0;
    auto outOfBounds = [&](int64_t v) { failIndexOutOfBounds(kind, v, static_cast<int64_t>(dim), size); };
    if (device.isCpu()) {
        std::vector<int64_t> values = toInts(index);
        for (int64_t& v : values) {
            if (v < lowest || v >= size) outOfBounds(v);
            if (v < 0) v += size;
        }
        return fromInts(values, index.sizes());
    }
    const Tensor onDevice = to(index, DType::Int64, device);
    if (onDevice.numel() == 0 || !cudaops::synchronisingHostChecks()) return onDevice;
    for (int64_t v : toInts(stack({minAll(onDevice), maxAll(onDevice)})))
        if (v < lowest || v >= size) outOfBounds(v);
    return where(lt(onDevice, int64_t{0}), add(onDevice, size), onDevice);
}

IndexLayout layoutFor(const Tensor& x, const std::vector<Tensor>& indices) {
    IndexLayout l;
    for (size_t d = 0; d < indices.size(); ++d) {
        if (!indices[d].defined()) continue;
        l.indexed.push_back(d);
        l.wrapped.push_back(wrappedIndex(indices[d], x.sizes()[d], d, x.device()));
    }
    l.indexShape = broadcastAll(l.wrapped);
    bool adjacent = true;
    for (size_t i = 1; i < l.indexed.size(); ++i) adjacent = adjacent && l.indexed[i] == l.indexed[i - 1] + 1;
    l.insertAt = adjacent ? l.indexed.front() : 0;
    for (size_t d = 0; d < static_cast<size_t>(x.dim()); ++d) {
        if (d < indices.size() && indices[d].defined()) continue;
        if (l.outShape.size() == l.insertAt) l.outShape.insert(l.outShape.end(), l.indexShape.begin(), l.indexShape.end());
        l.restPlacement.emplace_back(d, l.outShape.size());
        l.outShape.push_back(x.sizes()[d]);
    }
    if (l.outShape.size() == l.insertAt) l.outShape.insert(l.outShape.end(), l.indexShape.begin(), l.indexShape.end());
    return l;
}

// Storage positions (int64, contiguous, on the host) of every element of x[indices], in the result's shape.
Tensor positionsFor(const Tensor& x, const IndexLayout& l) {
    const size_t outRank = l.outShape.size(), indexRank = l.indexShape.size();
    // positions = offset + sum_k index_k * stride_k (placed at the index dims) + sum_r arange * stride_r.
    Tensor positions = full(l.outShape, Scalar(x.storageOffset()), TensorOptions{DType::Int64});
    for (size_t k = 0; k < l.wrapped.size(); ++k) {
        Shape placed(outRank, 1);
        const Tensor b = expandTo(l.wrapped[k], l.indexShape);
        for (size_t i = 0; i < indexRank; ++i) placed[l.insertAt + i] = l.indexShape[i];
        addInPlace(positions, reshape(mul(contiguous(b), Scalar(x.strides()[l.indexed[k]])), placed));
    }
    for (auto [xDim, outDim] : l.restPlacement) {
        Shape placed(outRank, 1);
        placed[outDim] = x.sizes()[xDim];
        addInPlace(positions, reshape(mul(arange(Scalar(x.sizes()[xDim])), Scalar(x.strides()[xDim])), placed));
    }
    return positions;
}

// The same positions for the CUDA kernels: the indexed part as a table over the index shape (on the device), the
// rest as x's strides of the dims not indexed (cuda_kernels.h's IndexedAccess). One kernel per index tensor makes
// the table, checking its bounds on the device.
cudaops::IndexedAccess accessFor(const Tensor& x, const IndexLayout& l) {
    cudaops::IndexedAccess access;
    access.sizes = l.outShape;
    access.dataStrides.assign(l.outShape.size(), 0);
    access.tableStrides.assign(l.outShape.size(), 0);
    Tensor table;
    if (cudaops::synchronisingHostChecks()) {
        // (checked and wrapped on the host already: wrappedIndex)
        table = zeros(l.indexShape, TensorOptions{DType::Int64, x.device(), false});
        for (size_t k = 0; k < l.wrapped.size(); ++k) addInPlace(table, mul(l.wrapped[k], Scalar(x.strides()[l.indexed[k]])));
    } else {
        table = empty(l.indexShape, DType::Int64, x.device());
        for (size_t k = 0; k < l.wrapped.size(); ++k) {
            const size_t d = l.indexed[k];
            cudaops::indexTablePart(table, contiguous(expandTo(l.wrapped[k], l.indexShape)), x.sizes()[d], x.strides()[d],
                                    static_cast<int64_t>(d), cudaops::IndexCheck::Index, k > 0);
        }
    }
    const Shape tableStrides = contiguousStrides(l.indexShape);
    for (size_t i = 0; i < l.indexShape.size(); ++i) access.tableStrides[l.insertAt + i] = tableStrides[i];
    for (auto [xDim, outDim] : l.restPlacement) access.dataStrides[outDim] = x.strides()[xDim];
    access.table = table;
    return access;
}

}  // namespace

Tensor advancedIndex(const Tensor& x, const std::vector<Tensor>& indices) {
    const IndexLayout layout = layoutFor(x, indices);
    if (cudaops::onCuda(x)) {
        const cudaops::IndexedAccess access = accessFor(x, layout);
        Tensor out = empty(access.sizes, x.dtype(), x.device());
        cudaops::gatherIndexed(out, x, access);
        return out;
    }
    const Tensor positions = positionsFor(x, layout);
    Tensor out = empty(positions.sizes(), x.dtype());
    dispatchDType(x.dtype(), [&]<typename T>() {
        const T* base = static_cast<const T*>(storageBase(x));
        const int64_t* pos = positions.dataAs<const int64_t>();
        T* o = out.dataAs<T>();
        for (int64_t i = 0; i < out.numel(); ++i) o[i] = base[pos[i]];
    });
    return out;
}

void indexPut(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
    const IndexLayout layout = layoutFor(x, indices);
    Tensor source = values;
    while (source.dim() > static_cast<int64_t>(layout.outShape.size()) && source.sizes()[0] == 1) source = squeeze(source, std::vector<int64_t>{0});
    if (broadcastShapes(source.sizes(), layout.outShape) != layout.outShape)
        fail(ErrorKind::Runtime, fmt::format("shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of "
                                             "shape {}",
                                             shapeStr(values.sizes()), shapeStr(layout.outShape)));
    if (cudaops::onCuda(x)) {
        // Broadcast dims keep stride 0: the kernel reads each value where the expanded tensor would.
        const Tensor converted = to(source, x.dtype(), x.device());
        return cudaops::scatterIndexed(x, expandTo(converted, layout.outShape), accessFor(x, layout), accumulate);
    }
    const Tensor positions = positionsFor(x, layout);
    const Tensor dense = contiguous(to(expandTo(source, positions.sizes()), x.dtype()));
    dispatchDType(x.dtype(), [&]<typename T>() {
        T* base = static_cast<T*>(storageBase(x));
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
    if (index.dtype() != DType::Int64) fail(ErrorKind::Runtime, "gather(): Expected dtype int64 for index");
    const int64_t d = wrapDim(dim, x.dim());
    if (index.dim() != x.dim())
        fail(ErrorKind::Runtime, "Index tensor must have the same number of dimensions as input tensor");
    for (int64_t k = 0; k < x.dim(); ++k)
        if (k != d && index.size(k) > x.size(k))
            fail(ErrorKind::Runtime, fmt::format("Size does not match at dimension {} expected index {} to be no larger than self {} apart from "
                                                 "dimension {}",
                                                 k, shapeStr(index.sizes()), shapeStr(x.sizes()), d));
    if (cudaops::onCuda(x)) {
        // The gathered dim's position comes from the table (index * stride), the others from x's strides.
        cudaops::IndexedAccess access;
        access.sizes = index.sizes();
        access.dataStrides = x.strides();
        access.dataStrides[static_cast<size_t>(d)] = 0;
        const Tensor wrapped = wrappedIndex(index, x.size(d), static_cast<size_t>(d), x.device(), ErrorKind::Runtime, false);
        if (cudaops::synchronisingHostChecks()) {
            access.table = contiguous(mul(wrapped, Scalar(x.strides()[static_cast<size_t>(d)])));
        } else {
            access.table = empty(index.sizes(), DType::Int64, x.device());
            cudaops::indexTablePart(access.table, contiguous(wrapped), x.size(d), x.strides()[static_cast<size_t>(d)], d, cudaops::IndexCheck::Gather,
                                    false);
        }
        access.tableStrides = contiguousStrides(index.sizes());
        Tensor out = empty(index.sizes(), x.dtype(), x.device());
        cudaops::gatherIndexed(out, x, access);
        return out;
    }
    const std::vector<int64_t> idx = toInts(index);
    Tensor out = empty(index.sizes(), x.dtype());
    const Shape strides = contiguousStrides(index.sizes());
    dispatchDType(x.dtype(), [&]<typename T>() {
        const T* base = static_cast<const T*>(storageBase(x));
        T* o = out.dataAs<T>();
        for (int64_t i = 0; i < out.numel(); ++i) {
            int64_t offset = x.storageOffset(), remaining = i;
            for (size_t k = 0; k < strides.size(); ++k) {
                const int64_t coordinate = remaining / strides[k];
                remaining %= strides[k];
                if (static_cast<int64_t>(k) == d) {
                    const int64_t v = idx[static_cast<size_t>(i)];
                    if (v < 0 || v >= x.sizes()[k])  // (no wrap: PyTorch's gather raises for negatives)
                        failIndexOutOfBounds(ErrorKind::Runtime, v, d, x.sizes()[k]);
                    offset += v * x.strides()[k];
                } else {
                    offset += coordinate * x.strides()[k];
                }
            }
            o[i] = base[offset];
        }
    });
    return out;
}

Tensor embeddingRowsOnCuda(const Tensor& weight, const Tensor& indices) {
    const Tensor flat = contiguous(to(reshape(indices, {-1}), DType::Int64, weight.device()));
    cudaops::IndexedAccess access;
    access.sizes = {flat.numel(), weight.size(1)};
    access.dataStrides = {0, weight.strides()[1]};
    access.tableStrides = {1, 0};
    access.table = empty(flat.sizes(), DType::Int64, weight.device());
    cudaops::indexTablePart(access.table, flat, weight.size(0), weight.strides()[0], 0, cudaops::IndexCheck::Embedding, false);
    Tensor out = empty(access.sizes, weight.dtype(), weight.device());
    cudaops::gatherIndexed(out, weight, access);
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
