// Random tensors from one global generator (torch.manual_seed / rand / randn / randint / randperm and the
// in-place initialisers nn.init uses). Values are deterministic per seed but do not match PyTorch's streams.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "tensor/creation.h"

namespace eng::tensor {

void manualSeed(uint64_t seed);
// The seed last set (torch.initial_seed).
uint64_t initialSeed();

// A snapshot of the global generator (its engine and seed): the capture engine restores it after tracing, whose
// random ops really ran, so that the compiled graph draws the numbers eager would have drawn.
struct GeneratorState {
    std::mt19937_64 engine;
    uint64_t seed = 0;
};
GeneratorState generatorState();
void setGeneratorState(const GeneratorState& state);

Tensor rand(const Shape& sizes, const TensorOptions& options = {});
Tensor randn(const Shape& sizes, const TensorOptions& options = {});
// Integers in [low, high); dtype defaults to int64.
Tensor randint(int64_t low, int64_t high, const Shape& sizes, const TensorOptions& options = {});
Tensor randperm(int64_t n, const TensorOptions& options = {});
/// torch.multinomial: `numSamples` category indices per row of `probs` (1-D or 2-D, non-negative weights), drawn
/// from the global generator with PyTorch's algorithms (without replacement: the top p / Exp(1) draws).
Tensor multinomial(const Tensor& probs, int64_t numSamples, bool replacement);
Tensor randLike(const Tensor& t);
Tensor randnLike(const Tensor& t);

const Tensor& uniformInPlace(const Tensor& self, double from = 0.0, double to = 1.0);
const Tensor& normalInPlace(const Tensor& self, double mean = 0.0, double std = 1.0);
// Each element becomes 1 with probability p, else 0 (in self's dtype).
const Tensor& bernoulliInPlace(const Tensor& self, double p);

}  // namespace eng::tensor
