// Registry entries for autograd's Python surface: Tensor.backward, torch.autograd.backward / grad, retain_grad and the
// grad_fn / is_leaf / retains_grad attributes.
#include <fmt/format.h>

#include "tensor/autograd/engine.h"
#include "tensor/autograd/node.h"
#include "tensor/creation.h"
#include "tensor/registry_support.h"

namespace eng::tensor {

namespace {

std::vector<Tensor> tensorsOf(const Value& v) {
    std::vector<Tensor> out;
    if (v.isNone()) return out;
    if (v.isTensor()) return {v.toTensor()};
    for (const Value& item : v.items()) out.push_back(item.isNone() ? Tensor() : item.toTensor());
    return out;
}

void runBackward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, const Args& a, size_t retainIndex,
                 size_t createIndex) {
    const bool createGraph = a.boolean(createIndex);
    // retain_graph defaults to create_graph, as in PyTorch.
    autograd::backward(roots, grads, a.optBoolean(retainIndex).value_or(createGraph), createGraph);
}

}  // namespace

void registerAutogradOps(OpRegistry& r) {
    r.def({"Tensor.backward"},
          "backward(Tensor self, Tensor? gradient=None, bool? retain_graph=None, bool create_graph=False, Any inputs=None)",
          [](const Args& a) {
              if (!a.isNone(4)) fail(ErrorKind::NotImplemented, "backward(inputs=...) is not supported by the cwb autograd");
              runBackward({a.tensor(0)}, {a.optTensor(1)}, a, 2, 3);
              return noneValue();
          });
    r.def({"torch.autograd.backward"},
          "backward(Any tensors, Any grad_tensors=None, bool? retain_graph=None, bool create_graph=False, Any grad_variables=None, "
          "Any inputs=None)",
          [](const Args& a) {
              if (!a.isNone(5)) fail(ErrorKind::NotImplemented, "backward(inputs=...) is not supported by the cwb autograd");
              runBackward(tensorsOf(a[0]), tensorsOf(a[1]), a, 2, 3);
              return noneValue();
          });
    r.def({"torch.autograd.grad"},
          "grad(Any outputs, Any inputs, Any grad_outputs=None, bool? retain_graph=None, bool create_graph=False, bool? only_inputs=None, "
          "bool? allow_unused=None, bool is_grads_batched=False, bool materialize_grads=False)",
          [](const Args& a) {
              if (a.boolean(7)) fail(ErrorKind::NotImplemented, "grad(is_grads_batched=True) is not supported by the cwb autograd");
              const bool materialize = a.boolean(8);
              const std::vector<Tensor> inputs = tensorsOf(a[1]);
              const bool createGraph = a.boolean(4);
              const std::vector<Tensor> grads = autograd::grad(tensorsOf(a[0]), inputs, tensorsOf(a[2]), a.optBoolean(3).value_or(createGraph),
                                                               a.optBoolean(6).value_or(materialize) || materialize, createGraph);
              ValueList out;
              for (size_t i = 0; i < grads.size(); ++i)
                  out.push_back(grads[i].defined() ? Value(grads[i]) : materialize ? Value(zerosLike(inputs[i])) : Value());
              return Value::tuple(std::move(out));
          });
    r.def({"Tensor.retain_grad"}, "retain_grad(Tensor self)", [](const Args& a) {
        const Tensor& self = a.tensor(0);
        if (!self.requiresGrad()) fail(ErrorKind::Runtime, "can't retain_grad on Tensor that has requires_grad=False");
        if (self.isLeaf()) return noneValue();  // leaves keep their .grad anyway
        AutogradMeta& meta = *self.impl()->autograd;
        meta.retainsGrad = true;
        meta.gradFn->addRetainedOutput(meta.outputNr, self.implPtr());
        return noneValue();
    });
    r.def({"Tensor.retains_grad"}, "retains_grad(Tensor self)", [](const Args& a) {
        const Tensor& self = a.tensor(0);
        return Value(!self.isLeaf() && self.impl()->autograd->retainsGrad);
    });
    r.def({"Tensor.is_leaf"}, "is_leaf(Tensor self)", [](const Args& a) { return Value(a.tensor(0).isLeaf()); });
    // grad_fn is a node object in PyTorch; here it is its repr ("<MulBackward0 object at 0x...>"), or None.
    r.def({"Tensor.grad_fn"}, "grad_fn(Tensor self)", [](const Args& a) {
        const Tensor& self = a.tensor(0);
        if (self.isLeaf()) return noneValue();
        const autograd::Node* node = self.impl()->autograd->gradFn.get();
        return Value(fmt::format("<{} object at {}>", node->name(), static_cast<const void*>(node)));
    });
}

}  // namespace eng::tensor
