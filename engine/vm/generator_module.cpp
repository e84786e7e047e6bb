// torch.Generator: a CPU generator of its own (PyTorch's Mersenne Twister, tensor/cpu_generator.h) that ops draw from
// when passed as generator=, leaving torch.manual_seed's generator alone; manual_seed / initial_seed / seed /
// get_state / set_state and the device attribute as PyTorch's torch._C.Generator has them.
#include <random>

#include <fmt/format.h>

#include "tensor/random.h"
#include "tensor/registry.h"
#include "vm/errors.h"
#include "vm/interpreter.h"
#include "vm/torch_generator.h"

namespace eng::vm {

namespace {

TorchGeneratorObject& generatorSelf(CallArgs& args, const char* method) {
    auto* self = !args.positional.empty() && args.positional[0].is(Kind::Instance) ? dynamic_cast<TorchGeneratorObject*>(args.positional[0].object().get())
                                                                                   : nullptr;
    if (!self) typeError(fmt::format("descriptor '{}' for 'torch._C.Generator' objects doesn't apply to this object", method));
    return *self;
}

Value argument(CallArgs& args, size_t position, const char* keyword) {
    if (auto v = args.take(keyword)) return *v;
    return args.positional.size() > position ? args.positional[position] : Value();
}

}  // namespace

void defineGenerator(Interpreter& vm, ModuleObject& torch) {
    auto cls = vm.defineClass("Generator", "object");
    cls->module = "torch";
    cls->dict["__new__"] = makeNative("Generator", [cls](Interpreter&, CallArgs& a) {
        const Value device = argument(a, 1, "device");
        const tensor::Device where = device.isNone() ? tensor::kCpu : toTensorValue(device).toDevice();
        if (!where.isCpu())
            raise("NotImplementedError", "cwb: torch.Generator(device='cuda') is not supported (CUDA's Philox generator); use a CPU generator");
        auto generator = std::make_shared<TorchGeneratorObject>(cls, tensor::newGenerator());
        generator->attributes["device"] = fromTensorValue(tensor::Value(tensor::kCpu));
        return Value(std::static_pointer_cast<Object>(generator));
    });
    cls->dict["manual_seed"] = makeNative("manual_seed", [](Interpreter&, CallArgs& a) {
        TorchGeneratorObject& self = generatorSelf(a, "manual_seed");
        const Value seed = argument(a, 1, "seed");
        if (!seed.is(Kind::Int)) typeError("manual_seed expected a long");
        tensor::generatorById(self.id).manualSeed(static_cast<uint64_t>(seed.asInt()));
        return a.positional[0];
    });
    cls->dict["initial_seed"] = makeNative("initial_seed", [](Interpreter&, CallArgs& a) {
        return Value(static_cast<int64_t>(tensor::generatorById(generatorSelf(a, "initial_seed").id).initialSeed()));
    });
    cls->dict["seed"] = makeNative("seed", [](Interpreter&, CallArgs& a) {
        // A nondeterministic seed, as PyTorch takes one from /dev/urandom (kept below 2^63 to fit a Python int here).
        std::random_device device;
        const uint64_t seed = ((uint64_t{device()} << 32) | device()) >> 1;
        tensor::generatorById(generatorSelf(a, "seed").id).manualSeed(seed);
        return Value(static_cast<int64_t>(seed));
    });
    cls->dict["get_state"] = makeNative("get_state", [](Interpreter&, CallArgs& a) {
        const tensor::Value self[] = {tensor::generatorValue(generatorSelf(a, "get_state").id)};
        return fromTensorValue(tensor::OpRegistry::instance().call("torch._cwb_generator_get_state", self));
    });
    cls->dict["set_state"] = makeNative("set_state", [](Interpreter&, CallArgs& a) {
        const tensor::Value args[] = {tensor::generatorValue(generatorSelf(a, "set_state").id), toTensorValue(argument(a, 1, "new_state"))};
        tensor::OpRegistry::instance().call("torch._cwb_generator_set_state", args);
        return a.positional[0];
    });
    cls->dict["__repr__"] = makeNative("__repr__", [](Interpreter&, CallArgs& a) {
        return makeStr(fmt::format("<torch._C.Generator object at {}>", static_cast<const void*>(&generatorSelf(a, "__repr__"))));
    });
    torch.attributes["Generator"] = Value(cls);
}

}  // namespace eng::vm
