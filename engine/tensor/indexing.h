// Python indexing of tensors: x[idx] and x[idx] = v with ints, slices (negative bounds, steps), None, Ellipsis,
// bools, integer tensors and bool masks, following PyTorch (basic indexing gives views; tensor indices copy).
#pragma once

#include <optional>
#include <vector>

#include "tensor/pointwise.h"
#include "tensor/tensor.h"

namespace eng::tensor {

/// PyTorch's "index V is out of bounds for dimension D with size S" (IndexError from indexing and select,
/// RuntimeError from gather), for the CPU checks and the CUDA kernels' device-side ones alike.
[[noreturn]] void failIndexOutOfBounds(ErrorKind kind, int64_t value, int64_t dim, int64_t size);

struct TensorIndex {
    enum class Kind { Integer, Slice, None, Ellipsis, Boolean, Tensor };
    Kind kind = Kind::None;
    int64_t integer = 0;
    std::optional<int64_t> start, stop, step;
    bool boolean = false;
    Tensor tensor;

    static TensorIndex fromInteger(int64_t i) { return {Kind::Integer, i, {}, {}, {}, false, {}}; }
    static TensorIndex fromSlice(std::optional<int64_t> start, std::optional<int64_t> stop, std::optional<int64_t> step) {
        return {Kind::Slice, 0, start, stop, step, false, {}};
    }
    static TensorIndex none() { return {}; }
    static TensorIndex ellipsis() { return {Kind::Ellipsis, 0, {}, {}, {}, false, {}}; }
    static TensorIndex fromBool(bool b) { return {Kind::Boolean, 0, {}, {}, {}, b, {}}; }
    static TensorIndex fromTensor(Tensor t) { return {Kind::Tensor, 0, {}, {}, {}, false, std::move(t)}; }
};

Tensor getItem(const Tensor& x, const std::vector<TensorIndex>& indices);
void setItem(const Tensor& x, const std::vector<TensorIndex>& indices, const Operand& value);

// aten::index: indices[d] (undefined = whole dim) are broadcast together; see PyTorch's placement rule for
// the indexed dims (in place when adjacent, else first).
Tensor advancedIndex(const Tensor& x, const std::vector<Tensor>& indices);
// aten::index_put_: writes (or adds, with accumulate) values broadcast to the indexed shape.
void indexPut(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);

Tensor indexSelect(const Tensor& x, int64_t dim, const Tensor& index);
// embedding's rows on CUDA: [indices.numel(), weight.size(1)], weight a 2-D CUDA tensor; an index outside [0, rows)
// raises IndexError "index out of range in self" at the device's next synchronisation (checked by the kernel that
// makes the position table, not read back).
Tensor embeddingRowsOnCuda(const Tensor& weight, const Tensor& indices);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// (count, ndim) int64 coordinates of the non-zero elements, row-major order.
Tensor nonzero(const Tensor& x);
Tensor maskedSelect(const Tensor& x, const Tensor& mask);

}  // namespace eng::tensor
