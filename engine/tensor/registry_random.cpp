// Registry entries for PyTorch's CPU generator: torch.manual_seed / initial_seed / get_rng_state / set_rng_state, the
// in-place fills (uniform_, normal_, bernoulli_, random_, exponential_), torch.bernoulli, and the operations behind
// torch.Generator objects (the VM's torch.Generator class calls torch._cwb_generator_*).
#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/random.h"
#include "tensor/registry_support.h"

namespace eng::tensor {

namespace {

std::vector<std::string> method(std::string_view name) { return {fmt::format("Tensor.{}", name)}; }

Tensor stateTensor(const CpuGenerator& gen) {
    const std::vector<uint8_t> bytes = gen.state();
    return fromInts(std::vector<int64_t>(bytes.begin(), bytes.end()), {static_cast<int64_t>(bytes.size())}, DType::UInt8);
}

void setStateFrom(CpuGenerator& gen, const Tensor& state) {
    if (state.dtype() != DType::UInt8 || !state.device().isCpu())
        fail(ErrorKind::Type, fmt::format("expected a torch.ByteTensor, but got {}", dtypeKernelName(state.dtype())));
    const std::vector<int64_t> values = toInts(contiguous(state));
    gen.setState(std::vector<uint8_t>(values.begin(), values.end()));
}

// torch.bernoulli(p): bernoulli_distribution<float> (a 24-bit uniform) per element, <double> for a float64 p.
Tensor bernoulliOf(const Tensor& probabilities, CpuGenerator& gen) {
    const Tensor p = contiguous(to(probabilities, std::nullopt, kCpu));
    const std::vector<double> values = toDoubles(p);
    std::vector<double> drawn(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        if (!(values[i] >= 0 && values[i] <= 1)) fail(ErrorKind::Runtime, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
        if (p.dtype() == DType::Float64) drawn[i] = static_cast<double>(gen.random64() & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53 < values[i];
        else drawn[i] = static_cast<float>(gen.random() & 0xffffffU) * 0x1.0p-24f < static_cast<float>(values[i]);
    }
    return to(to(fromDoubles(drawn, p.sizes()), p.dtype()), std::nullopt, probabilities.device());
}

}  // namespace

void registerRandomOps(OpRegistry& r) {
    r.def({"torch.manual_seed", "torch.random.manual_seed"}, "manual_seed(int seed)", [](const Args& a) {
        manualSeed(static_cast<uint64_t>(a.integer(0)));
        return noneValue();
    });
    r.def({"torch.initial_seed", "torch.random.initial_seed"}, "initial_seed()",
          [](const Args&) { return Value(static_cast<int64_t>(initialSeed())); });
    r.def({"torch.get_rng_state", "torch.random.get_rng_state"}, "get_rng_state()", [](const Args&) { return Value(stateTensor(defaultGenerator())); });
    r.def({"torch.set_rng_state", "torch.random.set_rng_state"}, "set_rng_state(Tensor new_state)", [](const Args& a) {
        setStateFrom(defaultGenerator(), a.tensor(0));
        return noneValue();
    });

    r.def(method("uniform_"), "uniform_(Tensor self, float from=0, float to=1, *, Generator? generator=None)",
          [](const Args& a) { return Value(uniformInPlace(a.tensor(0), a.real(1), a.real(2), &generatorFrom(a[3]))); });
    r.def(method("normal_"), "normal_(Tensor self, float mean=0, float std=1, *, Generator? generator=None)",
          [](const Args& a) { return Value(normalInPlace(a.tensor(0), a.real(1), a.real(2), &generatorFrom(a[3]))); });
    r.def(method("bernoulli_"), "bernoulli_(Tensor self, float p=0.5, *, Generator? generator=None)",
          [](const Args& a) { return Value(bernoulliInPlace(a.tensor(0), a.real(1), &generatorFrom(a[2]))); });
    r.def(method("exponential_"), "exponential_(Tensor self, float lambd=1, *, Generator? generator=None)",
          [](const Args& a) { return Value(exponentialInPlace(a.tensor(0), a.real(1), &generatorFrom(a[2]))); });
    r.def(method("random_"), "random_(Tensor self, int from, int? to, *, Generator? generator=None)",
          [](const Args& a) { return Value(randomInPlace(a.tensor(0), a.integer(1), a.optInteger(2), &generatorFrom(a[3]))); });
    r.def(method("random_"), "random_(Tensor self, int to, *, Generator? generator=None)",
          [](const Args& a) { return Value(randomInPlace(a.tensor(0), 0, a.integer(1), &generatorFrom(a[2]))); });
    r.def(method("random_"), "random_(Tensor self, *, Generator? generator=None)",
          [](const Args& a) { return Value(randomInPlace(a.tensor(0), 0, std::nullopt, &generatorFrom(a[1]))); });
    r.def({"torch.bernoulli", "Tensor.bernoulli"}, "bernoulli(Tensor input, *, Generator? generator=None)",
          [](const Args& a) { return Value(bernoulliOf(a.tensor(0), generatorFrom(a[1]))); });

    // torch.Generator's methods, on the generator its value names.
    r.def({"torch._cwb_generator_new"}, "_cwb_generator_new()", [](const Args&) { return generatorValue(newGenerator()); });
    r.def({"torch._cwb_generator_manual_seed"}, "_cwb_generator_manual_seed(Any generator, int seed)", [](const Args& a) {
        generatorFrom(a[0]).manualSeed(static_cast<uint64_t>(a.integer(1)));
        return noneValue();
    });
    r.def({"torch._cwb_generator_initial_seed"}, "_cwb_generator_initial_seed(Any generator)",
          [](const Args& a) { return Value(static_cast<int64_t>(generatorFrom(a[0]).initialSeed())); });
    r.def({"torch._cwb_generator_get_state"}, "_cwb_generator_get_state(Any generator)",
          [](const Args& a) { return Value(stateTensor(generatorFrom(a[0]))); });
    r.def({"torch._cwb_generator_set_state"}, "_cwb_generator_set_state(Any generator, Tensor new_state)", [](const Args& a) {
        setStateFrom(generatorFrom(a[0]), a.tensor(1));
        return noneValue();
    });
}

}  // namespace eng::tensor
