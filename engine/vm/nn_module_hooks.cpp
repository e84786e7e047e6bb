// nn.Module's forward hooks: register_forward_pre_hook / register_forward_hook (prepend, with_kwargs,
// always_call) with torch.utils.hooks.RemovableHandle, and Module.__call__ running them around forward as
// Module._call_impl does; register_full_backward_pre_hook / register_full_backward_hook, run from identity autograd
// nodes around the module's tensor inputs and outputs as torch.utils.hooks.BackwardHook does. The hooks live in the
// module's own dicts under PyTorch's names (`_forward_hooks`, `_backward_hooks`, ...).
#include <fmt/core.h>

#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/node.h"
#include "vm/errors.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

constexpr const char* kPreHooks = "_forward_pre_hooks";
constexpr const char* kPreHooksWithKwargs = "_forward_pre_hooks_with_kwargs";
constexpr const char* kHooks = "_forward_hooks";
constexpr const char* kHooksWithKwargs = "_forward_hooks_with_kwargs";
constexpr const char* kHooksAlwaysCalled = "_forward_hooks_always_called";
constexpr const char* kBackwardHooks = "_backward_hooks";
constexpr const char* kBackwardPreHooks = "_backward_pre_hooks";

/// The module's hook dict `name`, made on first use.
DictObject& hookDict(InstanceObject& module, const char* name) {
    Value& slot = module.attributes[name];
    if (!slot.is(Kind::Dict)) slot = Value(std::make_shared<DictObject>());
    return slot.as<DictObject>();
}

/// The module's hook dict `name`, or null when it has none.
const DictObject* findHookDict(const InstanceObject& module, const char* name) {
    auto it = module.attributes.find(name);
    return it != module.attributes.end() && it->second.is(Kind::Dict) ? &it->second.as<DictObject>() : nullptr;
}

bool flagged(const InstanceObject& module, const char* name, const Value& id) {
    const DictObject* dict = findHookDict(module, name);
    return dict && const_cast<DictObject*>(dict)->find(id);
}

/// A keyword-only flag of a register_* call.
bool keywordFlag(Interpreter& vm, CallArgs& a, const char* name) {
    std::optional<Value> v = a.take(name);
    return v && vm.truthy(*v);
}

/// register_forward_pre_hook / register_forward_hook: the hook under a fresh id, its flags beside it, and the
/// handle that removes it from all of them.
Value registerHook(Interpreter& vm, CallArgs& a, const char* hooksName, const char* withKwargsName, bool forwardHook) {
    if (a.positional.size() != 2) typeError(fmt::format("register hook takes 1 positional argument but {} were given", a.positional.size() - 1));
    auto& module = a.positional[0].as<InstanceObject>();
    const bool prepend = keywordFlag(vm, a, "prepend");
    const bool withKwargs = withKwargsName && keywordFlag(vm, a, "with_kwargs");
    const bool alwaysCall = forwardHook && keywordFlag(vm, a, "always_call");
    if (!a.keywords.empty()) typeError(fmt::format("register hook got an unexpected keyword argument '{}'", a.keywords.front().first));

    auto handleClass = vm.builtinClass("RemovableHandle");
    Value& nextId = handleClass->dict["next_id"];
    const Value id(nextId.asInt());
    nextId = Value(nextId.asInt() + 1);

    DictObject& hooks = hookDict(module, hooksName);
    hooks.set(id, a.positional[1]);
    if (prepend) hooks.moveToEnd(id, false);
    ValueList dicts{module.attributes.at(hooksName)};
    if (withKwargs) {
        hookDict(module, withKwargsName).set(id, Value(true));
        dicts.push_back(module.attributes.at(withKwargsName));
    }
    if (alwaysCall) {
        hookDict(module, kHooksAlwaysCalled).set(id, Value(true));
        dicts.push_back(module.attributes.at(kHooksAlwaysCalled));
    }
    auto handle = std::make_shared<InstanceObject>(handleClass);
    handle->attributes["id"] = id;
    handle->attributes["hooks_dict_ref"] = makeList(std::move(dicts));
    return Value(handle);
}

/// The (id, hook) pairs of one of the module's hook dicts, copied: a hook may remove itself while they run.
std::vector<DictObject::Entry> hooksOf(const InstanceObject& module, const char* name) {
    const DictObject* dict = findHookDict(module, name);
    return dict ? dict->entries() : std::vector<DictObject::Entry>{};
}

/// One call's backward hooks (read when the module was called, as BackwardHook keeps them) and the gradients of its
/// outputs, which the input node's hooks receive as grad_output.
struct BackwardHookCall {
    Value module;
    ValueList preHooks;
    ValueList hooks;
    size_t tensorInputs = 0;
    Value gradOutputs;
    bool inputsWrapped = false;
};

ValueList hookValues(const InstanceObject& module, const char* name) {
    ValueList out;
    for (const auto& [id, hook] : hooksOf(module, name)) out.push_back(hook);
    return out;
}

/// grad_input / grad_output as the hooks see them: one entry per tensor (None where no gradient flows).
Value gradTuple(const std::vector<tensor::Tensor>& grads, const std::vector<int>& slotOf, size_t size) {
    ValueList items(size);
    for (size_t i = 0; i < slotOf.size(); ++i)
        if (slotOf[i] >= 0 && grads[slotOf[i]].defined()) items[i] = makeTensor(grads[slotOf[i]]);
    return makeTuple(std::move(items));
}

/// A hook's replacement gradients, checked as BackwardHook._apply_on_tensors checks them.
Value replacedGrads(Interpreter& vm, const Value& result, size_t expected, const char* which) {
    if (result.isNone()) return result;
    ValueList items = result.is(Kind::Tuple) || result.is(Kind::List) ? vm.toList(result) : ValueList{result};
    if (items.size() != expected)
        raise("RuntimeError", fmt::format("Backward hook returned an invalid number of grad_{} , got {}, but expected {}", which, items.size(), expected));
    return makeTuple(std::move(items));
}

/// The tensors of `values` that require grad become new aliases made by one identity node whose backward runs
/// `onBackward` on the gradients of all of `values`' tensors (None for the others) and returns their replacement.
bool wrapTensors(ValueList& values, const std::function<Value(const Value& grads)>& onBackward) {
    std::vector<tensor::Tensor> inputs, outputs;
    std::vector<int> slotOf;  // per tensor of `values`: its index among the node's inputs, or -1
    std::vector<size_t> positions;
    for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i].is(Kind::Tensor)) continue;
        const tensor::Tensor& t = values[i].as<TensorObject>().value;
        positions.push_back(i);
        slotOf.push_back(t.requiresGrad() ? static_cast<int>(inputs.size()) : -1);
        if (!t.requiresGrad()) continue;
        inputs.push_back(t);
        outputs.push_back(tensor::autograd::detached(t));
    }
    if (inputs.empty()) return false;
    const size_t count = positions.size();
    tensor::autograd::recordOp("BackwardHookFunctionBackward", inputs, outputs, {},
                               [onBackward, slotOf, count](const tensor::autograd::BackwardContext& bc) {
                                   Value replaced = onBackward(gradTuple(bc.grads, slotOf, count));
                                   std::vector<tensor::Tensor> grads(bc.grads.begin(), bc.grads.end());
                                   if (replaced.isNone()) return grads;
                                   const ValueList& items = replaced.as<TupleObject>().items;
                                   for (size_t i = 0; i < slotOf.size(); ++i)
                                       if (slotOf[i] >= 0)
                                           grads[slotOf[i]] = items[i].is(Kind::Tensor) ? items[i].as<TensorObject>().value : tensor::Tensor();
                                   return grads;
                               });
    for (size_t k = 0, slot = 0; k < positions.size(); ++k)
        if (slotOf[k] >= 0) values[positions[k]] = makeTensor(outputs[slot++]);
    return true;
}

/// The full backward hooks of a call: (module, grad_input, grad_output) -> new grad_input or None.
Value runBackwardHooks(Interpreter& vm, BackwardHookCall& call, Value gradInputs) {
    for (const Value& hook : call.hooks) {
        Value result = replacedGrads(vm, vm.call(hook, {call.module, gradInputs, call.gradOutputs}), call.tensorInputs, "input");
        if (!result.isNone()) gradInputs = result;
    }
    return gradInputs;
}

}  // namespace

bool moduleHasBackwardHooks(const Value& module) {
    if (!module.is(Kind::Instance)) return false;
    for (const char* name : {kBackwardPreHooks, kBackwardHooks})
        if (const DictObject* dict = findHookDict(module.as<InstanceObject>(), name); dict && !dict->empty()) return true;
    return false;
}

bool moduleHasForwardHooks(const Value& module) {
    if (!module.is(Kind::Instance)) return false;
    const auto& instance = module.as<InstanceObject>();
    for (const char* name : {kPreHooks, kHooks})
        if (const DictObject* dict = findHookDict(instance, name); dict && !dict->empty()) return true;
    return false;
}

Value callModuleImpl(Interpreter& vm, const Value& module, CallArgs args, const std::function<Value(const Value&)>& wrap) {
    const auto& instance = module.as<InstanceObject>();
    Value forward = vm.findAttr(module, "forward").value_or(Value::null());
    if (forward.isNull())
        raise("NotImplementedError", fmt::format("Module [{}] is missing the required \"forward\" function", instance.cls->name));
    const bool backwardHooks = moduleHasBackwardHooks(module) && tensor::autograd::isGradEnabled();
    if (!moduleHasForwardHooks(module) && !backwardHooks) return vm.callArgs(wrap(forward), args);

    // Module._call_impl: pre-hooks may replace the arguments, forward hooks the result.
    auto kwargsDict = [&args] {
        auto dict = std::make_shared<DictObject>();
        for (const auto& [key, value] : args.keywords) dict->set(makeStr(key), value);
        return Value(dict);
    };
    Value positional = makeTuple(args.positional);
    for (const auto& [id, hook] : hooksOf(instance, kPreHooks)) {
        if (flagged(instance, kPreHooksWithKwargs, id)) {
            Value result = vm.call(wrap(hook), {module, positional, kwargsDict()});
            if (result.isNone()) continue;
            if (!result.is(Kind::Tuple) || result.as<TupleObject>().items.size() != 2)
                raise("RuntimeError", fmt::format("forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {}.", vm.repr(result)));
            positional = result.as<TupleObject>().items[0];
            args.keywords.clear();
            for (const auto& [key, value] : result.as<TupleObject>().items[1].as<DictObject>().entries()) args.keywords.emplace_back(vm.str(key), value);
            continue;
        }
        Value result = vm.call(wrap(hook), {module, positional});
        if (result.isNone()) continue;
        positional = result.is(Kind::Tuple) ? result : makeTuple({result});
    }
    args.positional = vm.toList(positional);
    auto backward = std::make_shared<BackwardHookCall>();
    if (backwardHooks) {
        backward->module = module;
        backward->preHooks = hookValues(instance, kBackwardPreHooks);
        backward->hooks = hookValues(instance, kBackwardHooks);
        for (const Value& v : args.positional) backward->tensorInputs += v.is(Kind::Tensor) ? 1 : 0;
        Interpreter* interpreter = &vm;
        if (!backward->hooks.empty())
            backward->inputsWrapped = wrapTensors(args.positional, [interpreter, backward](const Value& grads) {
                return runBackwardHooks(*interpreter, *backward, grads);
            });
    }
    const Value inputs = makeTuple(args.positional);
    const Value kwargs = kwargsDict();
    Value output;
    try {
        output = vm.callArgs(wrap(forward), args);
    } catch (...) {
        // Hooks registered with always_call=True run even when forward raises (their own errors are dropped).
        for (const auto& [id, hook] : hooksOf(instance, kHooks)) {
            if (!flagged(instance, kHooksAlwaysCalled, id)) continue;
            try {
                if (flagged(instance, kHooksWithKwargs, id)) vm.call(wrap(hook), {module, inputs, kwargs, Value()});
                else vm.call(wrap(hook), {module, inputs, Value()});
            } catch (...) {
            }
        }
        throw;
    }
    for (const auto& [id, hook] : hooksOf(instance, kHooks)) {
        Value result = flagged(instance, kHooksWithKwargs, id) ? vm.call(wrap(hook), {module, inputs, kwargs, output})
                                                               : vm.call(wrap(hook), {module, inputs, output});
        if (!result.isNone()) output = result;
    }
    if (!backwardHooks) return output;
    // The outputs' node: pre-hooks may replace grad_output; with no input that requires grad, the full hooks run
    // here with grad_input all None, as BackwardHook does.
    const bool single = !output.is(Kind::Tuple);
    ValueList outputs = single ? ValueList{output} : vm.toList(output);
    Interpreter* interpreter = &vm;
    wrapTensors(outputs, [interpreter, backward](const Value& grads) {
        Interpreter& m = *interpreter;
        Value gradOutputs = grads;
        for (const Value& hook : backward->preHooks) {
            Value result = replacedGrads(m, m.call(hook, {backward->module, gradOutputs}), gradOutputs.as<TupleObject>().items.size(), "output");
            if (!result.isNone()) gradOutputs = result;
        }
        backward->gradOutputs = gradOutputs;
        if (!backward->inputsWrapped && !backward->hooks.empty())
            runBackwardHooks(m, *backward, makeTuple(ValueList(backward->tensorInputs)));
        return gradOutputs;
    });
    return single ? outputs.front() : makeTuple(std::move(outputs));
}

void installModuleHooks(Interpreter& vm, ClassObject& moduleClass) {
    auto handleClass = vm.defineClass("RemovableHandle", "object");
    handleClass->module = "torch.utils.hooks";
    handleClass->dict["next_id"] = Value(int64_t{0});
    handleClass->dict["remove"] = makeNative("remove", [](Interpreter&, CallArgs& a) {
        auto& handle = a.positional.at(0).as<InstanceObject>();
        const Value id = handle.attributes.at("id");
        for (const Value& dict : handle.attributes.at("hooks_dict_ref").as<ListObject>().items) dict.as<DictObject>().erase(id);
        return Value();
    });
    handleClass->dict["__enter__"] = makeNative("__enter__", [](Interpreter&, CallArgs& a) { return a.positional.at(0); });
    handleClass->dict["__exit__"] = makeNative("__exit__", [](Interpreter& m, CallArgs& a) {
        m.call(m.getAttr(a.positional.at(0), "remove"), {});
        return Value();
    });
    moduleClass.dict["register_forward_pre_hook"] = makeNative("register_forward_pre_hook", [](Interpreter& m, CallArgs& a) {
        return registerHook(m, a, kPreHooks, kPreHooksWithKwargs, false);
    });
    moduleClass.dict["register_forward_hook"] = makeNative("register_forward_hook", [](Interpreter& m, CallArgs& a) {
        return registerHook(m, a, kHooks, kHooksWithKwargs, true);
    });
    moduleClass.dict["register_full_backward_pre_hook"] = makeNative("register_full_backward_pre_hook", [](Interpreter& m, CallArgs& a) {
        return registerHook(m, a, kBackwardPreHooks, nullptr, false);
    });
    moduleClass.dict["register_full_backward_hook"] = makeNative("register_full_backward_hook", [](Interpreter& m, CallArgs& a) {
        return registerHook(m, a, kBackwardHooks, nullptr, false);
    });
}

}  // namespace eng::vm
