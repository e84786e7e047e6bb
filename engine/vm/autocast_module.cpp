// torch.autocast (= torch.amp.autocast, torch.amp.autocast_mode.autocast; the deprecated torch.cpu/cuda.amp.autocast) as a
// context manager and decorator, the _enter_autocast / _exit_autocast functions Dynamo's graphs call, and
// torch.is_autocast_enabled / get_autocast_dtype / set_autocast_*. The state and the casts are tensor/autocast.h's.
#include <fmt/core.h>

#include <memory>
#include <optional>

#include "tensor/autocast.h"
#include "tensor/autocast_cache.h"
#include "vm/errors.h"
#include "vm/interpreter.h"
#include "vm/python_warnings.h"

namespace eng::vm {

namespace {

tensor::DeviceType autocastDevice(const Value& device) {
    const std::string name = device.is(Kind::Str) ? device.str() : "";
    if (name == "cuda") return tensor::DeviceType::CUDA;
    if (name == "cpu") return tensor::DeviceType::CPU;
    raise("RuntimeError", fmt::format("User specified an unsupported autocast device_type '{}'", name));
}

Value dtypeValue(tensor::DType d) { return Value(std::make_shared<DTypeObject>(d)); }

/// The argument named `name` (position `index` after self) or its default.
Value argument(CallArgs& a, size_t index, const char* name, Value fallback) {
    if (std::optional<Value> v = a.take(name)) return *v;
    return index < a.positional.size() ? a.positional[index] : fallback;
}

/// autocast.__init__'s resolution: dtype None is the device's current autocast dtype; a dtype the device does not
/// autocast to disables it (PyTorch warns "... the target dtype is not supported. Disabling autocast.").
tensor::AutocastState requestedState(tensor::DeviceType device, const Value& dtype, bool enabled) {
    tensor::AutocastState state{enabled, tensor::autocastState(device).dtype};
    if (!dtype.isNone()) {
        if (!dtype.is(Kind::DType)) typeError("autocast: dtype must be a torch.dtype");
        state.dtype = dtype.as<DTypeObject>().value;
    }
    if (state.dtype != tensor::DType::BFloat16 && state.dtype != tensor::DType::Float16) state.enabled = false;
    return state;
}

void enter(InstanceObject& mode) {
    const tensor::DeviceType device = autocastDevice(mode.attributes.at("device"));
    mode.attributes["_prev_enabled"] = Value(tensor::autocastState(device).enabled);
    mode.attributes["_prev_dtype"] = dtypeValue(tensor::autocastState(device).dtype);
    mode.attributes["prev_cache_enabled"] = Value(tensor::autocastCacheEnabled());
    tensor::setAutocastState(device, {mode.attributes.at("_enabled").asBool(), mode.attributes.at("fast_dtype").as<DTypeObject>().value});
    tensor::setAutocastCacheEnabled(mode.attributes.at("_cache_enabled").asBool());
    tensor::autocastIncrementNesting();
}

/// As PyTorch's __exit__: leaving the outermost region drops the weight casts it cached.
void exit(InstanceObject& mode) {
    auto& attributes = mode.attributes;
    if (!attributes.contains("_prev_enabled")) return;
    if (tensor::autocastDecrementNesting() == 0) tensor::clearAutocastCache();
    tensor::setAutocastState(autocastDevice(attributes.at("device")),
                             {attributes.at("_prev_enabled").asBool(), attributes.at("_prev_dtype").as<DTypeObject>().value});
    tensor::setAutocastCacheEnabled(attributes.at("prev_cache_enabled").asBool());
}

std::shared_ptr<ClassObject> defineAutocastClass(Interpreter& vm) {
    auto cls = vm.defineClass("autocast", "object");
    cls->module = "torch.amp.autocast_mode";
    cls->dict["__init__"] = makeNative("__init__", [](Interpreter& m, CallArgs& a) {
        auto& self = a.positional.at(0).as<InstanceObject>();
        const Value device = argument(a, 1, "device_type", Value());
        const tensor::DeviceType type = autocastDevice(device);
        const Value dtype = argument(a, 2, "dtype", Value());
        const bool enabled = m.truthy(argument(a, 3, "enabled", Value(true)));
        const tensor::AutocastState state = requestedState(type, dtype, enabled);
        self.attributes["device"] = device;
        // The arguments as given: Dynamo's graphs pass them to _enter_autocast.
        self.attributes["_dtype_arg"] = dtype;
        self.attributes["_enabled_arg"] = Value(enabled);
        const Value cacheEnabled = argument(a, 4, "cache_enabled", Value());
        self.attributes["_cache_enabled_arg"] = cacheEnabled;
        self.attributes["_cache_enabled"] = Value(cacheEnabled.isNone() ? tensor::autocastCacheEnabled() : m.truthy(cacheEnabled));
        self.attributes["fast_dtype"] = dtypeValue(state.dtype);
        self.attributes["_enabled"] = Value(state.enabled);
        return Value();
    });
    cls->dict["__enter__"] = makeNative("__enter__", [](Interpreter&, CallArgs& a) {
        enter(a.positional.at(0).as<InstanceObject>());
        return Value();
    });
    cls->dict["__exit__"] = makeNative("__exit__", [](Interpreter&, CallArgs& a) {
        exit(a.positional.at(0).as<InstanceObject>());
        return Value(false);
    });
    cls->dict["__call__"] = makeNative("__call__", [](Interpreter&, CallArgs& a) {
        const Value self = a.positional.at(0);
        const Value function = a.positional.at(1);
        return makeNative("decorate_autocast", [self, function](Interpreter& m, CallArgs& inner) {
            auto& mode = self.as<InstanceObject>();
            enter(mode);
            try {
                Value result = m.callArgs(function, inner);
                exit(mode);
                return result;
            } catch (...) {
                exit(mode);
                throw;
            }
        });
    });
    return cls;
}

/// torch.cuda.amp.autocast / torch.cpu.amp.autocast(enabled=True, dtype=..., cache_enabled=True): deprecated
/// subclasses of torch.amp.autocast for one device, with PyTorch's FutureWarning.
std::shared_ptr<ClassObject> defineDeprecatedAutocast(Interpreter& vm, const std::shared_ptr<ClassObject>& autocast, const char* device,
                                                      tensor::DType defaultDtype) {
    auto cls = std::make_shared<ClassObject>("autocast", autocast);
    cls->module = fmt::format("torch.{}.amp.autocast_mode", device);
    const Value baseInit = autocast->dict.at("__init__");
    cls->dict["__init__"] = makeNative("__init__", [baseInit, device, defaultDtype](Interpreter& m, CallArgs& a) {
        showWarning(m, "FutureWarning", fmt::format("`torch.{0}.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('{0}', args...)` instead.", device));
        const Value self = a.positional.at(0);
        const Value enabled = argument(a, 1, "enabled", Value(true));
        const Value dtype = argument(a, 2, "dtype", dtypeValue(defaultDtype));
        const Value cacheEnabled = argument(a, 3, "cache_enabled", Value(true));
        CallArgs init;
        init.positional = {self, makeStr(device), dtype, enabled, cacheEnabled};
        return m.callArgs(baseInit, init);
    });
    (void)vm;
    return cls;
}

}  // namespace

void installDeprecatedAutocast(Interpreter& vm, ModuleObject& torch) {
    const auto autocast = vm.modules().at("torch.amp").as<ModuleObject>().attributes.at("autocast").ref<ClassObject>();
    for (const auto& [device, dtype] : {std::pair{"cuda", tensor::DType::Float16}, std::pair{"cpu", tensor::DType::BFloat16}}) {
        const std::string parent = std::string("torch.") + device;
        if (!vm.modules().contains(parent)) {
            vm.modules()[parent] = Value(std::make_shared<ModuleObject>(parent));
            torch.attributes[device] = vm.modules().at(parent);
        }
        auto amp = std::make_shared<ModuleObject>(parent + ".amp");
        amp->attributes["autocast"] = Value(defineDeprecatedAutocast(vm, autocast, device, dtype));
        vm.modules()[parent + ".amp"] = Value(amp);
        vm.modules().at(parent).as<ModuleObject>().attributes["amp"] = Value(amp);
    }
}

void installAutocast(Interpreter& vm, ModuleObject& torch, ModuleObject& amp, ModuleObject& autocastMode) {
    auto cls = defineAutocastClass(vm);
    torch.attributes["autocast"] = Value(cls);
    amp.attributes["autocast"] = Value(cls);
    autocastMode.attributes["autocast"] = Value(cls);
    // Dynamo's graph nodes: enter returns the entered mode, exit takes it back.
    auto enterAutocast = makeNative("_enter_autocast", [cls](Interpreter& m, CallArgs& a) {
        Value mode = m.callArgs(Value(cls), a);
        enter(mode.as<InstanceObject>());
        return mode;
    });
    auto exitAutocast = makeNative("_exit_autocast", [](Interpreter&, CallArgs& a) {
        exit(a.positional.at(0).as<InstanceObject>());
        return Value();
    });
    for (ModuleObject* module : {&amp, &autocastMode}) {
        module->attributes["_enter_autocast"] = enterAutocast;
        module->attributes["_exit_autocast"] = exitAutocast;
    }
    torch.attributes["is_autocast_enabled"] = makeNative("is_autocast_enabled", [](Interpreter&, CallArgs& a) {
        // Without a device type it asks about cuda, as PyTorch's deprecated form does.
        const tensor::DeviceType device = a.positional.empty() ? tensor::DeviceType::CUDA : autocastDevice(a.positional[0]);
        return Value(tensor::autocastState(device).enabled);
    });
    torch.attributes["is_autocast_cpu_enabled"] =
        makeNative("is_autocast_cpu_enabled", [](Interpreter&, CallArgs&) { return Value(tensor::autocastState(tensor::DeviceType::CPU).enabled); });
    torch.attributes["get_autocast_dtype"] = makeNative("get_autocast_dtype", [](Interpreter&, CallArgs& a) {
        if (a.positional.size() != 1 || !a.positional[0].is(Kind::Str)) typeError("get_autocast_dtype() takes a device type string");
        return dtypeValue(tensor::autocastState(autocastDevice(a.positional[0])).dtype);
    });
    torch.attributes["get_autocast_gpu_dtype"] = makeNative(
        "get_autocast_gpu_dtype", [](Interpreter&, CallArgs&) { return dtypeValue(tensor::autocastState(tensor::DeviceType::CUDA).dtype); });
    torch.attributes["get_autocast_cpu_dtype"] = makeNative(
        "get_autocast_cpu_dtype", [](Interpreter&, CallArgs&) { return dtypeValue(tensor::autocastState(tensor::DeviceType::CPU).dtype); });
    torch.attributes["set_autocast_enabled"] = makeNative("set_autocast_enabled", [](Interpreter& m, CallArgs& a) {
        const tensor::DeviceType device = autocastDevice(a.positional.at(0));
        tensor::AutocastState state = tensor::autocastState(device);
        state.enabled = m.truthy(a.positional.at(1));
        tensor::setAutocastState(device, state);
        return Value();
    });
    torch.attributes["is_autocast_cache_enabled"] =
        makeNative("is_autocast_cache_enabled", [](Interpreter&, CallArgs&) { return Value(tensor::autocastCacheEnabled()); });
    torch.attributes["set_autocast_cache_enabled"] = makeNative("set_autocast_cache_enabled", [](Interpreter& m, CallArgs& a) {
        tensor::setAutocastCacheEnabled(m.truthy(a.positional.at(0)));
        return Value();
    });
    torch.attributes["clear_autocast_cache"] = makeNative("clear_autocast_cache", [](Interpreter&, CallArgs&) {
        tensor::clearAutocastCache();
        return Value();
    });
    torch.attributes["autocast_increment_nesting"] = makeNative(
        "autocast_increment_nesting", [](Interpreter&, CallArgs&) { return Value(static_cast<int64_t>(tensor::autocastIncrementNesting())); });
    torch.attributes["autocast_decrement_nesting"] = makeNative(
        "autocast_decrement_nesting", [](Interpreter&, CallArgs&) { return Value(static_cast<int64_t>(tensor::autocastDecrementNesting())); });
    torch.attributes["set_autocast_dtype"] = makeNative("set_autocast_dtype", [](Interpreter&, CallArgs& a) {
        const tensor::DeviceType device = autocastDevice(a.positional.at(0));
        tensor::AutocastState state = tensor::autocastState(device);
        if (!a.positional.at(1).is(Kind::DType)) typeError("set_autocast_dtype: dtype must be a torch.dtype");
        state.dtype = a.positional[1].as<DTypeObject>().value;
        tensor::setAutocastState(device, state);
        return Value();
    });
}

}  // namespace eng::vm
