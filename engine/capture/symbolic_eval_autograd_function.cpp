// torch.autograd.Function.apply during capture: one graph node that calls `Cls.apply` when the graph runs, so its
// forward runs under no_grad and its outputs get the class's own backward (eager autograd, or AOT Autograd's joint
// graph, which records that backward's ops, engine/aot/recorded_derivative.cpp), as Dynamo puts the forward in the
// graph and the backward in the AOT backward. The call runs once more while tracing (for its example values), so
// forward and backward must be free of side effects outside their ctx; one that is not breaks the graph with
// Dynamo's "HOP: Unsafe side effect". torch.func.grad / grad_and_value of a function free of side effects are
// recorded the same way: one node running the transform (Dynamo traces them into the graph).
#include <fmt/format.h>

#include <set>

#include "capture/symbolic_eval.h"

namespace eng::capture {

namespace {

using frontend::Opcode;

/// The builtins a forward or backward may call: they read their arguments only.
const std::set<std::string> kPureBuiltins = {"len",   "range", "isinstance", "tuple", "list", "float", "int", "bool", "min",
                                             "max",   "abs",   "zip",        "enumerate", "sum", "any", "all", "type", "dict",
                                             "str",   "round", "pow", "getattr",    "hasattr", "super", "NotImplementedError",
                                             "ValueError", "RuntimeError", "TypeError", "None"};

/// Why running `code` (a forward, backward or setup_context, with its nested functions) may change state outside
/// its ctx argument; nullopt when it only computes from its arguments: it stores no global, cell, item or attribute
/// of anything but its first argument, calls no in-place tensor method (`add_`) and reads no global but modules,
/// classes, numbers, strings, tensors and pure builtins (a user function might have effects).
std::optional<std::string> sideEffectOf(vm::Interpreter& vm, const frontend::CodeObject& code, const vm::Namespace& globals) {
    for (size_t i = 0; i < code.instructions.size(); ++i) {
        const frontend::Instruction& in = code.instructions[i];
        switch (in.opcode) {
            case Opcode::StoreGlobal:
            case Opcode::DeleteGlobal: return fmt::format("the global `{}`", code.names.at(in.arg));
            case Opcode::StoreDeref:
            case Opcode::DeleteDeref: return "a variable of an enclosing function";
            case Opcode::StoreSubscr:
            case Opcode::DeleteSubscr: return "an item of a container or tensor";
            case Opcode::StoreAttr:
            case Opcode::DeleteAttr: {
                const bool ofCtx = i > 0 && code.instructions[i - 1].opcode == Opcode::LoadFast && code.instructions[i - 1].arg == 0;
                if (!ofCtx) return fmt::format("the attribute `{}` of an object other than ctx", code.names.at(in.arg));
                break;
            }
            default: break;
        }
    }
    for (const std::string& name : code.names) {
        if (name.size() > 1 && name.back() == '_' && name.front() != '_') return fmt::format("a tensor in place (`{}`)", name);
        if (auto global = globals.find(name); global != globals.end()) {
            // Reading a global is no effect (it is read live when the graph runs); calling one might have any.
            const vm::Value& v = global->second;
            const bool inert = v.isNone() || v.is(vm::Kind::Module) || v.is(vm::Kind::Class) || v.is(vm::Kind::Int) || v.is(vm::Kind::Float) ||
                               v.is(vm::Kind::Bool) || v.is(vm::Kind::Str) || v.is(vm::Kind::Tensor);
            if (!inert) return fmt::format("whatever the global `{}` changes when called", name);
        } else if (vm.builtins().contains(name) && !kPureBuiltins.contains(name)) {
            return fmt::format("whatever the builtin `{}` changes", name);
        }
    }
    for (const frontend::Constant& constant : code.constants)
        if (const auto* nested = std::get_if<std::shared_ptr<const frontend::CodeObject>>(&constant.value))
            if (std::optional<std::string> effect = sideEffectOf(vm, **nested, globals)) return effect;
    return std::nullopt;
}

/// The Function base class of torch.autograd.function, once that module is loaded.
std::shared_ptr<vm::ClassObject> functionBase(vm::Interpreter& vm) {
    auto module = vm.modules().find("torch.autograd.function");
    if (module == vm.modules().end() || !module->second.is(vm::Kind::Module)) return nullptr;
    const auto& attributes = module->second.as<vm::ModuleObject>().attributes;
    auto base = attributes.find("Function");
    return base != attributes.end() && base->second.is(vm::Kind::Class) ? base->second.ref<vm::ClassObject>() : nullptr;
}

bool fromModule(const vm::Namespace& globals, const std::string& module) {
    auto name = globals.find("__name__");
    return name != globals.end() && name->second.is(vm::Kind::Str) && name->second.str() == module;
}

/// Breaks the graph when `function` (forward, backward, or the function a torch.func transform differentiates) may
/// have side effects: it runs again each time the graph runs, and once while tracing.
void requireNoSideEffect(Tracer& tracer, const vm::Value& function, const std::string& owner, const std::string& context) {
    if (!function.is(vm::Kind::Function))
        tracer.unsupported("HOP: Unsafe side effect", fmt::format("`{}` is not a Python function cwb can check for side effects.", owner), {},
                           context);
    const auto& fn = function.as<vm::FunctionObject>();
    if (std::optional<std::string> effect = sideEffectOf(tracer.vm(), *fn.code, *fn.globals))
        tracer.unsupported("HOP: Unsafe side effect", "Mutating a variable from outside the scope of this HOP is not supported.",
                           {fmt::format("`{}` may change {}: cwb runs it when the graph runs, so it must only compute from its "
                                        "arguments.", owner, *effect)},
                           fmt::format("Attempted to mutate {} in {}", *effect, owner));
}

/// torch.func.grad(f) / grad_and_value(f) with constant arguments: the transform object, made at trace time (a
/// constant of the trace); a call of one: one graph node running it, when `f` has no side effects.
std::optional<VarRef> callFuncTransform(Tracer& tracer, const VarRef& callable, const std::vector<VarRef>& args,
                                        const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    const vm::Value& value = callable->value;
    if (value.is(vm::Kind::Function) && fromModule(*value.as<vm::FunctionObject>().globals, "torch.func")) {
        const std::string& name = value.as<vm::FunctionObject>().code->name;
        if (name != "grad" && name != "grad_and_value") return std::nullopt;
        vm::ValueList values;
        for (const VarRef& a : args) {
            if (!tracer.isConstant(a)) return std::nullopt;
            values.push_back(tracer.exampleOf(a));
        }
        vm::KwArgs keywords;
        for (const auto& [key, a] : kwargs) {
            if (!tracer.isConstant(a)) return std::nullopt;
            keywords.emplace_back(key, tracer.exampleOf(a));
        }
        return tracer.constant(tracer.vm().call(value, std::move(values), std::move(keywords)));
    }
    if (!value.is(vm::Kind::Instance)) return std::nullopt;
    const auto& instance = value.as<vm::InstanceObject>();
    if (instance.cls->module != "torch.func" || instance.cls->name != "_GradTransform") return std::nullopt;
    const bool withValue = instance.attributes.at("with_value").asBool();
    const std::string api = withValue ? "torch.func.grad_and_value" : "torch.func.grad";
    requireNoSideEffect(tracer, instance.attributes.at("func"), fmt::format("the function {} differentiates", api), api);
    for (const VarRef& a : args)
        if (a->kind != Variable::Kind::Tensor && !tracer.isConstant(a))
            tracer.unsupported("HOP: Unsafe side effect", fmt::format("cwb passes only tensors and constants to {} in a graph.", api), {}, api);
    return tracer.callTensorOp(NodeOp::CallFunction, api, args, kwargs, value, CallKind::Callable);
}

/// A torch.library.custom_op: one node calling the op (its eager body, or its autograd.Function once
/// register_autograd gave it one), named as Dynamo's graph names it, torch.ops.<namespace>.<name>.default.
std::optional<VarRef> callCustomOp(Tracer& tracer, const VarRef& callable, const std::vector<VarRef>& args,
                                   const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    const vm::Value& value = callable->value;
    if (!value.is(vm::Kind::Instance)) return std::nullopt;
    const auto& instance = value.as<vm::InstanceObject>();
    auto qualname = instance.attributes.find("_qualname");
    if (instance.cls->module != "torch.library" || instance.cls->name != "CustomOpDef" || qualname == instance.attributes.end()) return std::nullopt;
    const std::string& name = qualname->second.str();
    const size_t colons = name.find("::");
    const std::string target = colons == std::string::npos ? name : name.substr(0, colons) + "." + name.substr(colons + 2);
    for (const VarRef& a : args)
        if (a->kind != Variable::Kind::Tensor && !tracer.isConstant(a))
            tracer.unsupported("Unsupported custom op argument", "cwb passes only tensors and constants to a custom op in a graph.", {}, target);
    if (callable->source) tracer.guardValue(callable);
    return tracer.callTensorOp(NodeOp::CallFunction, "torch.ops." + target + ".default", args, kwargs, value, CallKind::Callable);
}

}  // namespace

std::optional<VarRef> callAutogradFunction(Tracer& tracer, const VarRef& callable, const std::vector<VarRef>& args,
                                           const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    if (std::optional<VarRef> transformed = callFuncTransform(tracer, callable, args, kwargs)) return transformed;
    if (std::optional<VarRef> op = callCustomOp(tracer, callable, args, kwargs)) return op;
    // `Cls.apply` is a bound method, or the method with its class as the call's receiver (a method load).
    vm::Value value = callable->value;
    vm::Value clsValue;
    if (value.is(vm::Kind::BoundMethod)) clsValue = value.as<vm::BoundMethodObject>().self;
    else if (callable->self) clsValue = callable->self->value;
    if (!clsValue.is(vm::Kind::Class)) return std::nullopt;
    const vm::Value apply = value.is(vm::Kind::BoundMethod) ? value.as<vm::BoundMethodObject>().function : value;
    if (!apply.is(vm::Kind::Function) || apply.as<vm::FunctionObject>().code->name != "apply") return std::nullopt;
    vm::Interpreter& vm = tracer.vm();
    const std::shared_ptr<vm::ClassObject> base = functionBase(vm);
    const auto& cls = clsValue.as<vm::ClassObject>();
    if (!base || !cls.isSubclassOf(*base) || &cls == base.get()) return std::nullopt;
    for (const vm::ClassObject* c : cls.mro()) {
        if (c == base.get()) break;
        if (c->dict.contains("apply")) return std::nullopt;  // a class's own apply is traced like any method
    }
    value = vm.getAttr(clsValue, "apply");  // what the graph calls: the method bound to the class

    const std::string context = fmt::format("{}.apply", cls.name);
    for (const char* method : {"forward", "backward", "setup_context"})
        requireNoSideEffect(tracer, vm.getAttr(clsValue, method), fmt::format("{}.{}", cls.name, method), context);
    for (const VarRef& a : args)
        if (a->kind != Variable::Kind::Tensor && !tracer.isConstant(a))
            tracer.unsupported("HOP: Unsafe side effect", "cwb passes only tensors and constants to an autograd.Function in a graph.", {},
                               context);
    return tracer.callTensorOp(NodeOp::CallFunction, fmt::format("{}.{}.apply", cls.module, cls.name), args, kwargs, value, CallKind::Callable);
}

}  // namespace eng::capture
