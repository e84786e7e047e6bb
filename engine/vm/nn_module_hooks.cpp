// nn.Module's forward hooks: register_forward_pre_hook / register_forward_hook (prepend, with_kwargs,
// always_call) with torch.utils.hooks.RemovableHandle, and Module.__call__ running them around forward as
// Module._call_impl does. The hooks live in the module's own dicts under PyTorch's names (`_forward_hooks`, ...).
#include <fmt/core.h>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

constexpr const char* kPreHooks = "_forward_pre_hooks";
constexpr const char* kPreHooksWithKwargs = "_forward_pre_hooks_with_kwargs";
constexpr const char* kHooks = "_forward_hooks";
constexpr const char* kHooksWithKwargs = "_forward_hooks_with_kwargs";
constexpr const char* kHooksAlwaysCalled = "_forward_hooks_always_called";

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
    const bool withKwargs = keywordFlag(vm, a, "with_kwargs");
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

}  // namespace

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
    if (!moduleHasForwardHooks(module)) return vm.callArgs(wrap(forward), args);

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
    return output;
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
}

}  // namespace eng::vm
