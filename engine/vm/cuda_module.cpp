// torch.cuda beyond the registry's is_available/device_count: synchronize, get_device_name, current_device and
// torch.cuda.Event (timing events on cwb's one stream per device, engine/cuda/events.h). Without a driver these
// raise PyTorch's lazy-initialisation errors, as a CUDA build of PyTorch does on a machine without a GPU.
#include <fmt/core.h>

#include <memory>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "cuda/events.h"
#include "vm/errors.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

/// PyTorch's message when torch.cuda first initialises on a machine without a driver or device.
[[noreturn]] void raiseUnavailable() {
    const std::string& reason = cuda::driverStatus().reason;
    if (reason.rfind("no CUDA driver", 0) == 0)
        raise("RuntimeError", "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                              "installed a driver from http://www.nvidia.com/Download/index.aspx");
    raise("RuntimeError", "No CUDA GPUs are available");
}

/// Runs a CUDA layer call, turning its CudaError into a Python RuntimeError (PyTorch raises CUDA errors so).
template <typename Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
    if (!cuda::cudaAvailable()) raiseUnavailable();
    try {
        return fn();
    } catch (const cuda::CudaError& error) {
        raise("RuntimeError", fmt::format("CUDA error: {}", error.what()));
    }
}

/// torch.cuda's `device` arguments: None (the current device, always 0 here), an index, "cuda[:i]" or a
/// torch.device.
int deviceIndex(const Value& device) {
    if (device.isNone()) return 0;
    if (device.is(Kind::Int)) return static_cast<int>(device.asInt());
    tensor::Device parsed(tensor::DeviceType::CPU, -1);
    if (device.is(Kind::Str)) parsed = tensor::Device::parse(device.str());
    else if (device.is(Kind::Device)) parsed = device.as<DeviceObject>().value;
    else typeError("torch.cuda: expected a device index, a device string or a torch.device");
    if (parsed.type() != tensor::DeviceType::CUDA) raise("ValueError", fmt::format("Expected a cuda device, but got: {}", parsed.str()));
    return parsed.index() < 0 ? 0 : parsed.index();
}

Value optionalArgument(CallArgs& args, size_t position, const char* keyword) {
    if (auto v = args.take(keyword)) return *v;
    return args.positional.size() > position ? args.positional[position] : Value();
}

/// A torch.cuda.Event: the driver event is created on first record, as PyTorch creates its CUDA event lazily.
struct CudaEventObject : InstanceObject {
    using InstanceObject::InstanceObject;
    bool timing = false;
    std::unique_ptr<cuda::Event> event;
};

CudaEventObject& eventSelf(CallArgs& args, const char* method) {
    bool isInstance = !args.positional.empty() && args.positional[0].is(Kind::Instance);
    auto* self = isInstance ? dynamic_cast<CudaEventObject*>(args.positional[0].object().get()) : nullptr;
    if (!self)
        typeError(fmt::format("descriptor '{}' requires a 'torch.cuda.Event' object", method));
    return *self;
}

void defineEvent(Interpreter& vm, ModuleObject& module) {
    auto cls = vm.defineClass("Event", "object");
    cls->module = "torch.cuda";
    cls->dict["__new__"] = makeNative("Event", [cls](Interpreter& m, CallArgs& a) {
        a.positional.erase(a.positional.begin());  // the class
        auto event = std::make_shared<CudaEventObject>(cls);
        event->timing = m.truthy(optionalArgument(a, 0, "enable_timing"));
        // blocking/interprocess/external change how the host waits or shares the event, never what it times.
        for (const char* ignored : {"blocking", "interprocess", "external"}) a.take(ignored);
        if (a.positional.size() > 4)
            typeError(fmt::format("Event.__new__() takes from 1 to 5 positional arguments but {} were given", a.positional.size() + 1));
        if (!a.keywords.empty())
            typeError(fmt::format("Event.__new__() got an unexpected keyword argument '{}'", a.keywords.front().first));
        return Value(std::static_pointer_cast<Object>(event));
    });
    cls->dict["record"] = makeNative("record", [](Interpreter&, CallArgs& a) {
        CudaEventObject& self = eventSelf(a, "record");
        // stream=None or any stream: cwb orders all work of a device on one stream.
        guarded([&] {
            if (!self.event) self.event = std::make_unique<cuda::Event>(0, self.timing);
            self.event->record();
            return 0;
        });
        return Value();
    });
    cls->dict["synchronize"] = makeNative("synchronize", [](Interpreter&, CallArgs& a) {
        CudaEventObject& self = eventSelf(a, "synchronize");
        if (self.event) guarded([&] { self.event->synchronize(); return 0; });
        return Value();
    });
    cls->dict["query"] = makeNative("query", [](Interpreter&, CallArgs& a) {
        CudaEventObject& self = eventSelf(a, "query");
        return Value(!self.event || guarded([&] { return self.event->query(); }));
    });
    cls->dict["elapsed_time"] = makeNative("elapsed_time", [](Interpreter&, CallArgs& a) {
        CudaEventObject& self = eventSelf(a, "elapsed_time");
        Value endValue = optionalArgument(a, 1, "end_event");
        auto* end = endValue.is(Kind::Instance) ? dynamic_cast<CudaEventObject*>(endValue.object().get()) : nullptr;
        if (!end) typeError("elapsed_time(): argument 'end_event' must be torch.cuda.Event");
        // PyTorch's checks, in its order (c10/cuda CUDAEvent::elapsed_time).
        if (!self.timing || !end->timing) raise("RuntimeError", "Both events must be created with argument 'enable_timing=True'.");
        if (!self.event || !end->event) raise("RuntimeError", "Both events must be recorded before calculating elapsed time.");
        return guarded([&] {
            if (!self.event->query() || !end->event->query())
                raise("RuntimeError", "Both events must be completed before calculating elapsed time.");
            return Value(static_cast<double>(self.event->elapsedMs(*end->event)));
        });
    });
    cls->dict["__repr__"] = makeNative("__repr__", [](Interpreter&, CallArgs& a) {
        CudaEventObject& self = eventSelf(a, "__repr__");
        if (!self.event) return makeStr("<torch.cuda.Event uninitialized>");
        return makeStr(fmt::format("<torch.cuda.Event {}>", static_cast<const void*>(self.event.get())));
    });
    module.attributes["Event"] = Value(cls);
}

}  // namespace

void installCuda(Interpreter& vm, ModuleObject& module) {
    module.attributes["synchronize"] = makeNative("synchronize", [](Interpreter&, CallArgs& a) {
        int device = deviceIndex(optionalArgument(a, 0, "device"));
        guarded([&] { cuda::synchronizeDevice(device); return 0; });
        return Value();
    });
    module.attributes["get_device_name"] = makeNative("get_device_name", [](Interpreter&, CallArgs& a) {
        int device = deviceIndex(optionalArgument(a, 0, "device"));
        return makeStr(guarded([&] { return cuda::DeviceContext::get(device).name(); }));
    });
    module.attributes["current_device"] = makeNative("current_device", [](Interpreter&, CallArgs&) {
        return guarded([] { return Value(0); });
    });
    defineEvent(vm, module);
}

}  // namespace eng::vm
