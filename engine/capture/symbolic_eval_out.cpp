// torch functions called with `out=` in the trace (Dynamo's TorchInGraphFunctionVariable with an out= tensor): the
// functional op, then its result copied into the out tensor with a traced `copy_`, so the write to a graph input is an
// in-place op that functionalisation and every backend see, and the caller finds the result in its tensor.
#include <fmt/core.h>

#include <algorithm>

#include "capture/symbolic_eval.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/pointwise.h"
#include "tensor/registry.h"

namespace eng::capture {

namespace {

/// Whether the op has its own `out` parameter (F.normalize): it binds out= itself.
bool schemaNamesOut(const std::string& module, const std::string& name) {
    const tensor::OpEntry* entry = tensor::OpRegistry::instance().find((module == "torch.nn.functional" ? "F." : "torch.") + name);
    if (!entry) return false;
    for (const tensor::OpOverload& overload : entry->overloads)
        for (const tensor::Param& p : overload.schema.params)
            if (p.name == "out") return true;
    return false;
}

}  // namespace

VarRef Tracer::callTorchFunction(const std::string& module, const std::string& name, const std::string& target, const std::vector<VarRef>& args,
                                 const std::vector<std::pair<std::string, VarRef>>& kwargs, const vm::Value& callee) {
    auto outArg = std::find_if(kwargs.begin(), kwargs.end(), [](const auto& kw) { return kw.first == "out"; });
    if (outArg == kwargs.end() || outArg->second->kind != Variable::Kind::Tensor || schemaNamesOut(module, name))
        return callTensorOp(NodeOp::CallFunction, target, args, kwargs, callee, CallKind::Callable);
    const VarRef out = outArg->second;
    std::vector<std::pair<std::string, VarRef>> rest;
    std::copy_if(kwargs.begin(), kwargs.end(), std::back_inserter(rest), [](const auto& kw) { return kw.first != "out"; });
    bool requiresGrad = exampleOf(out).tensor().requiresGrad();
    for (const VarRef& a : args) requiresGrad = requiresGrad || (a->kind == Variable::Kind::Tensor && exampleOf(a).tensor().requiresGrad());
    const std::string call = fmt::format("call_function {} with out=", target);
    // Autograd refuses out= of a differentiable call: the interpreter runs it after the break and raises that error.
    if (requiresGrad && tensor::autograd::isGradEnabled())
        unsupported("out= op was called where output tensor was non-contiguous or required grad",
                    "Dynamo does not trace out= calls whose arguments require grad: autograd refuses them.", {}, call);
    VarRef result = callTensorOp(NodeOp::CallFunction, target, args, rest, callee, CallKind::Callable);
    if (result->kind != Variable::Kind::Tensor)
        unsupported("out= op returned a non-tensor", "Dynamo traces out= only for ops that return one tensor.", {}, call);
    const tensor::Tensor& value = exampleOf(result).tensor();
    const tensor::Tensor& into = exampleOf(out).tensor();
    // Dynamo cannot resize a graph input in the graph; a dtype out= cannot hold is the op's error, raised eagerly.
    if (value.sizes() != into.sizes())
        unsupported("out variants with resizing on graph inputs",
                    "Dynamo does not support resizing an out= tensor in the graph: its shape differs from the result's.", {}, call);
    if (!tensor::canCast(value.dtype(), into.dtype()) || value.device() != into.device())
        unsupported("out= op with an incompatible output", "The out= tensor cannot hold the result (its dtype or device differs).", {}, call);
    return callTensorOp(NodeOp::CallMethod, "copy_", {out, result}, {}, vm::Value(), CallKind::Callable);
}

}  // namespace eng::capture
