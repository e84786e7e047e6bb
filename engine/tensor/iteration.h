// Element-wise iteration over several same-shaped (already broadcast) operands, the core of every pointwise
// kernel: dims are ordered by memory layout and coalesced, and the body sees 1-D chunks with byte strides so
// that contiguous chunks get a vectorisable fast path.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "tensor/simd_dispatch.h"
#include "tensor/tensor.h"
#include "tensor/worker_pool.h"

namespace eng::tensor {

// PyTorch broadcasting of two / many shapes (RuntimeError naming the first mismatching dim).
Shape broadcastShapes(const Shape& a, const Shape& b);
Shape broadcastAll(std::span<const Tensor> tensors);
// A stride-0 view of t with shape `shape` (t must broadcast to it).
Tensor expandTo(const Tensor& t, const Shape& shape);

// Strides TensorIterator gives a fresh output computed from these same-shaped inputs: contiguous when they
// are, otherwise following their memory order (so x.t() * 2 keeps the transposed layout).
Shape outputStridesFor(const Shape& shape, std::span<const Tensor> inputs);
// A fresh tensor laid out as outputStridesFor says.
Tensor emptyForOutput(const Shape& shape, DType dtype, std::span<const Tensor> inputs, Device device = kCpu);

// Whether `input` shares memory with `output` other than element for element: another storage offset or strides,
// or another item size (an `out` that reinterprets an input's storage, x.view(torch.bool), overlaps it bytewise).
// An exact alias (the same view of the same elements) is not an overlap: each element is read before it is written.
inline bool overlapsInexactly(const Tensor& input, const Tensor& output) {
    return input.sharesStorageWith(output) && (input.itemBytes() != output.itemBytes() ||
                                               input.storageOffset() != output.storageOffset() || input.strides() != output.strides());
}

constexpr int kMaxLoopOperands = 6;

class ElementLoop {
public:
    // All operands have the same sizes; the first one's memory order decides the iteration order.
    explicit ElementLoop(std::span<const Tensor> operands);

    int64_t numel() const { return numel_; }

    // body(char* const* pointers, const int64_t* byteStrides, int64_t count) for each innermost chunk, in order.
    template <typename Body>
    void forEachChunk(Body&& body) const {
        forEachChunkIn(0, numel_, body);
    }

    // forEachChunk with the elements split into ranges run on the worker pool's threads (worker_pool.h) when
    // there are enough of them; body must only write its own chunk's elements (operand 0). Each element is computed
    // as on one thread, and ranges start at multiples of 64 elements of the iteration order. When operand 0 shares
    // memory with another operand other than element for element (x[1:] += x[:-1]), the result depends on the order
    // of the writes, so it stays the one-thread order.
    template <typename Body>
    void forEachChunkParallel(const Body& body) const {
        if (outputOverlapsInput_) return forEachChunk(body);
        parallelRanges(numel_, kEagerGrain, [&](int64_t begin, int64_t end) { forEachChunkIn(begin, end, body); }, 64,
                       elementwiseRangesPerThread());
    }

    // The chunks of elements [begin, end) of the iteration order (fastest dim first): the first and last may be
    // parts of an innermost row.
    template <typename Body>
    void forEachChunkIn(int64_t begin, int64_t end, Body&& body) const {
        if (begin >= end) return;
        std::array<char*, kMaxLoopOperands> pointers = base_;
        std::array<int64_t, kMaxLoopOperands> innerStrides{};
        if (sizes_.empty()) {
            body(pointers.data(), innerStrides.data(), int64_t{1});
            return;
        }
        for (int k = 0; k < operandCount_; ++k) innerStrides[static_cast<size_t>(k)] = strides_[0][static_cast<size_t>(k)];
        const size_t ndim = sizes_.size();
        // Unravel `begin` into a position per dim.
        std::vector<int64_t> counter(ndim, 0);
        int64_t rest = begin;
        for (size_t d = 0; d < ndim; ++d) {
            counter[d] = rest % sizes_[d];
            rest /= sizes_[d];
            for (int k = 0; k < operandCount_; ++k) pointers[static_cast<size_t>(k)] += counter[d] * strides_[d][static_cast<size_t>(k)];
        }
        int64_t remaining = end - begin;
        // The first chunk may start inside a row; step back to the row's start once it is done.
        int64_t rowOffset = counter[0];
        while (true) {
            const int64_t count = std::min(sizes_[0] - rowOffset, remaining);
            body(pointers.data(), innerStrides.data(), count);
            remaining -= count;
            if (remaining == 0) return;
            for (int k = 0; k < operandCount_; ++k) pointers[static_cast<size_t>(k)] -= rowOffset * strides_[0][static_cast<size_t>(k)];
            rowOffset = 0;
            for (size_t d = 1; d < ndim; ++d) {
                for (int k = 0; k < operandCount_; ++k) pointers[static_cast<size_t>(k)] += strides_[d][static_cast<size_t>(k)];
                if (++counter[d] < sizes_[d]) break;
                for (int k = 0; k < operandCount_; ++k)
                    pointers[static_cast<size_t>(k)] -= strides_[d][static_cast<size_t>(k)] * sizes_[d];
                counter[d] = 0;
            }
        }
    }

private:
    int operandCount_ = 0;
    int64_t numel_ = 0;
    bool outputOverlapsInput_ = false;
    std::array<char*, kMaxLoopOperands> base_{};
    Shape sizes_;  // fastest-varying first, after coalescing
    std::vector<std::array<int64_t, kMaxLoopOperands>> strides_;  // per dim, per operand, in bytes
};

// Calls fn(inOffset, outOffset) for the lines [firstLine, endLine) along `dim` (element offsets of each line's first
// element in two tensors of the same sizes), the lines ordered row-major over the other dims.
template <typename Fn>
void forEachLineIn(const Shape& sizes, const Shape& inStrides, const Shape& outStrides, int64_t dim, int64_t firstLine,
                   int64_t endLine, Fn&& fn) {
    if (firstLine >= endLine) return;
    const size_t ndim = sizes.size();
    std::vector<int64_t> counter(ndim, 0);
    int64_t inOffset = 0, outOffset = 0;
    for (int64_t rest = firstLine, d = static_cast<int64_t>(ndim) - 1; d >= 0; --d) {
        if (d == dim) continue;
        const auto u = static_cast<size_t>(d);
        counter[u] = rest % sizes[u];
        rest /= sizes[u];
        inOffset += counter[u] * inStrides[u];
        outOffset += counter[u] * outStrides[u];
    }
    for (int64_t line = firstLine; line < endLine; ++line) {
        fn(inOffset, outOffset);
        size_t d = ndim;
        while (d-- > 0) {
            if (static_cast<int64_t>(d) == dim) continue;
            inOffset += inStrides[d];
            outOffset += outStrides[d];
            if (++counter[d] < sizes[d]) break;
            inOffset -= inStrides[d] * sizes[d];
            outOffset -= outStrides[d] * sizes[d];
            counter[d] = 0;
        }
    }
}

// Number of 1-D lines along `dim` of a tensor of these sizes (0 when it is empty).
inline int64_t lineCount(const Shape& sizes, int64_t dim) {
    int64_t count = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] == 0) return 0;
        if (static_cast<int64_t>(d) != dim) count *= sizes[d];
    }
    return count;
}

// Calls fn(inOffset, outOffset) once per 1-D line along `dim`, walking the other dims in row-major order.
template <typename Fn>
void forEachLine(const Shape& sizes, const Shape& inStrides, const Shape& outStrides, int64_t dim, Fn&& fn) {
    forEachLineIn(sizes, inStrides, outStrides, dim, 0, lineCount(sizes, dim), fn);
}

// forEachLine with the lines split over the worker pool's threads when there is enough work; makeLineFn() gives
// each range its own line function (so that scratch buffers are per thread), which must write only its line.
template <typename MakeLineFn>
void forEachLineParallel(const Shape& sizes, const Shape& inStrides, const Shape& outStrides, int64_t dim,
                         const MakeLineFn& makeLineFn) {
    const int64_t lines = lineCount(sizes, dim);
    const int64_t length = lines == 0 ? 0 : std::max<int64_t>(sizes.empty() ? 1 : sizes[static_cast<size_t>(dim)], 1);
    parallelRanges(lines, (kEagerGrain + length - 1) / std::max<int64_t>(length, 1), [&](int64_t first, int64_t end) {
        forEachLineIn(sizes, inStrides, outStrides, dim, first, end, makeLineFn());
    });
}

// The contiguous fast path of the maps: float computations run on the host's widest vector instructions
// (simd_dispatch.h); integer ones stay baseline code, where wider vectors buy little and cost code size.
template <typename In, typename Body>
void contiguousLoop(int64_t n, const Body& body) {
    if constexpr (std::is_floating_point_v<OpMath<In>>)
        simd::loop(n, body);
    else
        for (int64_t i = 0; i < n; ++i) body(i);
}

// Unary map out[i] = f(in[i]) with In/Out storage types; f receives and returns opmath values.
template <typename Out, typename In, typename F>
void mapUnary(const Tensor& out, const Tensor& in, F&& f) {
    const std::array<Tensor, 2> ops{out, in};
    ElementLoop loop(ops);
    loop.forEachChunkParallel([&](char* const* p, const int64_t* s, int64_t n) {
        auto* o = reinterpret_cast<Out*>(p[0]);
        const auto* a = reinterpret_cast<const In*>(p[1]);
        if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
            contiguousLoop<In>(n, [=, &f](int64_t i) { o[i] = static_cast<Out>(f(static_cast<OpMath<In>>(a[i]))); });
        } else {
            for (int64_t i = 0; i < n; ++i)
                *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                    static_cast<Out>(f(static_cast<OpMath<In>>(*reinterpret_cast<const In*>(p[1] + i * s[1]))));
        }
    });
}

// Binary map out[i] = f(a[i], b[i]) with special cases for contiguous and scalar-broadcast chunks.
template <typename Out, typename In, typename F>
void mapBinary(const Tensor& out, const Tensor& a, const Tensor& b, F&& f) {
    using Op = OpMath<In>;
    const std::array<Tensor, 3> ops{out, a, b};
    ElementLoop loop(ops);
    loop.forEachChunkParallel([&](char* const* p, const int64_t* s, int64_t n) {
        auto* o = reinterpret_cast<Out*>(p[0]);
        const auto* x = reinterpret_cast<const In*>(p[1]);
        const auto* y = reinterpret_cast<const In*>(p[2]);
        constexpr int64_t kIn = sizeof(In);
        if (s[0] == sizeof(Out) && s[1] == kIn && s[2] == kIn) {
            contiguousLoop<In>(n, [=, &f](int64_t i) { o[i] = static_cast<Out>(f(static_cast<Op>(x[i]), static_cast<Op>(y[i]))); });
        } else if (s[0] == sizeof(Out) && s[1] == kIn && s[2] == 0) {
            const Op yv = static_cast<Op>(*y);
            contiguousLoop<In>(n, [=, &f](int64_t i) { o[i] = static_cast<Out>(f(static_cast<Op>(x[i]), yv)); });
        } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == kIn) {
            const Op xv = static_cast<Op>(*x);
            contiguousLoop<In>(n, [=, &f](int64_t i) { o[i] = static_cast<Out>(f(xv, static_cast<Op>(y[i]))); });
        } else {
            for (int64_t i = 0; i < n; ++i)
                *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                    static_cast<Out>(f(static_cast<Op>(*reinterpret_cast<const In*>(p[1] + i * s[1])),
                                       static_cast<Op>(*reinterpret_cast<const In*>(p[2] + i * s[2]))));
        }
    });
}

}  // namespace eng::tensor
