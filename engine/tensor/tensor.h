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
namespace autograd {
class Node;
}

struct TensorImpl {
    StoragePtr storage;
    Shape sizes;
    Shape strides;
    int64_t offset = 0;
    int64_t numel = 1;
    DType dtype = DType::Float32;
    // requires_grad of a leaf; a non-leaf requires grad because it has a grad_fn (AutogradMeta::gradFn).
    bool requiresGrad = false;
    // In-place modification count, shared by every alias of the same elements (views, saved tensors); created
    // when the first alias is made, so that autograd can tell a saved tensor was changed after it was saved.
    std::shared_ptr<uint32_t> version;
    // Gradient bookkeeping; null for tensors that never took part in autograd.
    std::shared_ptr<AutogradMeta> autograd;
};

class Tensor {
public:
    Tensor() = default;  // undefined, like None in an optional tensor slot
    Tensor(StoragePtr storage, Shape sizes, Shape strides, int64_t offset, DType dtype);
    // A handle to an existing tensor (autograd keeps views' bases and leaves by their impl).
    static Tensor fromImpl(std::shared_ptr<TensorImpl> impl) {
        Tensor t;
        t.impl_ = std::move(impl);
        return t;
    }

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

    // True for leaves marked requires_grad and for results of differentiable ops recorded by autograd.
    bool requiresGrad() const;
    // requires_grad_(): PyTorch's errors for non-float dtypes and for clearing the flag of a non-leaf.
    void setRequiresGrad(bool value);
    // A leaf has no grad_fn (every tensor that autograd did not produce).
    bool isLeaf() const;
    TensorImpl* impl() const { return impl_.get(); }
    const std::shared_ptr<TensorImpl>& implPtr() const { return impl_; }

private:
    std::shared_ptr<TensorImpl> impl_;
};

// Gradient state of a tensor that took part in autograd: what `.grad` reads and `p.grad = None` clears, and
// where the tensor sits in the graph (engine/tensor/autograd/node.h).
struct AutogradMeta {
    Tensor grad;
    bool retainsGrad = false;
    // The node that produced this tensor (null for leaves) and which of its outputs this tensor is.
    std::shared_ptr<autograd::Node> gradFn;
    uint32_t outputNr = 0;
    // Set when a differentiable op produced this tensor as a view of an input that requires grad: the tensor
    // that owns the elements (never itself a view). An in-place op on the view also rewrites the base's history.
    std::shared_ptr<TensorImpl> viewBase;
    // A leaf's AccumulateGrad node, shared by every graph that uses the leaf while one is alive (weak: the
    // node owns the leaf, not the other way round).
    std::weak_ptr<autograd::Node> gradAccumulator;
};

// The version counter (PyTorch's _version): bumped by every in-place op on the tensor or an alias of it.
uint32_t versionOf(const Tensor& t);
void bumpVersion(const Tensor& t);

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
