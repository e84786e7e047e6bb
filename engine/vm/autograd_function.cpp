// torch.autograd.Function: the classes written in the subset (FunctionCtx, Function.apply running forward under
// no_grad), and `_autograd_function._record`, which makes the outputs the results of one autograd node whose backward
// calls the class's Python backward with the saved tensors, as PyTorch's custom Function node does.
#include <fmt/format.h>

#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/node.h"
#include "vm/errors.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kAutogradFunction = R"PY(
import torch
import _autograd_function


class FunctionCtx:
    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, torch.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument " + str(tensors.index(t)) +
                                " is of type " + type(t).__name__)
        self.to_save = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class Function:
    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom autograd.Function "
                                  "to use it with backward mode AD.")

    # Not a frame Dynamo compiles (torch's own code); the forward and backward it calls are user frames.
    @classmethod
    @torch.compiler.disable
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        grad_on = torch.is_grad_enabled()
        needs = []
        for a in args:  # a loop, not a comprehension: a comprehension is a frame of its own, which Dynamo would compile
            needs.append(grad_on and isinstance(a, torch.Tensor) and a.requires_grad)
        ctx.needs_input_grad = tuple(needs)
        with torch.no_grad():
            if cls.setup_context is Function.setup_context:
                output = cls.forward(ctx, *args, **kwargs)
            else:
                output = cls.forward(*args, **kwargs)
        if cls.setup_context is not Function.setup_context:
            cls.setup_context(ctx, args, output)
        return _autograd_function._record(cls, ctx, args, output)


def once_differentiable(fn):
    def wrapper(ctx, *args):
        with torch.no_grad():
            return fn(ctx, *args)

    return wrapper
)PY";

// torch.utils.checkpoint: the non-reentrant checkpoint gives exactly the values and gradients of calling the function
// (what it changes is memory: the activations are recomputed in the backward); here they are kept, as a plain call.
const char* kCheckpoint = R"PY(
import torch


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    if use_reentrant is None or use_reentrant:
        raise NotImplementedError("cwb: torch.utils.checkpoint.checkpoint with use_reentrant=True (the default) is not supported "
                                  "yet; pass use_reentrant=False")
    if context_fn is not None:
        raise NotImplementedError("cwb: torch.utils.checkpoint.checkpoint with a context_fn is not supported yet")
    return function(*args, **kwargs)
)PY";

Value noneOr(const tensor::Tensor& t) { return t.defined() ? makeTensor(t) : Value(); }

ValueList itemsOf(Interpreter& vm, const Value& v) {
    if (v.is(Kind::Tuple) || v.is(Kind::List)) return vm.toList(v);
    return {v};
}

/// The tensors a ctx attribute lists (ctx.to_save, ctx.non_differentiable), None kept as undefined.
std::vector<tensor::Tensor> tensorsOfAttribute(Interpreter& vm, const Value& ctx, const std::string& name) {
    std::vector<tensor::Tensor> out;
    std::optional<Value> listed = vm.findAttr(ctx, name);
    if (!listed) return out;
    for (const Value& item : itemsOf(vm, *listed)) out.push_back(item.is(Kind::Tensor) ? item.as<TensorObject>().value : tensor::Tensor());
    return out;
}

/// What the backward node keeps of one forward call: how arguments map to the node's inputs, outputs to its
/// outputs, and the outputs that take no gradient (their backward argument is zeros, as PyTorch materialises it).
struct FunctionCall {
    std::string name;
    Value cls;
    Value ctx;
    std::vector<int> inputOfArg;   // per forward argument: its index among the node's inputs, or -1
    std::vector<int> outputOfItem; // per forward output: its index among the node's outputs, or -1
    std::vector<tensor::Tensor> constantOutputs;  // per forward output: a tensor that takes no gradient, else undefined
};

std::vector<tensor::Tensor> runBackward(Interpreter& vm, const FunctionCall& call, const tensor::autograd::BackwardContext& bc) {
    ValueList saved;
    for (const tensor::Tensor& s : bc.saved) saved.push_back(noneOr(s));
    call.ctx.as<InstanceObject>().attributes["saved_tensors"] = makeTuple(std::move(saved));
    ValueList arguments{call.ctx};
    for (size_t k = 0; k < call.outputOfItem.size(); ++k) {
        if (call.outputOfItem[k] >= 0) arguments.push_back(noneOr(bc.grads[call.outputOfItem[k]]));
        else if (call.constantOutputs[k].defined()) arguments.push_back(callOp("torch.zeros_like", {makeTensor(call.constantOutputs[k])}));
        else arguments.push_back(Value());
    }
    ValueList grads = itemsOf(vm, vm.call(vm.getAttr(call.cls, "backward"), std::move(arguments)));
    const size_t expected = call.inputOfArg.size();
    while (grads.size() > expected && grads.back().isNone()) grads.pop_back();  // extra trailing Nones are allowed
    if (grads.size() != expected)
        raise("RuntimeError", fmt::format("function {} returned an incorrect number of gradients (expected {}, got {})", call.name, expected, grads.size()));
    std::vector<tensor::Tensor> out(bc.needsInputGrad.size());
    for (size_t i = 0; i < expected; ++i) {
        if (grads[i].isNone()) continue;
        if (call.inputOfArg[i] < 0)
            raise("RuntimeError", fmt::format("function {} returned a gradient different than None at position {}, but the corresponding "
                                              "forward input was not a Variable", call.name, i + 1));
        if (!grads[i].is(Kind::Tensor))
            typeError(fmt::format("function {} returned a gradient that is not a Tensor at position {}", call.name, i + 1));
        out[call.inputOfArg[i]] = grads[i].as<TensorObject>().value;
    }
    return out;
}

/// `_record(cls, ctx, args, output)`: the forward's outputs become the results of one node over the tensor
/// arguments (when grad mode is on and one of them requires grad); an output that is an input is returned as a new
/// alias of it, so that it gets the node, as PyTorch returns a view of it.
Value recordFunction(Interpreter& vm, CallArgs& a) {
    FunctionCall call;
    call.cls = a.positional.at(0);
    call.ctx = a.positional.at(1);
    const ValueList args = vm.toList(a.positional.at(2));
    Value output = a.positional.at(3);
    std::vector<tensor::Tensor> saved = tensorsOfAttribute(vm, call.ctx, "to_save");
    call.ctx.as<InstanceObject>().attributes.erase("to_save");  // kept by the node only (no cycle through ctx)
    std::vector<tensor::Tensor> inputs;
    bool anyRequiresGrad = false;
    for (const Value& arg : args) {
        call.inputOfArg.push_back(arg.is(Kind::Tensor) ? static_cast<int>(inputs.size()) : -1);
        if (!arg.is(Kind::Tensor)) continue;
        inputs.push_back(arg.as<TensorObject>().value);
        anyRequiresGrad = anyRequiresGrad || inputs.back().requiresGrad();
    }
    if (!tensor::autograd::isGradEnabled() || !anyRequiresGrad) return output;
    if (vm.findAttr(call.ctx, "dirty_tensors"))
        raise("NotImplementedError", "cwb: an autograd.Function whose forward calls ctx.mark_dirty (an input changed in place) is not supported yet");
    const bool single = !output.is(Kind::Tuple) && !output.is(Kind::List);
    ValueList items = itemsOf(vm, output);
    const std::vector<tensor::Tensor> constant = tensorsOfAttribute(vm, call.ctx, "non_differentiable");
    std::vector<tensor::Tensor> outputs;
    for (Value& item : items) {
        call.outputOfItem.push_back(-1);
        call.constantOutputs.emplace_back();
        if (!item.is(Kind::Tensor)) continue;
        tensor::Tensor t = item.as<TensorObject>().value;
        bool differentiable = true;
        for (const tensor::Tensor& c : constant) differentiable = differentiable && !(c.defined() && c.isSameTensor(t));
        if (!differentiable) {
            call.constantOutputs.back() = t;
            continue;
        }
        for (const tensor::Tensor& input : inputs)
            if (input.isSameTensor(t)) {
                t = tensor::autograd::detached(t);
                item = makeTensor(t);
                break;
            }
        call.outputOfItem.back() = static_cast<int>(outputs.size());
        outputs.push_back(t);
    }
    call.name = call.cls.as<ClassObject>().name + "Backward";
    const std::string name = call.name;
    Interpreter* interpreter = &vm;
    tensor::autograd::recordOp(name, inputs, outputs, saved, [interpreter, call = std::move(call)](const tensor::autograd::BackwardContext& bc) {
        return runBackward(*interpreter, call, bc);
    });
    if (single) return items.front();
    return output.is(Kind::List) ? makeList(std::move(items)) : makeTuple(std::move(items));
}

}  // namespace

const char* autogradFunctionPolyfillSource() { return kAutogradFunction; }

const char* torchUtilsPolyfillSource(const std::string& module) {
    if (module == "torch.utils") return "import torch\n";
    return module == "torch.utils.checkpoint" ? kCheckpoint : nullptr;
}

void installAutogradFunction(Interpreter& vm) {
    auto module = std::make_shared<ModuleObject>("_autograd_function");
    vm.modules()["_autograd_function"] = Value(module);
    module->attributes["_record"] = makeNative("_record", recordFunction);
}

}  // namespace eng::vm
