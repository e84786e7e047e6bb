// The `torch` module as VM objects: torch.* ops and dtypes over the registry, torch.no_grad, and the
// compile surface (torch.compile, torch.compiler.*, torch._dynamo.*) whose compiled functions enter the
// interpreter's FrameHook; with no hook installed they run eagerly.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/inference_mode.h"
#include "tensor/layout.h"
#include "tensor/registry.h"
#include "vm/backend_catalog.h"
#include "vm/interpreter.h"
#include "vm/optimizer_state.h"

namespace eng::vm {

/// Module._call_impl: forward between its pre-hooks and hooks (nn_module_hooks.cpp).
Value callModuleImpl(Interpreter& vm, const Value& module, CallArgs args, const std::function<Value(const Value&)>& wrap);

namespace {

std::shared_ptr<ModuleObject> newModule(Interpreter& vm, const std::string& name, std::string prefix = "") {
    auto module = std::make_shared<ModuleObject>(name);
    module->registryPrefix = std::move(prefix);
    vm.modules()[name] = Value(module);
    return module;
}

constexpr std::pair<const char*, tensor::DType> kDTypes[] = {
    {"float32", tensor::DType::Float32}, {"float", tensor::DType::Float32},   {"float64", tensor::DType::Float64},
    {"double", tensor::DType::Float64},  {"float16", tensor::DType::Float16}, {"half", tensor::DType::Float16},
    {"bfloat16", tensor::DType::BFloat16}, {"int64", tensor::DType::Int64},   {"long", tensor::DType::Int64},
    {"int32", tensor::DType::Int32},     {"int", tensor::DType::Int32},       {"int16", tensor::DType::Int16},
    {"short", tensor::DType::Int16},     {"int8", tensor::DType::Int8},       {"uint8", tensor::DType::UInt8},
    {"bool", tensor::DType::Bool},       {"complex64", tensor::DType::Complex64}, {"cfloat", tensor::DType::Complex64},
    {"complex128", tensor::DType::Complex128}, {"cdouble", tensor::DType::Complex128},
};

BackendCatalog& installedCatalog() {
    static BackendCatalog catalog;
    return catalog;
}

/// Validates torch.compile's keyword arguments as PyTorch does and collects them.
std::shared_ptr<CompileOptions> compileOptions(Interpreter& vm, CallArgs& args) {
    auto options = std::make_shared<CompileOptions>();
    if (auto v = args.take("fullgraph")) options->fullgraph = vm.truthy(*v);
    if (auto v = args.take("dynamic"); v && !v->isNone()) options->dynamic = vm.truthy(*v);
    if (auto v = args.take("disable")) options->disable = vm.truthy(*v);
    std::optional<Value> mode = args.take("mode");
    std::optional<Value> extra = args.take("options");
    bool hasMode = mode && !mode->isNone();
    if (hasMode && extra && !extra->isNone())
        raise("RuntimeError", "Either mode or options can be specified, but both can't be specified at the same time.");
    if (hasMode) {
        const std::string& text = mode->str();
        // torch.compile names the modes in its own order, not list_mode_options'.
        const ModeOptions modes = backendCatalog().modeOptions ? backendCatalog().modeOptions("inductor") : ModeOptions{};
        if (!modes.empty() && std::none_of(modes.begin(), modes.end(), [&](const auto& m) { return m.first == text; }))
            raise("RuntimeError", fmt::format("Unrecognized mode={}, should be one of: {}", text,
                                              "default, reduce-overhead, max-autotune, max-autotune-no-cudagraphs"));
        options->mode = text;
    }
    if (extra && !extra->isNone()) {
        options->backendOptions = *extra;
        // torch.compile hands guard_filter_fn to Dynamo, and the rest of the options to the backend.
        if (extra->is(Kind::Dict)) {
            const Value key = makeStr("guard_filter_fn");
            if (const Value* filter = extra->as<DictObject>().find(key)) {
                auto rest = std::make_shared<DictObject>();
                for (const auto& [k, v] : extra->as<DictObject>().entries())
                    if (!(k.is(Kind::Str) && k.str() == "guard_filter_fn")) rest->set(k, v);
                options->guardFilterFn = *filter;
                // What is left goes to the backend; nothing left is no options at all (PyTorch's `if options:`).
                options->backendOptions = rest->entries().empty() ? Value() : Value(rest);
            }
        }
    }
    if (auto v = args.take("backend")) {
        if (v->is(Kind::Str)) {
            if (backendCatalog().exists && !backendCatalog().exists(v->str()))
                raise("InvalidBackend", fmt::format("Invalid backend: '{}', see `torch._dynamo.list_backends()` for available "
                                                    "backends.", v->str()));
            options->backend = v->str();
        } else {
            options->backend = "<callable>";
            options->backendCallable = *v;
        }
    }
    if (!args.keywords.empty())
        typeError(fmt::format("compile() got an unexpected keyword argument '{}'", args.keywords.front().first));
    if (!options->backendOptions.isNone() && backendCatalog().checkOptions) backendCatalog().checkOptions(*options);
    return options;
}

/// A copy of the function that consults the frame hook on entry: torch.compile's wrapper.
Value compiledFunction(const FunctionObject& function, std::shared_ptr<const CompileOptions> options) {
    auto wrapper = std::make_shared<FunctionObject>(function);
    wrapper->compiled = std::move(options);
    return Value(wrapper);
}

Value compileTarget(Interpreter& vm, const Value& target, std::shared_ptr<const CompileOptions> options) {
    if (target.is(Kind::Function)) return compiledFunction(target.as<FunctionObject>(), std::move(options));
    if (target.is(Kind::Instance) && vm.isInstance(target, *vm.builtinClass("Module"))) {
        auto wrapper = std::make_shared<InstanceObject>(vm.builtinClass("OptimizedModule"));
        wrapper->attributes["_orig_mod"] = target;
        wrapper->attributes["training"] = vm.getAttr(target, "training");
        wrapper->moduleOrder.push_back("_orig_mod");
        Value wrapperValue(wrapper);
        // As OptimizedModule runs the module's __call__ under Dynamo: Module._call_impl itself is skipped, so the
        // hooks it runs and forward are each compiled as frames of their own.
        wrapper->attributes["forward"] = makeNative("forward", [target, options](Interpreter& machine, CallArgs& args) {
            return callModuleImpl(machine, target, std::move(args), [&options](const Value& callable) {
                if (callable.is(Kind::Function)) return compiledFunction(callable.as<FunctionObject>(), options);
                if (callable.is(Kind::BoundMethod) && callable.as<BoundMethodObject>().function.is(Kind::Function)) {
                    auto& method = callable.as<BoundMethodObject>();
                    return Value(std::make_shared<BoundMethodObject>(method.self, compiledFunction(method.function.as<FunctionObject>(), options)));
                }
                return callable;
            });
        });
        return wrapperValue;
    }
    if (target.is(Kind::BoundMethod) && target.as<BoundMethodObject>().function.is(Kind::Function)) {
        auto& method = target.as<BoundMethodObject>();
        return Value(std::make_shared<BoundMethodObject>(method.self, compiledFunction(method.function.as<FunctionObject>(), options)));
    }
    // An optimizer's builtin step: its frame is the Python entry that calls it, whose trace captures the step.
    if (target.is(Kind::BoundMethod) && optim::algorithmOf(target.as<BoundMethodObject>().self)) {
        Value entry = vm.getAttr(vm.importModule("torch.optim.optimizer"), "step");
        return Value(std::make_shared<BoundMethodObject>(target.as<BoundMethodObject>().self, compiledFunction(entry.as<FunctionObject>(), options)));
    }
    // A @torch.no_grad() / enable_grad() / inference_mode() function: the same manager around the compiled
    // function (Dynamo traces the decorator's wrapper, entering the mode inside the frame it compiles).
    if (target.is(Kind::Native)) {
        const auto& attributes = target.as<NativeObject>().attributes;
        auto wrapped = attributes.find("__wrapped__");
        auto grad = attributes.find("grad_mode_enabled");
        if (wrapped != attributes.end() && grad != attributes.end() && wrapped->second.is(Kind::Function)) {
            Value torchModule = vm.modules().at("torch");
            auto inference = attributes.find("inference_mode");
            Value manager = inference != attributes.end()
                                ? vm.call(vm.getAttr(torchModule, "inference_mode"), {inference->second})
                                : vm.call(vm.getAttr(torchModule, grad->second.asBool() ? "enable_grad" : "no_grad"), {});
            return vm.call(manager, {compiledFunction(wrapped->second.as<FunctionObject>(), std::move(options))});
        }
    }
    // Builtins have no frames to capture: PyTorch's wrapper would only run them.
    if (target.is(Kind::BoundMethod) || target.is(Kind::Native) || target.is(Kind::Class)) return target;
    raise("RuntimeError", "torch.compile: expected a function or an nn.Module");
}

/// Grad mode lives in the tensor runtime (ops record autograd history by it); the interpreter's flag mirrors it.
void setGradMode(Interpreter& m, bool enabled) {
    tensor::autograd::setGradEnabled(enabled);
    m.setGradEnabled(enabled);
}

/// A context manager / decorator flipping grad mode (torch.no_grad, torch.enable_grad).
void defineGradMode(Interpreter& vm, ModuleObject& torch, const char* name, bool enabled) {
    auto cls = vm.defineClass(name, "object");
    cls->module = "torch";
    cls->dict["__enter__"] = makeNative("__enter__", [enabled](Interpreter& m, CallArgs& a) {
        a.positional.at(0).as<InstanceObject>().attributes["prev"] = Value(tensor::autograd::isGradEnabled());
        setGradMode(m, enabled);
        return Value();
    });
    cls->dict["__exit__"] = makeNative("__exit__", [](Interpreter& m, CallArgs& a) {
        auto& attributes = a.positional.at(0).as<InstanceObject>().attributes;
        auto prev = attributes.find("prev");
        setGradMode(m, prev == attributes.end() || prev->second.asBool());
        return Value(false);
    });
    auto decorate = [enabled](const Value& function) {
        Value decorated = makeNative("decorated", [function, enabled](Interpreter& m, CallArgs& inner) {
            bool previous = tensor::autograd::isGradEnabled();
            setGradMode(m, enabled);
            try {
                Value result = m.callArgs(function, inner);
                setGradMode(m, previous);
                return result;
            } catch (...) {
                setGradMode(m, previous);
                throw;
            }
        });
        // functools.wraps' __wrapped__, and the mode, for the capture engine to inline the function under it.
        decorated.as<NativeObject>().attributes["__wrapped__"] = function;
        decorated.as<NativeObject>().attributes["grad_mode_enabled"] = Value(enabled);
        return decorated;
    };
    cls->dict["__call__"] = makeNative("__call__", [decorate](Interpreter&, CallArgs& a) { return decorate(a.positional.at(1)); });
    // `@torch.no_grad` without parentheses: the class called with the function decorates it at once.
    cls->dict["__new__"] = makeNative("__new__", [decorate](Interpreter&, CallArgs& a) {
        if (a.positional.size() > 1) return decorate(a.positional[1]);
        return Value(std::make_shared<InstanceObject>(a.positional.at(0).ref<ClassObject>()));
    });
    torch.attributes[name] = Value(cls);
}

/// torch.inference_mode(mode=True): a context manager / decorator setting inference mode to `mode` (what is
/// allocated while it is on makes inference tensors) and grad mode to its opposite, as c10::InferenceMode; its exit
/// restores both.
void defineInferenceMode(Interpreter& vm, ModuleObject& torch) {
    auto cls = vm.defineClass("inference_mode", "object");
    cls->module = "torch";
    auto enter = [](Interpreter& m, bool mode) {
        tensor::autograd::setInferenceMode(mode);
        setGradMode(m, !mode);
    };
    auto restore = [](Interpreter& m, bool grad, bool inference) {
        tensor::autograd::setInferenceMode(inference);
        setGradMode(m, grad);
    };
    cls->dict["__init__"] = makeNative("__init__", [](Interpreter& m, CallArgs& a) {
        const Value mode = a.positional.size() > 1 ? a.positional[1] : a.take("mode").value_or(Value(true));
        a.positional.at(0).as<InstanceObject>().attributes["mode"] = Value(m.truthy(mode));
        return Value();
    });
    cls->dict["__enter__"] = makeNative("__enter__", [enter](Interpreter& m, CallArgs& a) {
        auto& attributes = a.positional.at(0).as<InstanceObject>().attributes;
        attributes["prev_grad"] = Value(tensor::autograd::isGradEnabled());
        attributes["prev"] = Value(tensor::autograd::isInferenceModeEnabled());
        enter(m, attributes.at("mode").asBool());
        return Value();
    });
    cls->dict["__exit__"] = makeNative("__exit__", [restore](Interpreter& m, CallArgs& a) {
        auto& attributes = a.positional.at(0).as<InstanceObject>().attributes;
        restore(m, attributes.at("prev_grad").asBool(), attributes.at("prev").asBool());
        return Value(false);
    });
    cls->dict["__call__"] = makeNative("__call__", [enter, restore](Interpreter&, CallArgs& a) {
        const bool mode = a.positional.at(0).as<InstanceObject>().attributes.at("mode").asBool();
        Value function = a.positional.at(1);
        Value decorated = makeNative("decorated", [function, mode, enter, restore](Interpreter& m, CallArgs& inner) {
            const bool grad = tensor::autograd::isGradEnabled(), inference = tensor::autograd::isInferenceModeEnabled();
            enter(m, mode);
            try {
                Value result = m.callArgs(function, inner);
                restore(m, grad, inference);
                return result;
            } catch (...) {
                restore(m, grad, inference);
                throw;
            }
        });
        // As no_grad's: the capture engine inlines the function under its grad mode.
        decorated.as<NativeObject>().attributes["__wrapped__"] = function;
        decorated.as<NativeObject>().attributes["grad_mode_enabled"] = Value(!mode);
        decorated.as<NativeObject>().attributes["inference_mode"] = Value(mode);
        return decorated;
    });
    torch.attributes["inference_mode"] = Value(cls);
}

/// torch.set_grad_enabled(mode): sets the mode at once (a plain call is all many programs do); used as a context
/// manager, its exit restores the mode it found.
void defineSetGradEnabled(Interpreter& vm, ModuleObject& torch) {
    auto cls = vm.defineClass("set_grad_enabled", "object");
    cls->module = "torch";
    cls->dict["__enter__"] = makeNative("__enter__", [](Interpreter&, CallArgs&) { return Value(); });
    cls->dict["__exit__"] = makeNative("__exit__", [](Interpreter& m, CallArgs& a) {
        setGradMode(m, a.positional.at(0).as<InstanceObject>().attributes.at("prev").asBool());
        return Value(false);
    });
    torch.attributes["set_grad_enabled"] = makeNative("set_grad_enabled", [cls](Interpreter& m, CallArgs& a) {
        if (a.positional.empty()) typeError("set_grad_enabled() missing required argument 'mode'");
        auto manager = std::make_shared<InstanceObject>(cls);
        manager->attributes["prev"] = Value(tensor::autograd::isGradEnabled());
        setGradMode(m, m.truthy(a.positional[0]));
        return Value(manager);
    });
}

/// torch.compiler.disable / allow_in_graph: the function, marked for the capture engine (a copy, so the
/// original stays traceable). Eagerly the marked function behaves exactly like the original.
Value markedFunction(const Value& target, const std::string& marker) {
    if (!target.is(Kind::Function)) return target;
    auto copy = std::make_shared<FunctionObject>(target.as<FunctionObject>());
    copy->attributes[marker] = Value(true);
    if (marker == "_torchdynamo_disable") copy->compiled = nullptr;
    return Value(copy);
}

Value markingDecorator(CallArgs& args, const std::string& marker) {
    if (!args.positional.empty()) return markedFunction(args.positional[0], marker);
    return makeNative("decorator", [marker](Interpreter&, CallArgs& a) { return markedFunction(a.positional.at(0), marker); });
}

bool disabledByEnvironment() {
    const char* env = std::getenv("TORCHDYNAMO_DISABLE");
    return env && std::string(env) == "1";
}

void installDynamo(Interpreter& vm, ModuleObject& torch) {
    auto dynamo = newModule(vm, "torch._dynamo");
    torch.attributes["_dynamo"] = Value(dynamo);
    // Graph breaks and resets only mean something to the capture engine; eagerly they do nothing.
    dynamo->attributes["graph_break"] = makeNative("graph_break", [](Interpreter&, CallArgs&) { return Value(); });
    dynamo->attributes["reset"] = makeNative("reset", [](Interpreter&, CallArgs&) { return Value(); });
    dynamo->attributes["explain"] = makeNative("explain", [](Interpreter&, CallArgs&) -> Value {
        raise("NotImplementedError", "torch._dynamo.explain needs the capture engine, which is not part of cwb yet");
    });
    dynamo->attributes["list_backends"] = makeNative("list_backends", [](Interpreter&, CallArgs& a) {
        // exclude_tags=None lists the debugging backends too (eager, aot_eager), as PyTorch's does.
        std::optional<Value> exclude = a.positional.empty() ? a.take("exclude_tags") : std::optional<Value>(a.positional[0]);
        const bool everything = exclude && exclude->isNone();
        ValueList names;
        if (backendCatalog().listed)
            for (const std::string& name : backendCatalog().listed(everything)) names.push_back(makeStr(name));
        return makeList(std::move(names));
    });
    dynamo->attributes["disable"] = makeNative("disable", [](Interpreter&, CallArgs& a) {
        a.take("recursive");
        a.take("reason");
        return markingDecorator(a, "_torchdynamo_disable");
    });
    dynamo->attributes["allow_in_graph"] = makeNative("allow_in_graph", [](Interpreter&, CallArgs& a) {
        return markingDecorator(a, "_torchdynamo_allow_in_graph");
    });
    auto config = newModule(vm, "torch._dynamo.config");
    dynamo->attributes["config"] = Value(config);
    config->attributes = {{"cache_size_limit", Value(8)},          {"recompile_limit", Value(8)},
                          {"accumulated_cache_size_limit", Value(256)}, {"capture_scalar_outputs", Value(false)},
                          {"capture_dynamic_output_shape_ops", Value(false)}, {"suppress_errors", Value(false)},
                          {"automatic_dynamic_shapes", Value(true)}, {"assume_static_by_default", Value(true)},
                          {"verbose", Value(false)},                 {"optimize_ddp", Value(true)},
                          {"compiled_autograd", Value(false)},       {"skip_nnmodule_hook_guards", Value(true)},
                          // As torch._dynamo.config: TORCHDYNAMO_DISABLE=1 runs every compiled function eagerly.
                          {"disable", Value(disabledByEnvironment())}};
    auto utils = newModule(vm, "torch._dynamo.utils");
    dynamo->attributes["utils"] = Value(utils);
    // defaultdict(Counter), as in PyTorch: a group or count nothing has bumped reads as empty / 0.
    const auto& collections = vm.modules().at("_collections").as<ModuleObject>().attributes;
    auto counters = std::make_shared<DictObject>();
    counters->cls = std::static_pointer_cast<ClassObject>(collections.at("defaultdict").object());
    counters->defaultFactory = collections.at("Counter");
    utils->attributes["counters"] = Value(counters);
    auto exc = newModule(vm, "torch._dynamo.exc");
    dynamo->attributes["exc"] = Value(exc);
    // UserError derives from Unsupported, as in torch._dynamo.exc; the capture engine raises these.
    for (auto [name, base] : {std::pair{"Unsupported", "RuntimeError"}, std::pair{"InvalidBackend", "RuntimeError"},
                              std::pair{"UserError", "Unsupported"}, std::pair{"FailOnRecompileLimitHit", "RuntimeError"},
                              std::pair{"BackendCompilerFailed", "RuntimeError"}}) {
        auto cls = vm.defineClass(name, base);
        cls->module = "torch._dynamo.exc";
        exc->attributes[name] = Value(cls);
    }
}

void installCompiler(Interpreter& vm, ModuleObject& torch) {
    torch.attributes["compile"] = makeNative("compile", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> target = a.positional.empty() ? a.take("model") : std::optional<Value>(a.positional[0]);
        std::shared_ptr<const CompileOptions> options = compileOptions(m, a);
        if (!target || target->isNone())
            return makeNative("compile", [options](Interpreter& machine, CallArgs& inner) {
                return compileTarget(machine, inner.positional.at(0), options);
            });
        return compileTarget(m, *target, options);
    });
    auto optimized = vm.defineClass("OptimizedModule", "Module");
    optimized->module = "torch._dynamo.eval_frame";
    // Everything but forward reads through to the wrapped module, as OptimizedModule.__getattr__ does.
    optimized->dict["__getattr__"] = makeNative("__getattr__", [](Interpreter& m, CallArgs& a) {
        Value original = a.positional.at(0).as<InstanceObject>().attributes.at("_orig_mod");
        return m.getAttr(original, a.positional.at(1).str());
    });
    // Calls go through Module.__call__: hooks registered on the wrapper itself run eagerly around its forward.

    // module.compile(**kwargs): compiles in place; later calls of the module go through the wrapper.
    vm.builtinClass("Module")->dict["compile"] = makeNative("compile", [](Interpreter& m, CallArgs& a) {
        Value module = a.positional.at(0);
        a.positional.erase(a.positional.begin());
        std::shared_ptr<const CompileOptions> options = compileOptions(m, a);
        module.as<InstanceObject>().attributes["_compiled_call_impl"] = compileTarget(m, module, options);
        return Value();
    });

    auto& dynamo = vm.modules().at("torch._dynamo").as<ModuleObject>();
    auto compiler = newModule(vm, "torch.compiler");
    torch.attributes["compiler"] = Value(compiler);
    compiler->attributes["disable"] = dynamo.attributes.at("disable");
    compiler->attributes["allow_in_graph"] = dynamo.attributes.at("allow_in_graph");
    compiler->attributes["reset"] = makeNative("reset", [](Interpreter&, CallArgs&) { return Value(); });
    compiler->attributes["is_compiling"] = makeNative("is_compiling", [](Interpreter&, CallArgs&) { return Value(false); });
    compiler->attributes["is_dynamo_compiling"] = compiler->attributes["is_compiling"];
    compiler->attributes["list_backends"] = makeNative("list_backends", [](Interpreter& m, CallArgs& a) {
        return m.callArgs(m.modules().at("torch._dynamo").as<ModuleObject>().attributes.at("list_backends"), a);
    });
    auto stance = vm.defineClass("_set_stance", "object");
    stance->module = "torch.compiler";
    stance->dict["__enter__"] = makeNative("__enter__", [](Interpreter&, CallArgs&) { return Value(); });
    stance->dict["__exit__"] = makeNative("__exit__", [](Interpreter&, CallArgs&) { return Value(false); });
    stance->dict["__call__"] = makeNative("__call__", [](Interpreter&, CallArgs& a) { return a.positional.at(1); });
    // Stances steer compilation only; eagerly every stance runs the same. Usable as call, context, decorator.
    compiler->attributes["set_stance"] = makeNative("set_stance", [stance](Interpreter&, CallArgs&) {
        return Value(std::make_shared<InstanceObject>(stance));
    });
}

}  // namespace

// torch.optim (optim_module.cpp).
void installOptim(Interpreter& vm, ModuleObject& torch);
// torch.finfo/iinfo, torch._check*, deterministic algorithms, the dynamic-shape marks (torch_runtime_module.cpp).
void installTorchRuntime(Interpreter& vm, ModuleObject& torch, ModuleObject& dynamo, ModuleObject& compiler);
// torch._inductor: config, list_options, list_mode_options (inductor_module.cpp).
void installInductor(Interpreter& vm, ModuleObject& torch);
// torch.cuda's synchronize, get_device_name and Event (cuda_module.cpp).
void installCuda(Interpreter& vm, ModuleObject& cuda);
void installDeprecatedAutocast(Interpreter& vm, ModuleObject& torch);
// torch.autocast, torch.amp and the autocast state functions (autocast_module.cpp).
void installAutocast(Interpreter& vm, ModuleObject& torch, ModuleObject& amp, ModuleObject& autocastMode);
// torch.Generator (generator_module.cpp).
void defineGenerator(Interpreter& vm, ModuleObject& torch);

/// torch.FloatTensor, torch.cuda.HalfTensor, ...: the legacy tensor types. A tensor is an instance of one when its
/// `t.type()` names it; passed to an op (`t.type(torch.HalfTensor)`) one is that name (toTensorValue).
void defineLegacyTensorTypes(Interpreter& vm, ModuleObject& module) {
    for (int i = 0; i < tensor::kDTypeCount; ++i) {
        auto cls = std::make_shared<ClassObject>(fmt::format("{}Tensor", tensor::dtypeKernelName(static_cast<tensor::DType>(i))),
                                                 vm.builtinClass("Tensor"));
        cls->module = module.name;
        cls->dict["__instancecheck__"] = makeNative("__instancecheck__", [](Interpreter&, CallArgs& a) {
            if (a.positional.size() != 2 || !a.positional[1].is(Kind::Tensor)) return Value(false);
            const tensor::Value self[] = {tensor::Value(a.positional[1].tensor())};
            tensor::Value type = tensor::OpRegistry::instance().call("Tensor.type", self);
            return Value(type.toStr() == *legacyTensorTypeName(a.positional[0].as<ClassObject>()));
        });
        module.attributes[cls->name] = Value(cls);
    }
}

void installTorch(Interpreter& vm) {
    auto torch = newModule(vm, "torch", "torch.");
    for (const auto& [name, dtype] : kDTypes) torch->attributes[name] = Value(std::make_shared<DTypeObject>(dtype));
    torch->attributes["strided"] = makeStr(tensor::kStridedLayout);  // the value Tensor.layout gives
    torch->attributes["Tensor"] = Value(vm.builtinClass("Tensor"));
    torch->attributes["dtype"] = Value(vm.builtinClass("dtype"));
    auto size = vm.builtinClass("Size");
    size->dict["__new__"] = makeNative("Size", [](Interpreter& m, CallArgs& a) {
        auto tuple = std::make_shared<TupleObject>(a.positional.size() > 1 ? m.toList(a.positional[1]) : ValueList{});
        tuple->typeName = "torch.Size";
        return Value(tuple);
    });
    torch->attributes["Size"] = Value(size);
    torch->attributes["is_grad_enabled"] = makeNative("is_grad_enabled", [](Interpreter&, CallArgs&) { return Value(tensor::autograd::isGradEnabled()); });
    auto amp = newModule(vm, "torch.amp");
    auto autocastMode = newModule(vm, "torch.amp.autocast_mode");
    amp->attributes["autocast_mode"] = Value(autocastMode);
    torch->attributes["amp"] = Value(amp);
    installAutocast(vm, *torch, *amp, *autocastMode);
    defineGradMode(vm, *torch, "no_grad", false);
    defineGradMode(vm, *torch, "enable_grad", true);
    defineInferenceMode(vm, *torch);
    defineSetGradEnabled(vm, *torch);
    for (const char* sub : {"cuda", "linalg", "autograd", "random"}) {
        auto module = newModule(vm, std::string("torch.") + sub, std::string("torch.") + sub + ".");
        torch->attributes[sub] = Value(module);
    }
    installCuda(vm, vm.modules().at("torch.cuda").as<ModuleObject>());
    installDeprecatedAutocast(vm, *torch);
    defineGenerator(vm, *torch);
    defineLegacyTensorTypes(vm, *torch);
    defineLegacyTensorTypes(vm, vm.modules().at("torch.cuda").as<ModuleObject>());
    // Checkpoint recomputation is only invalid inside a backward pass that runs Python hooks, which this runtime
    // does not run: outside that it is True, as in PyTorch.
    vm.modules().at("torch.autograd").as<ModuleObject>().attributes["_is_checkpoint_valid"] =
        makeNative("_is_checkpoint_valid", [](Interpreter&, CallArgs&) { return Value(true); });
    auto nn = newModule(vm, "torch.nn");
    torch->attributes["nn"] = Value(nn);
    auto functional = newModule(vm, "torch.nn.functional", "F.");
    nn->attributes["functional"] = Value(functional);
    auto init = newModule(vm, "torch.nn.init", "torch.nn.init.");
    nn->attributes["init"] = Value(init);
    installNn(vm, *nn);
    installDynamo(vm, *torch);
    installCompiler(vm, *torch);
    installTorchRuntime(vm, *torch, vm.modules().at("torch._dynamo").as<ModuleObject>(), vm.modules().at("torch.compiler").as<ModuleObject>());
    installOptim(vm, *torch);
    installInductor(vm, *torch);
}

void setBackendCatalog(BackendCatalog catalog) { installedCatalog() = std::move(catalog); }
const BackendCatalog& backendCatalog() { return installedCatalog(); }

}  // namespace eng::vm
