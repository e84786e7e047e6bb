// View and shape ops. Views share storage and only rewrite (sizes, strides, offset); joins and reshapes that
// cannot be views copy through copyInto.
#include "tensor/shape.h"

#include <algorithm>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/iteration.h"
#include "tensor/pointwise.h"
#include "tensor/cuda_kernels.h"
#include "tensor/host_route.h"
#include "tensor/indexing.h"
#include "tensor/op_recorder.h"

namespace eng::tensor {

namespace {

std::string typeTag(const Tensor& x) { return fmt::format("torch.{}Tensor", dtypeKernelName(x.dtype())); }

}  // namespace

Shape inferShape(const Shape& shape, int64_t numel) {
    Shape out = shape;
    int64_t known = 1;
    std::optional<size_t> inferred;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            if (inferred) fail(ErrorKind::Runtime, "only one dimension can be inferred");
            inferred = i;
        } else if (shape[i] < 0) {
            fail(ErrorKind::Runtime, fmt::format("invalid shape dimension {}", shape[i]));
        } else {
            known *= shape[i];
        }
    }
    const bool valid = inferred ? (known != 0 && numel % known == 0) : known == numel;
    if (!valid) fail(ErrorKind::Runtime, fmt::format("shape '{}' is invalid for input of size {}", shapeStr(shape), numel));
    if (inferred) out[*inferred] = numel / known;
    return out;
}

std::optional<Shape> viewStrides(const Shape& sizes, const Shape& strides, const Shape& newShape) {
    if (sizes.empty()) return Shape(newShape.size(), 1);
    const int64_t numel = shapeNumel(sizes);
    if (numel == 0) return sizes == newShape ? strides : contiguousStrides(newShape);
    // Walk both shapes from the innermost dim, matching runs of old dims that are contiguous with each other
    // ("chunks") against runs of new dims with the same element count.
    Shape newStrides(newShape.size());
    int64_t viewDim = static_cast<int64_t>(newShape.size()) - 1;
    int64_t chunkBaseStride = strides.back();
    int64_t tensorNumel = 1, viewNumel = 1;
    for (int64_t tensorDim = static_cast<int64_t>(sizes.size()) - 1; tensorDim >= 0; --tensorDim) {
        const auto td = static_cast<size_t>(tensorDim);
        tensorNumel *= sizes[td];
        const bool chunkEnds = tensorDim == 0 || (sizes[td - 1] != 1 && strides[td - 1] != tensorNumel * chunkBaseStride);
        if (!chunkEnds) continue;
        while (viewDim >= 0 && (viewNumel < tensorNumel || newShape[static_cast<size_t>(viewDim)] == 1)) {
            newStrides[static_cast<size_t>(viewDim)] = viewNumel * chunkBaseStride;
            viewNumel *= newShape[static_cast<size_t>(viewDim)];
            --viewDim;
        }
        if (viewNumel != tensorNumel) return std::nullopt;
        if (tensorDim > 0) {
            chunkBaseStride = strides[td - 1];
            tensorNumel = 1;
            viewNumel = 1;
        }
    }
    if (viewDim != -1) return std::nullopt;
    return newStrides;
}

Tensor view(const Tensor& x, const Shape& shape) {
    const Shape target = inferShape(shape, x.numel());
    std::optional<Shape> strides = viewStrides(x.sizes(), x.strides(), target);
    if (!strides)
        fail(ErrorKind::Runtime,
             "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
             "contiguous subspaces). Use .reshape(...) instead.");
    return x.asStrided(target, std::move(*strides), x.storageOffset());
}

Tensor viewDtype(const Tensor& x, DType dtype) {
    if (dtype == x.dtype()) return x;
    const int64_t mine = static_cast<int64_t>(itemSize(x.dtype()));
    const int64_t theirs = static_cast<int64_t>(itemSize(dtype));
    const std::string what = fmt::format("to view {} as {} (different element sizes)", dtypeKernelName(x.dtype()), dtypeKernelName(dtype));
    Shape sizes = x.sizes();
    Shape strides = x.strides();
    int64_t offset = x.storageOffset();
    if (mine != theirs) {
        if (x.dim() == 0) fail(ErrorKind::Runtime, fmt::format("self.dim() cannot be 0 {}", what));
        if (strides.back() != 1) fail(ErrorKind::Runtime, fmt::format("self.stride(-1) must be 1 {}, but got {}", what, strides.back()));
        if (mine > theirs) {
            const int64_t ratio = mine / theirs;
            for (size_t d = 0; d + 1 < strides.size(); ++d) strides[d] *= ratio;
            sizes.back() *= ratio;
            offset *= ratio;
        } else {
            const int64_t ratio = theirs / mine;
            if (sizes.back() % ratio != 0)
                fail(ErrorKind::Runtime, fmt::format("self.size(-1) must be divisible by {} {}, but got {}", ratio, what, sizes.back()));
            if (offset % ratio != 0)
                fail(ErrorKind::Runtime, fmt::format("self.storage_offset() must be divisible by {} {}, but got {}", ratio, what, offset));
            for (size_t d = 0; d + 1 < strides.size(); ++d) {
                if (strides[d] % ratio != 0)
                    fail(ErrorKind::Runtime, fmt::format("self.stride({}) must be divisible by {} {}, but got {}", d, ratio, what, strides[d]));
                strides[d] /= ratio;
            }
            sizes.back() /= ratio;
            offset /= ratio;
        }
    }
    // The same bytes read as the new dtype: a view of the storage (sharing its version counter) with its own type.
    Tensor out = x.asStrided(std::move(sizes), std::move(strides), offset);
    out.impl()->dtype = dtype;
    return out;
}

Tensor reshape(const Tensor& x, const Shape& shape) {
    if (structuralOpsRecorded())
        return recordedOp(
            "Tensor.reshape", [&] { return RecordedCall{{Value(x), recordedInts(shape)}, {}}; }, [&] { return reshape(x, shape); });
    const Shape target = inferShape(shape, x.numel());
    if (std::optional<Shape> strides = viewStrides(x.sizes(), x.strides(), target))
        return x.asStrided(target, std::move(*strides), x.storageOffset());
    Tensor copy = empty(x.sizes(), x.dtype(), x.device());
    copyInto(copy, x);
    return copy.asStrided(target, contiguousStrides(target), 0);
}

Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
    if (structuralOpsRecorded())
        return recordedOp(
            "Tensor.permute", [&] { return RecordedCall{{Value(x), recordedInts(dims)}, {}}; }, [&] { return permute(x, dims); });
    const int64_t ndim = x.dim();
    if (static_cast<int64_t>(dims.size()) != ndim)
        fail(ErrorKind::Runtime,
             fmt::format("permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
                         "desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                         ndim, dims.size()));
    Shape sizes(dims.size()), strides(dims.size());
    std::vector<bool> seen(dims.size(), false);
    for (size_t i = 0; i < dims.size(); ++i) {
        const auto d = static_cast<size_t>(wrapDim(dims[i], ndim));
        if (seen[d]) fail(ErrorKind::Runtime, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = x.sizes()[d];
        strides[i] = x.strides()[d];
    }
    return x.asStrided(std::move(sizes), std::move(strides), x.storageOffset());
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
    if (structuralOpsRecorded())
        return recordedOp(
            "Tensor.transpose", [&] { return RecordedCall{{Value(x), Value(dim0), Value(dim1)}, {}}; }, [&] { return transpose(x, dim0, dim1); });
    const int64_t ndim = x.dim();
    const auto a = static_cast<size_t>(wrapDim(dim0, ndim));
    const auto b = static_cast<size_t>(wrapDim(dim1, ndim));
    if (ndim == 0) return x.asStrided({}, {}, x.storageOffset());
    Shape sizes = x.sizes(), strides = x.strides();
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
    return x.asStrided(std::move(sizes), std::move(strides), x.storageOffset());
}

Tensor t(const Tensor& x) {
    if (structuralOpsRecorded())
        return recordedOp(
            "Tensor.t", [&] { return RecordedCall{{Value(x)}, {}}; }, [&] { return t(x); });
    if (x.dim() > 2)
        fail(ErrorKind::Runtime, fmt::format("t() expects a tensor with <= 2 dimensions, but self is {}D", x.dim()));
    return x.dim() < 2 ? x.asStrided(x.sizes(), x.strides(), x.storageOffset()) : transpose(x, 0, 1);
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
    if (structuralOpsRecorded())
        return recordedOp(
            "Tensor.unsqueeze", [&] { return RecordedCall{{Value(x), Value(dim)}, {}}; }, [&] { return unsqueeze(x, dim); });
    const auto d = static_cast<size_t>(wrapDim(dim, x.dim() + 1));
    Shape sizes = x.sizes(), strides = x.strides();
    const int64_t stride = d >= sizes.size() ? 1 : sizes[d] * strides[d];
    sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(d), 1);
    strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d), stride);
    return x.asStrided(std::move(sizes), std::move(strides), x.storageOffset());
}

Tensor squeeze(const Tensor& x, const std::optional<std::vector<int64_t>>& dims) {
    std::vector<bool> drop(static_cast<size_t>(x.dim()), !dims);
    if (dims)
        for (int64_t d : *dims) {
            const auto w = static_cast<size_t>(wrapDim(d, x.dim()));
            if (x.dim() > 0) drop[w] = true;
        }
    Shape sizes, strides;
    for (size_t i = 0; i < drop.size(); ++i) {
        if (drop[i] && x.sizes()[i] == 1) continue;
        sizes.push_back(x.sizes()[i]);
        strides.push_back(x.strides()[i]);
    }
    return x.asStrided(std::move(sizes), std::move(strides), x.storageOffset());
}

Tensor expand(const Tensor& x, const Shape& sizes) {
    if (structuralOpsRecorded())
        return recordedOp(
            "Tensor.expand", [&] { return RecordedCall{{Value(x), recordedInts(sizes)}, {}}; }, [&] { return expand(x, sizes); });
    const size_t oldDims = x.sizes().size();
    if (sizes.size() < oldDims)
        fail(ErrorKind::Runtime, fmt::format("expand({}{{{}}}, size={}): the number of sizes provided ({}) must be greater or "
                                             "equal to the number of dimensions in the tensor ({})",
                                             typeTag(x), shapeStr(x.sizes()), shapeStr(sizes), sizes.size(), oldDims));
    Shape outSizes(sizes.size()), outStrides(sizes.size());
    for (size_t i = sizes.size(); i-- > 0;) {
        const int64_t offset = static_cast<int64_t>(sizes.size() - 1 - i);
        const int64_t dim = static_cast<int64_t>(oldDims) - 1 - offset;
        int64_t size = dim >= 0 ? x.sizes()[static_cast<size_t>(dim)] : 1;
        int64_t stride = dim >= 0 ? x.strides()[static_cast<size_t>(dim)]
                                  : (i + 1 < sizes.size() ? outSizes[i + 1] * outStrides[i + 1] : 1);
        int64_t target = sizes[i];
        if (target == -1) {
            if (dim < 0)
                fail(ErrorKind::Runtime, fmt::format("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                                     "non-existing dimension {}", i));
            target = size;
        }
        if (size != target) {
            if (size != 1)
                fail(ErrorKind::Runtime,
                     fmt::format("The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton "
                                 "dimension {}.  Target sizes: {}.  Tensor sizes: {}",
                                 target, size, i, shapeStr(sizes), shapeStr(x.sizes())));
            stride = 0;
        }
        outSizes[i] = target;
        outStrides[i] = stride;
    }
    return x.asStrided(std::move(outSizes), std::move(outStrides), x.storageOffset());
}

Tensor flatten(const Tensor& x, int64_t startDim, int64_t endDim) {
    if (x.dim() == 0) return reshape(x, {1});
    const int64_t start = wrapDim(startDim, x.dim());
    const int64_t end = wrapDim(endDim, x.dim());
    if (start > end) fail(ErrorKind::Runtime, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (start == end) return x;
    Shape shape(x.sizes().begin(), x.sizes().begin() + start);
    int64_t merged = 1;
    for (int64_t d = start; d <= end; ++d) merged *= x.sizes()[static_cast<size_t>(d)];
    shape.push_back(merged);
    shape.insert(shape.end(), x.sizes().begin() + end + 1, x.sizes().end());
    return reshape(x, shape);
}

Tensor unflatten(const Tensor& x, int64_t dim, const Shape& sizes) {
    const auto d = static_cast<size_t>(wrapDim(dim, x.dim()));
    const Shape inner = inferShape(sizes, x.sizes()[d]);
    Shape shape(x.sizes().begin(), x.sizes().begin() + static_cast<std::ptrdiff_t>(d));
    shape.insert(shape.end(), inner.begin(), inner.end());
    shape.insert(shape.end(), x.sizes().begin() + static_cast<std::ptrdiff_t>(d) + 1, x.sizes().end());
    return view(x, shape);
}

std::vector<int64_t> movedimOrder(int64_t ndim, const std::vector<int64_t>& source, const std::vector<int64_t>& destination) {
    if (source.size() != destination.size())
        fail(ErrorKind::Runtime, fmt::format("movedim: Invalid source or destination dims: source ([{}] dims) should contain the same "
                                             "number of dims as destination ([{}] dims)",
                                             fmt::join(source, ", "), fmt::join(destination, ", ")));
    std::vector<int64_t> order(static_cast<size_t>(ndim), -1);
    std::vector<bool> moved(static_cast<size_t>(ndim), false);
    for (size_t i = 0; i < source.size(); ++i) {
        const int64_t src = wrapDim(source[i], ndim), dst = wrapDim(destination[i], ndim);
        if (moved[static_cast<size_t>(src)]) fail(ErrorKind::Runtime, fmt::format("movedim: repeated dim in `source` ([{}])", fmt::join(source, ", ")));
        if (order[static_cast<size_t>(dst)] >= 0)
            fail(ErrorKind::Runtime, fmt::format("movedim: repeated dim in `destination` ([{}])", fmt::join(destination, ", ")));
        moved[static_cast<size_t>(src)] = true;
        order[static_cast<size_t>(dst)] = src;
    }
    int64_t next = 0;
    for (int64_t& d : order) {
        if (d >= 0) continue;
        while (moved[static_cast<size_t>(next)]) ++next;
        d = next++;
    }
    return order;
}

Tensor movedim(const Tensor& x, const std::vector<int64_t>& source, const std::vector<int64_t>& destination) {
    return permute(x, movedimOrder(x.dim(), source, destination));
}

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
    const int64_t ndim = x.dim();
    const auto a = static_cast<size_t>(wrapDim(dim1, ndim)), b = static_cast<size_t>(wrapDim(dim2, ndim));
    if (a == b) fail(ErrorKind::Runtime, fmt::format("diagonal dimensions cannot be identical {}, {}", dim1, dim2));
    const Shape& sizes = x.sizes();
    const Shape& strides = x.strides();
    int64_t length = offset >= 0 ? std::min(sizes[a], sizes[b] - offset) : std::min(sizes[a] + offset, sizes[b]);
    length = std::max<int64_t>(length, 0);
    int64_t start = x.storageOffset();
    if (length > 0) start += offset >= 0 ? offset * strides[b] : -offset * strides[a];
    Shape outSizes, outStrides;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (d == a || d == b) continue;
        outSizes.push_back(sizes[d]);
        outStrides.push_back(strides[d]);
    }
    outSizes.push_back(length);
    outStrides.push_back(strides[a] + strides[b]);
    return x.asStrided(std::move(outSizes), std::move(outStrides), start);
}

Tensor asStrided(const Tensor& x, const Shape& sizes, const Shape& strides, std::optional<int64_t> storageOffset) {
    if (sizes.size() != strides.size())
        fail(ErrorKind::Runtime, fmt::format("mismatch in length of strides and shape"));
    const int64_t offset = storageOffset.value_or(x.storageOffset());
    if (offset < 0) fail(ErrorKind::Runtime, fmt::format("Tensor: invalid storage offset {}", offset));
    int64_t last = offset;  // the furthest element the view reaches, which must lie inside the storage
    bool empty = false;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] < 0) fail(ErrorKind::Runtime, fmt::format("Trying to create tensor with negative dimension {}: [{}]", sizes[d], fmt::join(sizes, ", ")));
        if (strides[d] < 0) fail(ErrorKind::Runtime, "as_strided: Negative strides are not supported at the moment, got strides: [" +
                                                          fmt::format("{}]", fmt::join(strides, ", ")));
        empty = empty || sizes[d] == 0;
        last += (sizes[d] - 1) * strides[d];
    }
    const auto item = static_cast<int64_t>(x.itemBytes());
    const int64_t required = empty ? 0 : (last + 1) * item;
    const auto available = static_cast<int64_t>(x.storage()->bytes());
    if (required > available)
        fail(ErrorKind::Runtime, fmt::format("setStorage: sizes [{}], strides [{}], storage offset {}, and itemsize {} requiring a storage size of {} "
                                             "are out of bounds for storage of size {}",
                                             fmt::join(sizes, ", "), fmt::join(strides, ", "), offset, item, required, available));
    return x.asStrided(sizes, strides, offset);
}

Tensor unfold(const Tensor& x, int64_t dimension, int64_t size, int64_t step) {
    const int64_t ndim = x.dim();
    const auto d = static_cast<size_t>(wrapDim(dimension, ndim));
    const int64_t extent = ndim == 0 ? 1 : x.sizes()[d];
    if (size > extent) fail(ErrorKind::Runtime, fmt::format("maximum size for tensor at dimension {} is {} but size is {}", d, extent, size));
    if (step <= 0) fail(ErrorKind::Runtime, fmt::format("step is {} but must be > 0", step));
    if (size < 0) fail(ErrorKind::Runtime, fmt::format("size is {} but must be >= 0", size));
    Shape sizes = x.sizes(), strides = x.strides();
    const int64_t stride = ndim == 0 ? 1 : strides[d];
    if (ndim > 0) {
        sizes[d] = (extent - size) / step + 1;
        strides[d] = step * stride;
    }
    sizes.push_back(size);
    strides.push_back(stride);
    return x.asStrided(std::move(sizes), std::move(strides), x.storageOffset());
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.narrow", [&] { return RecordedCall{{Value(x), Value(dim), Value(start), Value(length)}, {}}; },
            [&] { return narrow(x, dim, start, length); });
    if (x.dim() == 0) fail(ErrorKind::Runtime, "narrow() cannot be applied to a 0-dim tensor.");
    const auto d = static_cast<size_t>(wrapDim(dim, x.dim()));
    const int64_t size = x.sizes()[d];
    if (start < 0) start += size;
    if (start < 0 || start > size)
        fail(ErrorKind::Index, fmt::format("start out of range (expected to be in range of [{}, {}], but got {})", -size, size, start));
    if (length < 0 || start + length > size)
        fail(ErrorKind::Runtime, fmt::format("start ({}) + length ({}) exceeds dimension size ({}).", start, length, size));
    Shape sizes = x.sizes();
    sizes[d] = length;
    return x.asStrided(std::move(sizes), x.strides(), x.storageOffset() + start * x.strides()[d]);
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.select", [&] { return RecordedCall{{Value(x), Value(dim), Value(index)}, {}}; }, [&] { return select(x, dim, index); });
    if (x.dim() == 0) fail(ErrorKind::Index, "select() cannot be applied to a 0-dim tensor.");
    const auto d = static_cast<size_t>(wrapDim(dim, x.dim()));
    const int64_t size = x.sizes()[d];
    if (index < -size || index >= size) failIndexOutOfBounds(ErrorKind::Index, index, static_cast<int64_t>(d), size);
    if (index < 0) index += size;
    Shape sizes = x.sizes(), strides = x.strides();
    const int64_t offset = x.storageOffset() + index * strides[d];
    sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(d));
    strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(d));
    return x.asStrided(std::move(sizes), std::move(strides), offset);
}

SliceRange sliceRange(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
    auto clampIndex = [size](int64_t i) {
        if (i < 0) i += size;
        return std::clamp<int64_t>(i, 0, size);
    };
    const int64_t first = start ? clampIndex(*start) : 0;
    const int64_t last = std::max(first, end ? clampIndex(*end) : size);
    return {first, (last - first + step - 1) / step};
}

Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
    if (x.dim() == 0) fail(ErrorKind::Index, "slice() cannot be applied to a 0-dim tensor.");
    if (step <= 0) fail(ErrorKind::Value, "step must be greater than zero");
    const auto d = static_cast<size_t>(wrapDim(dim, x.dim()));
    const SliceRange range = sliceRange(x.sizes()[d], start, end, step);
    Shape sizes = x.sizes(), strides = x.strides();
    sizes[d] = range.length;
    strides[d] *= step;
    return x.asStrided(std::move(sizes), std::move(strides), x.storageOffset() + range.first * x.strides()[d]);
}

std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
    const int64_t d = wrapDim(dim, x.dim());
    std::vector<Tensor> out;
    for (int64_t i = 0; i < x.sizes()[static_cast<size_t>(d)]; ++i) out.push_back(select(x, d, i));
    return out;
}

// A list of tensors as a recorded argument.
static Value recordedTensors(const std::vector<Tensor>& tensors) {
    ValueList items(tensors.begin(), tensors.end());
    return Value::list(std::move(items));
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.cat", [&] { return RecordedCall{{recordedTensors(tensors), Value(dim)}, {}}; }, [&] { return cat(tensors, dim); });
    if (tensors.empty()) fail(ErrorKind::Runtime, "torch.cat(): expected a non-empty list of Tensors");
    std::vector<Tensor> parts;
    ResultTypeBuilder types;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const Tensor& t = tensors[i];
        if (t.dim() == 0)
            fail(ErrorKind::Runtime, fmt::format("zero-dimensional tensor (at position {}) cannot be concatenated", i));
        types.addTensor(t.dtype(), 1);
        // Legacy rule: 1-D empty tensors are skipped whatever the other shapes.
        if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(t);
    }
    const DType dtype = types.result();
    if (parts.empty()) return empty({0}, dtype, tensors.front().device());
    const Tensor& first = parts.front();
    const auto d = static_cast<size_t>(wrapDim(dim, first.dim()));
    Shape outShape = first.sizes();
    outShape[d] = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
        const Tensor& t = parts[i];
        if (t.dim() != first.dim())
            fail(ErrorKind::Runtime, fmt::format("Tensors must have same number of dimensions: got {} and {}", first.dim(), t.dim()));
        for (size_t k = 0; k < outShape.size(); ++k)
            if (k != d && t.sizes()[k] != first.sizes()[k])
                fail(ErrorKind::Runtime, fmt::format("Sizes of tensors must match except in dimension {}. Expected size {} but "
                                                     "got size {} for tensor number {} in the list.",
                                                     d, first.sizes()[k], t.sizes()[k], i));
        outShape[d] += t.sizes()[d];
    }
    Tensor out = empty(outShape, dtype, first.device());
    int64_t offset = 0;
    for (const Tensor& t : parts) {
        copyInto(narrow(out, static_cast<int64_t>(d), offset, t.sizes()[d]), t);
        offset += t.sizes()[d];
    }
    return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
    if (structuralOpsRecorded())
        return recordedOp(
            "torch.stack", [&] { return RecordedCall{{recordedTensors(tensors), Value(dim)}, {}}; }, [&] { return stack(tensors, dim); });
    if (tensors.empty()) fail(ErrorKind::Runtime, "stack expects a non-empty TensorList");
    for (size_t i = 1; i < tensors.size(); ++i)
        if (tensors[i].sizes() != tensors[0].sizes())
            fail(ErrorKind::Runtime, fmt::format("stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                                                 shapeStr(tensors[0].sizes()), shapeStr(tensors[i].sizes()), i));
    const int64_t d = wrapDim(dim, tensors[0].dim() + 1);
    std::vector<Tensor> expanded;
    for (const Tensor& t : tensors) expanded.push_back(unsqueeze(t, d));
    return cat(expanded, d);
}

std::vector<Tensor> split(const Tensor& x, int64_t splitSize, int64_t dim) {
    if (x.dim() == 0) fail(ErrorKind::Runtime, "split expects at least a 1-dimensional tensor");
    if (splitSize < 0) fail(ErrorKind::Runtime, fmt::format("split expects split_size be non-negative, but got split_size={}", splitSize));
    const int64_t d = wrapDim(dim, x.dim());
    const int64_t size = x.sizes()[static_cast<size_t>(d)];
    if (splitSize == 0 && size != 0)
        fail(ErrorKind::Runtime, fmt::format("split_size can only be 0 if dimension size is 0, but got dimension size of {}", size));
    const int64_t count = splitSize == 0 ? 1 : std::max<int64_t>((size + splitSize - 1) / splitSize, 1);
    std::vector<Tensor> out;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t start = i * splitSize;
        out.push_back(narrow(x, d, start, std::min(splitSize, size - start)));
    }
    return out;
}

std::vector<Tensor> splitWithSizes(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
    const int64_t d = wrapDim(dim, x.dim());
    const int64_t size = x.sizes()[static_cast<size_t>(d)];
    int64_t total = 0;
    for (int64_t s : sizes) total += s;
    if (total != size)
        fail(ErrorKind::Runtime, fmt::format("split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at "
                                             "dimension {}), but got split_sizes={}",
                                             size, d, shapeStr(sizes)));
    std::vector<Tensor> out;
    int64_t start = 0;
    for (int64_t s : sizes) {
        out.push_back(narrow(x, d, start, s));
        start += s;
    }
    return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
    if (x.dim() == 0) fail(ErrorKind::Runtime, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0) fail(ErrorKind::Runtime, fmt::format("chunk expects `chunks` to be greater than 0, got: {}", chunks));
    const int64_t size = x.size(dim);
    const int64_t splitSize = (size + chunks - 1) / chunks;
    if (splitSize == 0 && size == 0) {
        std::vector<int64_t> sizes(static_cast<size_t>(chunks), 0);
        return splitWithSizes(x, sizes, dim);
    }
    return split(x, splitSize, dim);
}

namespace {

Tensor triangle(const Tensor& x, int64_t diagonal, bool upper) {
    if (x.dim() < 2)
        fail(ErrorKind::Runtime, fmt::format("{}: input tensor must have at least 2 dimensions", upper ? "triu" : "tril"));
    if (cudaops::onCuda(x)) return hostroute::backTo(x.device(), triangle(hostroute::toHost(x), diagonal, upper));
    Tensor out = empty(x.sizes(), x.dtype());
    copyInto(out, x);
    const int64_t rows = x.size(-2), cols = x.size(-1);
    const int64_t matrices = rows * cols == 0 ? 0 : out.numel() / (rows * cols);
    dispatchDType(x.dtype(), [&]<typename T>() {
        T* data = out.dataAs<T>();
        for (int64_t m = 0; m < matrices; ++m)
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < cols; ++j) {
                    const bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
                    if (!keep) data[(m * rows + i) * cols + j] = T{};
                }
    });
    return out;
}

}  // namespace

Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, true); }
Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, false); }

Tensor repeat(const Tensor& x, const Shape& repeats) {
    if (static_cast<int64_t>(repeats.size()) < x.dim())
        fail(ErrorKind::Runtime, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    const size_t lead = repeats.size() - static_cast<size_t>(x.dim());
    Shape padded(lead, 1);
    padded.insert(padded.end(), x.sizes().begin(), x.sizes().end());
    Shape outShape(repeats.size());
    for (size_t i = 0; i < repeats.size(); ++i) outShape[i] = padded[i] * repeats[i];
    Tensor out = empty(outShape, x.dtype(), x.device());
    if (out.numel() == 0) return out;
    // View the output as (r0, s0, r1, s1, ...) and the input as the same with stride-0 repeat dims.
    const Tensor source = reshape(x, padded);
    const Shape outStrides = out.strides();
    Shape splitSizes, outSplitStrides, sourceStrides;
    for (size_t i = 0; i < repeats.size(); ++i) {
        splitSizes.insert(splitSizes.end(), {repeats[i], padded[i]});
        outSplitStrides.insert(outSplitStrides.end(), {padded[i] * outStrides[i], outStrides[i]});
        sourceStrides.insert(sourceStrides.end(), {0, source.strides()[i]});
    }
    copyInto(out.asStrided(splitSizes, outSplitStrides, 0), source.asStrided(splitSizes, sourceStrides, source.storageOffset()));
    return out;
}

Tensor flip(const Tensor& x, const std::vector<int64_t>& dims) {
    Shape strides = x.strides();
    int64_t offset = x.storageOffset();
    std::vector<bool> seen(static_cast<size_t>(x.dim()), false);
    for (int64_t dim : dims) {
        const auto d = static_cast<size_t>(wrapDim(dim, x.dim()));
        if (seen[d]) fail(ErrorKind::Runtime, fmt::format("dims has duplicates, original flip dims size={}, but unique flip dims size={}", dims.size(), dims.size() - 1));
        seen[d] = true;
        if (x.sizes()[d] == 0) continue;
        offset += (x.sizes()[d] - 1) * strides[d];
        strides[d] = -strides[d];
    }
    Tensor out = empty(x.sizes(), x.dtype(), x.device());
    return copyInto(out, x.asStrided(x.sizes(), strides, offset));
}

}  // namespace eng::tensor
