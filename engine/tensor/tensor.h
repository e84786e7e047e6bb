// Tensor: a reference-counted handle to sizes, strides and a storage offset over shared Storage, like
// torch.Tensor. Copying a Tensor aliases it (as Python names do); views share Storage.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/scalar.h"

namespace eng::tensor {

using Shape = std::vector<int64_t>;

class Tensor;
struct AutogradMeta;

struct TensorImpl {
    StoragePtr storage;
    Shape sizes;
    Shape strides;
    int64_t offset = 0;
    int64_t numel = 1;
    DType dtype = DType::Float32;
    bool requiresGrad = false;
    // Gradient bookkeeping; null for tensors that never took part in autograd.
    std::shared_ptr<AutogradMeta> autograd;
};

class Tensor {
public:
    Tensor() = default;  // undefined, like None in an optional tensor slot
    Tensor(StoragePtr storage, Shape sizes, Shape strides, int64_t offset, DType dtype);

    bool defined() const { return impl_ != nullptr; }
    DType dtype() const { return impl_->dtype; }
    Device device() const { return impl_->storage->device(); }
    const Shape& sizes() const { return impl_->sizes; }
    const Shape& strides() const { return impl_->strides; }
    int64_t dim() const { return static_cast<int64_t>(impl_->sizes.size()); }
    int64_t numel() const { return impl_->numel; }
    int64_t storageOffset() const { return impl_->offset; }
    // Size and stride of one dimension; negative dims count from the end (IndexError when out of range).
    int64_t size(int64_t dimension) const;
    int64_t stride(int64_t dimension) const;
    size_t itemBytes() const { return itemSize(impl_->dtype); }
    size_t nbytes() const { return static_cast<size_t>(numel()) * itemBytes(); }

    // PyTorch's is_contiguous: row-major dense, ignoring the strides of size-1 dims.
    bool isContiguous() const;
    // Dense in some order with no overlap (a permutation of a contiguous tensor).
    bool isNonOverlappingAndDense() const;

    const StoragePtr& storage() const { return impl_->storage; }
    // Address of element [0, 0, ...]. CPU only for element access.
    void* data() const;
    template <typename T>
    T* dataAs() const {
        return static_cast<T*>(data());
    }
    bool sharesStorageWith(const Tensor& other) const { return impl_->storage == other.impl_->storage; }
    bool isSameTensor(const Tensor& other) const { return impl_ == other.impl_; }

    // A view over the same storage with new geometry (no checks: callers ensure it stays in bounds).
    Tensor asStrided(Shape sizes, Shape strides, int64_t offset) const;
    // Rebinds this tensor's geometry in place (used by in-place shape ops such as squeeze_ and set_).
    void setGeometry(Shape sizes, Shape strides, int64_t offset);

    bool requiresGrad() const { return impl_->requiresGrad; }
    // requires_grad_(): TypeError-free check as PyTorch's "only Tensors of floating point dtype can require gradients".
    void setRequiresGrad(bool value);
    TensorImpl* impl() const { return impl_.get(); }
    const std::shared_ptr<TensorImpl>& implPtr() const { return impl_; }

private:
    std::shared_ptr<TensorImpl> impl_;
};

// Gradient state of a tensor that took part in autograd: what `.grad` reads and `p.grad = None` clears.
struct AutogradMeta {
    Tensor grad;
    bool retainsGrad = false;
};

// .grad: undefined when none was accumulated or it was cleared.
Tensor gradOf(const Tensor& t);
void setGrad(const Tensor& t, Tensor grad);

// Normalizes a possibly negative dim against ndim (PyTorch's maybe_wrap_dim, IndexError when out of range).
// A zero-dim tensor accepts dims -1 and 0.
int64_t wrapDim(int64_t dimension, int64_t ndim);
Shape contiguousStrides(const Shape& sizes);
int64_t shapeNumel(const Shape& sizes);
// "[2, 3]" as PyTorch prints shapes in messages.
std::string shapeStr(std::span<const int64_t> sizes);

}  // namespace eng::tensor
