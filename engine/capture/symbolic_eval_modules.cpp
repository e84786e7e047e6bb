// nn.Modules in the trace (Dynamo's nn_module.py with inline_inbuilt_nn_modules): a submodule called in the frame
// runs the forward pre-hooks and hooks it holds at trace time around its forward, inlined as Dynamo inlines
// Module._call_impl (hooks are not guarded: Dynamo's skip_nnmodule_hook_guards); children()/parameters()/... and
// ModuleDict's keys()/values()/items() are the module's members with their sources; Python dunders of a module
// class (ParameterDict's __getitem__, a user container's __iter__) are inlined.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "capture/symbolic_eval.h"

namespace eng::capture {

using KwVars = std::vector<std::pair<std::string, VarRef>>;

namespace {

/// The `name` of a structural Module method read from a traced module (the method's name follows it).
constexpr std::string_view kModuleMethod = "<nn.Module method>.";

bool isModule(Tracer& tracer, const vm::Value& v) {
    return v.is(vm::Kind::Instance) && tracer.vm().isInstance(v, *tracer.vm().builtinClass("Module"));
}

/// The (id, hook) pairs of one of the module's hook dicts (nn_module_hooks.cpp keeps them under PyTorch's names).
std::vector<vm::DictObject::Entry> hooksOf(const vm::InstanceObject& module, const char* name) {
    auto it = module.attributes.find(name);
    if (it == module.attributes.end() || !it->second.is(vm::Kind::Dict)) return {};
    return it->second.as<vm::DictObject>().entries();
}

bool flagged(const vm::InstanceObject& module, const char* name, const vm::Value& id) {
    auto it = module.attributes.find(name);
    return it != module.attributes.end() && it->second.is(vm::Kind::Dict) && it->second.as<vm::DictObject>().find(id);
}

bool isNoneConstant(Tracer& tracer, const VarRef& v) { return v->kind == Variable::Kind::Python && !v->source && v->value.isNone() && tracer.isConstant(v); }

VarRef kwargsDict(const KwVars& kwargs) {
    std::vector<VarRef> items;
    std::vector<vm::Value> keys;
    for (const auto& [key, value] : kwargs) {
        keys.push_back(vm::makeStr(key));
        items.push_back(value);
    }
    VarRef dict = container(Variable::Kind::Dict, std::move(items));
    dict->keys = std::move(keys);
    return dict;
}

/// The module's direct members of one kind in registration order, each read through the trace (so it keeps its
/// source, `L['self']._modules['l1']`, and a parameter is a graph input).
std::vector<std::pair<std::string, VarRef>> members(Tracer& tracer, TraceFrame& frame, const VarRef& module,
                                                     std::vector<std::string> vm::InstanceObject::*order) {
    std::vector<std::pair<std::string, VarRef>> out;
    const auto& instance = module->value.as<vm::InstanceObject>();
    for (const std::string& name : instance.*order) {
        auto it = instance.attributes.find(name);
        if (it == instance.attributes.end() || it->second.isNone()) continue;
        out.emplace_back(name, tracer.getAttr(frame, module, name));
    }
    return out;
}

/// named_modules() / named_parameters() / named_buffers() walked as PyTorch walks them: a module's own members,
/// then each child's under its prefix; a tensor or module reached twice is listed once.
void walk(Tracer& tracer, TraceFrame& frame, const VarRef& module, const std::string& prefix, const std::string& what, bool recurse,
          std::vector<std::pair<std::string, VarRef>>& out, std::vector<const vm::Object*>& seen) {
    auto once = [&](const std::string& name, const VarRef& v) {
        // A tensor read from a source computes on a private copy: the real object tells shared parameters apart.
        const vm::Value& real = v->original.isNone() || v->original.isNull() ? v->value : v->original;
        if (std::find(seen.begin(), seen.end(), real.object().get()) != seen.end()) return;
        seen.push_back(real.object().get());
        out.emplace_back(name, v);
    };
    if (what == "modules") once(prefix, module);
    if (what == "parameters" || what == "buffers")
        for (const auto& [name, v] : members(tracer, frame, module, what == "parameters" ? &vm::InstanceObject::parameterOrder : &vm::InstanceObject::bufferOrder))
            once(prefix.empty() ? name : prefix + "." + name, v);
    if (!recurse) return;
    for (const auto& [name, child] : members(tracer, frame, module, &vm::InstanceObject::moduleOrder))
        walk(tracer, frame, child, prefix.empty() ? name : prefix + "." + name, what, true, out, seen);
}

}  // namespace

bool inlinesDunder(Tracer& tracer, const VarRef& v, const std::string& name) {
    if (tracer.isUserInstance(v)) return true;
    if (v->kind != Variable::Kind::Python || !isModule(tracer, v->value)) return false;
    std::optional<vm::Value> method = v->value.as<vm::InstanceObject>().cls->lookup(name);
    return method && method->is(vm::Kind::Function);
}

std::optional<VarRef> moduleMethod(Tracer& tracer, const VarRef& module, const std::string& name, const vm::Value& value) {
    static const std::set<std::string> structural = {"children", "named_children", "modules", "named_modules", "parameters",
                                                     "named_parameters", "buffers", "named_buffers", "keys", "values", "items"};
    if (!isModule(tracer, module->value) || !value.is(vm::Kind::BoundMethod) || !value.as<vm::BoundMethodObject>().function.is(vm::Kind::Native) ||
        !structural.contains(name))
        return std::nullopt;
    auto method = std::make_shared<Variable>();
    method->kind = Variable::Kind::Python;
    method->value = value;
    method->self = module;
    method->name = std::string(kModuleMethod) + name;
    return method;
}

std::optional<VarRef> callModuleMethod(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                                       const KwVars& kwargs) {
    if (callable->kind != Variable::Kind::Python || !callable->self || !callable->name.starts_with(kModuleMethod)) return std::nullopt;
    const VarRef& module = callable->self;
    const std::string name = callable->name.substr(kModuleMethod.size());
    // Arguments: prefix and recurse (named_*), recurse (parameters/buffers); constants only, as PyTorch's are.
    std::string prefix;
    bool recurse = true;
    for (size_t i = 0; i < args.size() + kwargs.size(); ++i) {
        const VarRef& a = i < args.size() ? args[i] : kwargs[i - args.size()].second;
        const std::string key = i < args.size() ? ((name.rfind("named_", 0) == 0 && i == 0) ? "prefix" : "recurse") : kwargs[i - args.size()].first;
        if (!tracer.isConstant(a))
            tracer.unsupported("Unsupported method call", fmt::format("Dynamo does not trace `Module.{}` with a traced argument.", name), {}, "call_method " + name);
        tracer.argOf(a);
        const vm::Value v = tracer.exampleOf(a);
        if (key == "prefix") prefix = v.str();
        else if (key == "recurse") recurse = tracer.vm().truthy(v);
    }
    const bool named = name.rfind("named_", 0) == 0;
    std::vector<std::pair<std::string, VarRef>> found;
    if (name == "children" || name == "named_children" || name == "keys" || name == "values" || name == "items") {
        found = members(tracer, frame, module, &vm::InstanceObject::moduleOrder);
    } else {
        std::vector<const vm::Object*> seen;
        const std::string what = name.substr(named ? 6 : 0);
        walk(tracer, frame, module, prefix, what, recurse || what == "modules", found, seen);
    }
    std::vector<VarRef> items;
    for (const auto& [key, v] : found) {
        if (name == "keys") items.push_back(tracer.constant(vm::makeStr(key)));
        else if (named || name == "items") items.push_back(container(Variable::Kind::Tuple, {tracer.constant(vm::makeStr(key)), v}));
        else items.push_back(v);
    }
    // ModuleDict's views are lists here; the others are generators in PyTorch, iterators here.
    const bool view = name == "keys" || name == "values" || name == "items";
    return container(view ? Variable::Kind::List : Variable::Kind::Iterator, std::move(items));
}

VarRef callModuleWithHooks(Tracer& tracer, TraceFrame& frame, const VarRef& module, std::vector<VarRef> args, KwVars kwargs,
                           const std::function<VarRef(std::vector<VarRef>, KwVars)>& forward) {
    const auto& instance = module->value.as<vm::InstanceObject>();
    if (tracer.options().guardModuleHooks && module->source)
        // skip_nnmodule_hook_guards=False: the hook dicts Module._call_impl reads, in its order, are guarded by their
        // length (Dynamo's EMPTY_NN_MODULE_HOOKS_DICT becomes a length guard) and each hook by identity, so
        // registering or removing a hook after the compile recompiles.
        for (const char* name : {"_backward_hooks", "_backward_pre_hooks", "_forward_hooks", "_forward_pre_hooks"}) {
            // The VM makes a hook dict on first registration; an empty one now is the same module, with a dict to guard.
            vm::Value& dict = module->value.as<vm::InstanceObject>().attributes[name];
            if (!dict.is(vm::Kind::Dict)) dict = vm::Value(std::make_shared<vm::DictObject>());
            const SourceRef dictSource = Source::child(module->source, Source::Kind::Attr, name);
            tracer.guardValue(tracer.wrapSource(dict, dictSource));
            for (const auto& [id, hook] : dict.as<vm::DictObject>().entries())
                tracer.guardValue(tracer.wrapSource(hook, Source::dictItem(dictSource, id)));
        }
    // Dynamo's BackwardHookVariable: a module's full backward (pre-)hooks are traced only under compiled autograd.
    if (!hooksOf(instance, "_backward_hooks").empty() || !hooksOf(instance, "_backward_pre_hooks").empty())
        tracer.unsupported("Module-level backwards hooks require compiled autograd.", "",
                           {"Enable compiled autograd by setting torch._dynamo.config.compiled_autograd = True."}, "", 83);
    const auto preHooks = hooksOf(instance, "_forward_pre_hooks");
    const auto hooks = hooksOf(instance, "_forward_hooks");
    if (preHooks.empty() && hooks.empty()) return forward(std::move(args), std::move(kwargs));
    for (const auto& [id, hook] : preHooks) {
        VarRef inputs = container(Variable::Kind::Tuple, args);
        if (flagged(instance, "_forward_pre_hooks_with_kwargs", id)) {
            VarRef result = tracer.callFunction(frame, tracer.constant(hook), {module, inputs, kwargsDict(kwargs)}, {});
            if (isNoneConstant(tracer, result)) continue;
            std::vector<VarRef> pair = result->kind == Variable::Kind::Tuple ? tracer.unpack(result) : std::vector<VarRef>{};
            if (pair.size() != 2 || pair[1]->kind != Variable::Kind::Dict)
                tracer.unsupported("Unsupported forward pre-hook", "A forward pre-hook with kwargs must return None or a tuple of (new_args, new_kwargs).",
                                   {}, "call_function forward pre-hook");
            args = tracer.unpack(pair[0]);
            kwargs.clear();
            for (size_t i = 0; i < pair[1]->keys.size(); ++i) kwargs.emplace_back(pair[1]->keys[i].str(), pair[1]->items[i]);
            continue;
        }
        VarRef result = tracer.callFunction(frame, tracer.constant(hook), {module, inputs}, {});
        if (isNoneConstant(tracer, result)) continue;
        args = result->kind == Variable::Kind::Tuple ? tracer.unpack(result) : std::vector<VarRef>{result};
    }
    const VarRef inputs = container(Variable::Kind::Tuple, args);
    const VarRef inputKwargs = kwargsDict(kwargs);
    VarRef output = forward(std::move(args), std::move(kwargs));
    for (const auto& [id, hook] : hooks) {
        VarRef result = flagged(instance, "_forward_hooks_with_kwargs", id)
                            ? tracer.callFunction(frame, tracer.constant(hook), {module, inputs, inputKwargs, output}, {})
                            : tracer.callFunction(frame, tracer.constant(hook), {module, inputs, output}, {});
        if (!isNoneConstant(tracer, result)) output = result;
    }
    return output;
}

}  // namespace eng::capture
