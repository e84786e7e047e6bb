// Registry entries for Tensor's own protocol: conversions (to, float, half, ..., cpu/cuda), copies (clone,
// contiguous, detach, copy_), Python-level queries (item, tolist, size, dim, stride, ...), the attributes read
// as properties (shape, dtype, device, T, grad, ...) and the attributes the VM may assign (__setattr__).
#include <fmt/format.h>

#include "tensor/autograd/inference_mode.h"
#include "tensor/conversion.h"
#include "tensor/layout.h"
#include "tensor/registry_support.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace {

std::vector<std::string> method(std::string_view name) { return {fmt::format("Tensor.{}", name)}; }

Tensor alias(const Tensor& t) { return t.asStrided(t.sizes(), t.strides(), t.storageOffset()); }

// Tensor.T: all dims reversed (PyTorch deprecates it above 2-D but still does this).
Tensor reversedDims(const Tensor& t) {
    std::vector<int64_t> dims;
    for (int64_t d = t.dim() - 1; d >= 0; --d) dims.push_back(d);
    return permute(t, dims);
}

}  // namespace

void registerTensorMethodOps(OpRegistry& r) {
    r.def(method("to"), "to(Tensor self, ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)",
          [](const Args& a) { return Value(to(a.tensor(0), a[1].toDType(), std::nullopt, a.boolean(3))); });
    r.def(method("to"),
          "to(Tensor self, Device? device=None, ScalarType? dtype=None, bool non_blocking=False, bool copy=False, *, "
          "MemoryFormat? memory_format=None)",
          [](const Args& a) { return Value(to(a.tensor(0), a.optDType(2), a.optDevice(1), a.boolean(4))); });
    r.def(method("to"), "to(Tensor self, Tensor other, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)",
          [](const Args& a) { return Value(to(a.tensor(0), a.tensor(1).dtype(), a.tensor(1).device(), a.boolean(3))); });
    for (const ConversionMethod& c : conversionMethods()) {
        const DType dtype = c.dtype;
        r.def(method(c.name), fmt::format("{}(Tensor self, *, MemoryFormat? memory_format=None)", c.name),
              [dtype](const Args& a) { return Value(to(a.tensor(0), dtype)); });
    }
    r.def(method("type"), "type(Tensor self, ScalarType? dtype=None, bool non_blocking=False)", [](const Args& a) {
        if (a.optDType(1)) return Value(to(a.tensor(0), a.optDType(1)));
        return Value(fmt::format("torch.{}{}Tensor", a.tensor(0).device().isCpu() ? "" : "cuda.", dtypeKernelName(a.tensor(0).dtype())));
    });
    // The legacy type names t.type() returns ("torch.HalfTensor", "torch.cuda.FloatTensor") convert too.
    r.def(method("type"), "type(Tensor self, str dtype, bool non_blocking=False)", [](const Args& a) {
        std::string_view name = a.str(1);
        std::optional<Device> device = kCpu;
        if (name.starts_with("torch.cuda.")) {
            device = Device(DeviceType::CUDA, 0);
            name.remove_prefix(11);
        } else if (name.starts_with("torch.")) {
            name.remove_prefix(6);
        }
        for (int i = 0; i < kDTypeCount; ++i) {
            const auto dtype = static_cast<DType>(i);
            if (name == fmt::format("{}Tensor", dtypeKernelName(dtype))) return Value(to(a.tensor(0), dtype, device));
        }
        fail(ErrorKind::Value, fmt::format("invalid type: '{}'", a.str(1)));
    });
    r.def(method("type_as"), "type_as(Tensor self, Tensor other)", [](const Args& a) { return Value(to(a.tensor(0), a.tensor(1).dtype())); });
    r.def(method("cpu"), "cpu(Tensor self)", [](const Args& a) { return Value(to(a.tensor(0), std::nullopt, kCpu)); });
    r.def(method("cuda"), "cuda(Tensor self, Device? device=None, bool non_blocking=False)", [](const Args& a) {
        return Value(to(a.tensor(0), std::nullopt, a.optDevice(1).value_or(Device(DeviceType::CUDA, 0))));
    });
    r.def({"torch.clone", "Tensor.clone"}, "clone(Tensor self, *, MemoryFormat? memory_format=None)",
          [](const Args& a) { return Value(clone(a.tensor(0))); });
    r.def(method("contiguous"), "contiguous(Tensor self, *, MemoryFormat? memory_format=None)",
          [](const Args& a) { return Value(contiguous(a.tensor(0))); });
    r.def({"torch.detach", "Tensor.detach"}, "detach(Tensor self)", [](const Args& a) { return Value(alias(a.tensor(0))); });
    r.def(method("detach_"), "detach_(Tensor self)", [](const Args& a) {
        Tensor self = a.tensor(0);
        if (self.impl()->autograd) {
            self.impl()->autograd->gradFn.reset();
            self.impl()->autograd->viewBase.reset();
        }
        self.setRequiresGrad(false);
        return a[0];
    });
    r.def(method("copy_"), "copy_(Tensor self, Tensor src, bool non_blocking=False)",
          [](const Args& a) { return Value(copyInto(a.tensor(0), a.tensor(1))); });
    r.def(method("requires_grad_"), "requires_grad_(Tensor self, bool requires_grad=True)", [](const Args& a) {
        Tensor self = a.tensor(0);
        self.setRequiresGrad(a.boolean(1));
        return a[0];
    });
    r.def(method("is_inference"), "is_inference(Tensor self)", [](const Args& a) { return Value(autograd::isInference(a.tensor(0))); });
    r.def({"torch.is_inference_mode_enabled"}, "is_inference_mode_enabled()",
          [](const Args&) { return Value(autograd::isInferenceModeEnabled()); });
    r.def({"torch.is_inference"}, "is_inference(Tensor input)", [](const Args& a) { return Value(autograd::isInference(a.tensor(0))); });
    r.def(method("item"), "item(Tensor self)", [](const Args& a) { return Value(item(a.tensor(0))); });
    r.def(method("tolist"), "tolist(Tensor self)", [](const Args& a) { return tensorToList(a.tensor(0)); });
    r.def(method("size"), "size(Tensor self, int? dim=None)", [](const Args& a) {
        if (a.optInteger(1)) return Value(a.tensor(0).size(a.integer(1)));
        return Value::size(a.tensor(0).sizes());
    });
    r.def(method("stride"), "stride(Tensor self, int? dim=None)", [](const Args& a) {
        if (a.optInteger(1)) return Value(a.tensor(0).stride(a.integer(1)));
        ValueList strides(a.tensor(0).strides().begin(), a.tensor(0).strides().end());
        return Value::tuple(std::move(strides));
    });
    for (const char* name : {"dim", "ndimension"})
        r.def(method(name), fmt::format("{}(Tensor self)", name), [](const Args& a) { return Value(a.tensor(0).dim()); });
    r.def(method("is_contiguous"), "is_contiguous(Tensor self, *, MemoryFormat? memory_format=None)",
          [](const Args& a) { return Value(a.tensor(0).isContiguous()); });
    r.def(method("element_size"), "element_size(Tensor self)", [](const Args& a) { return Value(static_cast<int64_t>(a.tensor(0).itemBytes())); });
    r.def(method("storage_offset"), "storage_offset(Tensor self)", [](const Args& a) { return Value(a.tensor(0).storageOffset()); });
    r.def(method("data_ptr"), "data_ptr(Tensor self)",
          [](const Args& a) { return Value(static_cast<int64_t>(reinterpret_cast<intptr_t>(a.tensor(0).data()))); });
    r.def(method("get_device"), "get_device(Tensor self)",
          [](const Args& a) { return Value(int64_t{a.tensor(0).device().isCpu() ? -1 : normalizeDevice(a.tensor(0).device()).index()}); });

    // Properties (the VM reads x.<name> through these when OpRegistry::isTensorProperty(name)).
    r.def(method("shape"), "shape(Tensor self)", [](const Args& a) { return Value::size(a.tensor(0).sizes()); });
    r.def(method("dtype"), "dtype(Tensor self)", [](const Args& a) { return Value(a.tensor(0).dtype()); });
    r.def(method("device"), "device(Tensor self)", [](const Args& a) { return Value(normalizeDevice(a.tensor(0).device())); });
    r.def(method("ndim"), "ndim(Tensor self)", [](const Args& a) { return Value(a.tensor(0).dim()); });
    r.def(method("T"), "T(Tensor self)", [](const Args& a) { return Value(reversedDims(a.tensor(0))); });
    r.def(method("H"), "H(Tensor self)", [](const Args& a) { return Value(reversedDims(a.tensor(0))); });
    r.def(method("mT"), "mT(Tensor self)", [](const Args& a) { return Value(transpose(a.tensor(0), -2, -1)); });
    r.def(method("mH"), "mH(Tensor self)", [](const Args& a) { return Value(transpose(a.tensor(0), -2, -1)); });
    r.def(method("requires_grad"), "requires_grad(Tensor self)", [](const Args& a) { return Value(a.tensor(0).requiresGrad()); });
    r.def(method("is_cuda"), "is_cuda(Tensor self)", [](const Args& a) { return Value(a.tensor(0).device().type() == DeviceType::CUDA); });
    r.def(method("is_cpu"), "is_cpu(Tensor self)", [](const Args& a) { return Value(a.tensor(0).device().isCpu()); });
    r.def(method("data"), "data(Tensor self)", [](const Args& a) { return Value(alias(a.tensor(0))); });
    r.def(method("grad"), "grad(Tensor self)", [](const Args& a) {
        const Tensor g = gradOf(a.tensor(0));
        return g.defined() ? Value(g) : noneValue();
    });
    r.def(method("itemsize"), "itemsize(Tensor self)", [](const Args& a) { return Value(static_cast<int64_t>(a.tensor(0).itemBytes())); });
    r.def(method("nbytes"), "nbytes(Tensor self)", [](const Args& a) { return Value(static_cast<int64_t>(a.tensor(0).nbytes())); });
    r.def(method("layout"), "layout(Tensor self)", [](const Args&) { return Value(kStridedLayout); });

    r.def(method("__setattr__"), "__setattr__(Tensor self, str name, Any value)", [](const Args& a) {
        Tensor self = a.tensor(0);
        const std::string& name = a.str(1);
        const Value& v = a[2];
        if (name == "requires_grad") {
            self.setRequiresGrad(v.toBool());
        } else if (name == "grad") {
            setGrad(self, v.isNone() ? Tensor() : v.toTensor());
        } else if (name == "data") {
            const Tensor& source = v.toTensor();
            self.impl()->storage = source.storage();
            self.impl()->dtype = source.dtype();
            self.setGeometry(source.sizes(), source.strides(), source.storageOffset());
        } else {
            fail(ErrorKind::Type, fmt::format("attribute '{}' of 'torch._C.TensorBase' objects is not writable", name));
        }
        return noneValue();
    });
}

}  // namespace eng::tensor
