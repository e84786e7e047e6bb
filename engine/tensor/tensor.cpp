// Tensor metadata: geometry queries, contiguity, dim wrapping, views over shared storage.
#include "tensor/tensor.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "python/python_repr.h"
#include "tensor/autograd/inference_mode.h"
#include "tensor/deferred_fill.h"

namespace eng::tensor {

Tensor::Tensor(StoragePtr storage, Shape sizes, Shape strides, int64_t offset, DType dtype)
    : impl_(std::make_shared<TensorImpl>()) {
    impl_->storage = std::move(storage);
    impl_->dtype = dtype;
    setGeometry(std::move(sizes), std::move(strides), offset);
}

void Tensor::setGeometry(Shape sizes, Shape strides, int64_t offset) {
    impl_->numel = shapeNumel(sizes);
    impl_->sizes = std::move(sizes);
    impl_->strides = std::move(strides);
    impl_->offset = offset;
}

int64_t Tensor::size(int64_t dimension) const { return impl_->sizes[static_cast<size_t>(wrapDim(dimension, dim()))]; }

int64_t Tensor::stride(int64_t dimension) const {
    return impl_->strides[static_cast<size_t>(wrapDim(dimension, dim()))];
}

bool Tensor::isContiguous() const {
    if (numel() == 0) return true;
    int64_t expected = 1;
    for (int64_t d = dim() - 1; d >= 0; --d) {
        const auto i = static_cast<size_t>(d);
        if (impl_->sizes[i] == 1) continue;
        if (impl_->strides[i] != expected) return false;
        expected *= impl_->sizes[i];
    }
    return true;
}

bool Tensor::isNonOverlappingAndDense() const {
    if (isContiguous()) return true;
    std::vector<size_t> order(impl_->sizes.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (impl_->sizes[a] < 2) return false;
        if (impl_->sizes[b] < 2) return true;
        return impl_->strides[a] < impl_->strides[b];
    });
    int64_t expected = 1;
    for (size_t i : order) {
        if (impl_->sizes[i] == 1) continue;
        if (impl_->strides[i] != expected) return false;
        expected *= impl_->sizes[i];
    }
    return true;
}

void* Tensor::data() const {
    // A deferred result's elements are computed (and pending readers of these elements run) before anyone sees them.
    if (g_deferredStorages.load(std::memory_order_acquire) != 0) [[unlikely]]
        settleDeferred(impl_->storage.get());
    return static_cast<char*>(impl_->storage->data()) + impl_->offset * static_cast<int64_t>(itemBytes());
}

Tensor Tensor::asStrided(Shape sizes, Shape strides, int64_t offset) const {
    Tensor view(impl_->storage, std::move(sizes), std::move(strides), offset, impl_->dtype);
    if (!impl_->version) impl_->version = std::make_shared<uint32_t>(0);
    view.impl_->version = impl_->version;
    return view;
}

uint32_t versionOf(const Tensor& t) { return t.impl()->version ? *t.impl()->version : 0; }

void bumpVersion(const Tensor& t) {
    // Without a counter no alias exists yet, so nothing can have saved these elements.
    if (t.impl()->version) ++*t.impl()->version;
}

bool Tensor::requiresGrad() const { return impl_->requiresGrad || !isLeaf(); }

bool Tensor::isLeaf() const { return !impl_->autograd || !impl_->autograd->gradFn; }

void Tensor::setRequiresGrad(bool value) {
    if (!isLeaf()) {
        if (value) return;
        fail(ErrorKind::Runtime,
             "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
             "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    }
    if (value && !isFloating(dtype()) && !isComplex(dtype()))
        fail(ErrorKind::Runtime, "only Tensors of floating point and complex dtype can require gradients");
    if (value) autograd::checkMayRequireGrad(*this);
    impl_->requiresGrad = value;
}

Tensor gradOf(const Tensor& t) {
    const auto& meta = t.impl()->autograd;
    return meta ? meta->grad : Tensor();
}

void setGrad(const Tensor& t, Tensor grad) {
    auto& meta = t.impl()->autograd;
    if (!meta) meta = std::make_shared<AutogradMeta>();
    if (grad.defined() && grad.sizes() != t.sizes())
        fail(ErrorKind::Runtime, fmt::format("attempting to assign a gradient of size '{}' to a tensor of size '{}'. Please ensure that "
                                             "the gradient and the tensor are the same size",
                                             shapeStr(grad.sizes()), shapeStr(t.sizes())));
    if (grad.defined() && grad.dtype() != t.dtype())
        fail(ErrorKind::Runtime, fmt::format("attempting to assign a gradient with dtype '{}' to a tensor with dtype '{}'. Please ensure "
                                             "that the gradient and the tensor have the same dtype",
                                             dtypeKernelName(grad.dtype()), dtypeKernelName(t.dtype())));
    meta->grad = std::move(grad);
}

int64_t wrapDim(int64_t dimension, int64_t ndim) {
    const int64_t rangeSize = std::max<int64_t>(ndim, 1);
    if (dimension < -rangeSize || dimension >= rangeSize)
        fail(ErrorKind::Index, fmt::format("Dimension out of range (expected to be in range of [{}, {}], but got {})",
                                           -rangeSize, rangeSize - 1, dimension));
    return dimension < 0 ? dimension + rangeSize : dimension;
}

Shape contiguousStrides(const Shape& sizes) {
    Shape strides(sizes.size());
    int64_t running = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = running;
        running *= std::max<int64_t>(sizes[i], 1);
    }
    return strides;
}

int64_t shapeNumel(const Shape& sizes) {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
}

std::string shapeStr(std::span<const int64_t> sizes) { return fmt::format("[{}]", fmt::join(sizes, ", ")); }

std::string Scalar::str() const {
    if (kind_ == ScalarKind::Bool) return int_ ? "True" : "False";
    if (kind_ == ScalarKind::Int) return std::to_string(int_);
    return python::floatRepr(double_);
}


}  // namespace eng::tensor
