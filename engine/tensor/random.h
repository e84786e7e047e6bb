// Random tensors with PyTorch's CPU numbers: the default generator and torch.Generator objects (cpu_generator.h), and
// each distribution's own transformation (rand / randn / randint / randperm / bernoulli / exponential / multinomial,
// the in-place initialisers nn.init uses). A seed gives the values torch gives on the CPU, on every device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tensor/cpu_generator.h"
#include "tensor/creation.h"
#include "tensor/value.h"

namespace eng::tensor {

// The generator of torch.manual_seed; every op below draws from it when given no generator.
CpuGenerator& defaultGenerator();
void manualSeed(uint64_t seed);
// The seed last set (torch.initial_seed).
uint64_t initialSeed();

// torch.Generator objects live in a table and reach ops as a Value (a torch.Generator tuple holding the table's id).
int64_t newGenerator();
CpuGenerator& generatorById(int64_t id);
Value generatorValue(int64_t id);
// The generator a `generator=` argument names: None is the default one.
CpuGenerator& generatorFrom(const Value& generator);

// A snapshot of every generator: the capture engine restores it after tracing, whose random ops really ran, so that
// the compiled graph draws the numbers eager would have drawn.
struct GeneratorState {
    CpuGenerator global;
    std::vector<std::pair<int64_t, CpuGenerator>> others;
};
GeneratorState generatorState();
void setGeneratorState(const GeneratorState& state);

Tensor rand(const Shape& sizes, const TensorOptions& options = {}, CpuGenerator* gen = nullptr);
Tensor randn(const Shape& sizes, const TensorOptions& options = {}, CpuGenerator* gen = nullptr);
// Integers in [low, high); dtype defaults to int64.
Tensor randint(int64_t low, int64_t high, const Shape& sizes, const TensorOptions& options = {}, CpuGenerator* gen = nullptr);
Tensor randperm(int64_t n, const TensorOptions& options = {}, CpuGenerator* gen = nullptr);
/// torch.multinomial: `numSamples` category indices per row of `probs` (1-D or 2-D, non-negative weights), drawn
/// with PyTorch's algorithms (without replacement: the top p / Exp(1) draws).
Tensor multinomial(const Tensor& probs, int64_t numSamples, bool replacement, CpuGenerator* gen = nullptr);
Tensor randLike(const Tensor& t);
Tensor randnLike(const Tensor& t);

const Tensor& uniformInPlace(const Tensor& self, double from = 0.0, double to = 1.0, CpuGenerator* gen = nullptr);
const Tensor& normalInPlace(const Tensor& self, double mean = 0.0, double std = 1.0, CpuGenerator* gen = nullptr);
// Each element becomes 1 with probability p, else 0 (in self's dtype).
const Tensor& bernoulliInPlace(const Tensor& self, double p, CpuGenerator* gen = nullptr);
// Tensor.random_(from, to): integers in [from, to); without `to`, PyTorch's full range of self's dtype from `from`
// (random_() is from 0: [0, 2^mantissa] for floats, [0, max] for integers).
const Tensor& randomInPlace(const Tensor& self, int64_t from, std::optional<int64_t> to, CpuGenerator* gen = nullptr);
const Tensor& exponentialInPlace(const Tensor& self, double lambda = 1.0, CpuGenerator* gen = nullptr);
// nn.init.trunc_normal_ as PyTorch computes it: uniform in the CDF's range, erfinv, scale, shift, clamp.
const Tensor& truncNormalInPlace(const Tensor& self, double mean, double std, double a, double b, CpuGenerator* gen = nullptr);

// The normal fill of a contiguous tensor of 16 or more elements, in blocks of 16 (random_normal.cpp).
void normalFillBlocks(const Tensor& target, double mean, double std, CpuGenerator& gen);

}  // namespace eng::tensor
