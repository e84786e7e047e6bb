// Broadcasting, output layout inference and the dimension ordering/coalescing behind ElementLoop.
#include "tensor/iteration.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "tensor/creation.h"

namespace eng::tensor {

namespace {

// Orders dims fastest-varying first by the operands' strides, as TensorIterator's reorder_dimensions does:
// the first operand with a strict stride difference decides; ties go to the smaller size.
std::vector<size_t> memoryOrder(const Shape& sizes, std::span<const Tensor> operands) {
    const size_t ndim = sizes.size();
    std::vector<size_t> perm(ndim);
    for (size_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
    auto shouldSwap = [&](size_t dim0, size_t dim1) {
        for (const Tensor& t : operands) {
            const int64_t s0 = t.strides()[dim0];
            const int64_t s1 = t.strides()[dim1];
            if (s0 == 0 || s1 == 0) continue;
            if (s0 < s1) return -1;
            if (s0 > s1) return 1;
            if (sizes[dim0] > sizes[dim1]) return 1;
        }
        return 0;
    };
    for (size_t i = 1; i < ndim; ++i) {
        size_t dim1 = i;
        for (size_t dim0 = i; dim0-- > 0;) {
            const int comparison = shouldSwap(perm[dim0], perm[dim1]);
            if (comparison > 0) {
                std::swap(perm[dim0], perm[dim1]);
                dim1 = dim0;
            } else if (comparison < 0) {
                break;
            }
        }
    }
    return perm;
}

}  // namespace

Shape broadcastShapes(const Shape& a, const Shape& b) {
    const size_t ndim = std::max(a.size(), b.size());
    Shape out(ndim);
    for (size_t i = 0; i < ndim; ++i) {
        const int64_t da = i < ndim - a.size() ? 1 : a[i - (ndim - a.size())];
        const int64_t db = i < ndim - b.size() ? 1 : b[i - (ndim - b.size())];
        if (da != db && da != 1 && db != 1)
            fail(ErrorKind::Runtime,
                 fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}",
                             da, db, i));
        out[i] = da == 1 ? db : da;
    }
    return out;
}

Shape broadcastAll(std::span<const Tensor> tensors) {
    Shape out;
    for (const Tensor& t : tensors)
        if (t.defined()) out = broadcastShapes(out, t.sizes());
    return out;
}

Tensor expandTo(const Tensor& t, const Shape& shape) {
    if (t.sizes() == shape) return t;
    const size_t lead = shape.size() - t.sizes().size();
    Shape strides(shape.size(), 0);
    for (size_t i = 0; i < t.sizes().size(); ++i)
        strides[lead + i] = t.sizes()[i] == shape[lead + i] ? t.strides()[i] : 0;
    return t.asStrided(shape, std::move(strides), t.storageOffset());
}

Shape outputStridesFor(const Shape& shape, std::span<const Tensor> inputs) {
    bool allContiguous = true;
    for (const Tensor& t : inputs) allContiguous = allContiguous && t.isContiguous();
    if (allContiguous || shape.size() <= 1) return contiguousStrides(shape);
    // Same non-overlapping dense layout everywhere: keep it exactly.
    const Tensor& first = inputs.front();
    bool sameDense = true;
    for (const Tensor& t : inputs) sameDense = sameDense && t.strides() == first.strides() && t.isNonOverlappingAndDense();
    if (sameDense) return first.strides();
    const std::vector<size_t> perm = memoryOrder(shape, inputs);
    Shape strides(shape.size());
    int64_t running = 1;
    for (size_t d : perm) {
        strides[d] = running;
        running *= std::max<int64_t>(shape[d], 1);
    }
    return strides;
}

Tensor emptyForOutput(const Shape& shape, DType dtype, std::span<const Tensor> inputs, Device device) {
    return emptyStrided(shape, outputStridesFor(shape, inputs), dtype, device);
}

ElementLoop::ElementLoop(std::span<const Tensor> operands) : operandCount_(static_cast<int>(operands.size())) {
    if (operandCount_ > kMaxLoopOperands) fail(ErrorKind::Runtime, "ElementLoop: too many operands");
    const Shape& sizes = operands.front().sizes();
    numel_ = shapeNumel(sizes);
    for (int k = 0; k < operandCount_; ++k) base_[static_cast<size_t>(k)] = static_cast<char*>(operands[static_cast<size_t>(k)].data());
    const Tensor& output = operands.front();
    for (const Tensor& input : operands.subspan(1))
        outputOverlapsInput_ = outputOverlapsInput_ || overlapsInexactly(input, output);
    if (numel_ == 0) return;
    const std::vector<size_t> perm = memoryOrder(sizes, operands);
    for (size_t d : perm) {
        if (sizes[d] == 1) continue;
        std::array<int64_t, kMaxLoopOperands> byteStrides{};
        for (int k = 0; k < operandCount_; ++k) {
            const Tensor& t = operands[static_cast<size_t>(k)];
            byteStrides[static_cast<size_t>(k)] = t.strides()[d] * static_cast<int64_t>(t.itemBytes());
        }
        // Merge into the previous (faster) dim when every operand steps through both as one run.
        if (!sizes_.empty()) {
            bool mergeable = true;
            for (int k = 0; k < operandCount_ && mergeable; ++k)
                mergeable = byteStrides[static_cast<size_t>(k)] ==
                            strides_.back()[static_cast<size_t>(k)] * sizes_.back();
            if (mergeable) {
                sizes_.back() *= sizes[d];
                continue;
            }
        }
        sizes_.push_back(sizes[d]);
        strides_.push_back(byteStrides);
    }
}

}  // namespace eng::tensor
