// The global Mersenne Twister generator (PyTorch's CPU generator is one too) and the random factories.
#include "tensor/random.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/iteration.h"
#include "tensor/cuda_kernels.h"
#include "tensor/host_route.h"

namespace eng::tensor {

namespace {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default CPU seed

struct GlobalGenerator {
    std::mt19937_64 engine{kDefaultSeed};
    uint64_t seed = kDefaultSeed;
};

GlobalGenerator& generator() {
    static GlobalGenerator g;
    return g;
}

// 24 random bits for float-sized uniforms, 53 for double: both land exactly on the type's grid in [0, 1).
double uniform01(DType dtype) {
    const uint64_t bits = generator().engine();
    if (dtype == DType::Float64) return static_cast<double>(bits >> 11) * 0x1.0p-53;
    return static_cast<double>(bits >> 40) * 0x1.0p-24;
}

template <typename Draw>
const Tensor& fillRandom(const Tensor& self, Draw&& draw) {
    if (cudaops::onCuda(self)) {
        // Drawn on the host from the same generator, so a seed gives the same numbers on every device.
        const Tensor host = empty(self.sizes(), self.dtype());
        fillRandom(host, draw);
        hostroute::writeBack(self, host);
        return self;
    }
    Tensor target = self.isContiguous() ? self : empty(self.sizes(), self.dtype());
    dispatchDType(target.dtype(), [&]<typename T>() {
        T* data = target.dataAs<T>();
        for (int64_t i = 0; i < target.numel(); ++i) data[i] = castValue<T>(draw());
    });
    if (!target.isSameTensor(self)) copyInto(self, target);
    return self;
}

Tensor floatFactory(const Shape& sizes, const TensorOptions& options, const char* op) {
    const DType dtype = options.dtype.value_or(kDefaultFloat);
    if (!isFloating(dtype))
        fail(ErrorKind::Runtime, fmt::format("\"{}\" not implemented for '{}'", op, dtypeKernelName(dtype)));
    return empty(sizes, dtype);
}

Tensor finish(Tensor t, const TensorOptions& options) {
    if (options.device && !options.device->isCpu()) t = to(t, std::nullopt, *options.device);
    if (options.requiresGrad) t.setRequiresGrad(true);
    return t;
}

}  // namespace

void manualSeed(uint64_t seed) {
    generator().engine.seed(seed);
    generator().seed = seed;
}

uint64_t initialSeed() { return generator().seed; }

GeneratorState generatorState() { return {generator().engine, generator().seed}; }

void setGeneratorState(const GeneratorState& state) {
    generator().engine = state.engine;
    generator().seed = state.seed;
}

const Tensor& uniformInPlace(const Tensor& self, double from, double to) {
    const DType dtype = self.dtype();
    return fillRandom(self, [&] { return from + (to - from) * uniform01(dtype); });
}

const Tensor& normalInPlace(const Tensor& self, double mean, double std) {
    if (std < 0) fail(ErrorKind::Runtime, fmt::format("normal expects std >= 0.0, but found std {}", std));
    // Box-Muller on two uniforms; 1 - u keeps the logarithm's argument in (0, 1].
    return fillRandom(self, [&] {
        const double u1 = 1.0 - uniform01(DType::Float64);
        const double u2 = uniform01(DType::Float64);
        return mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    });
}

const Tensor& bernoulliInPlace(const Tensor& self, double p) {
    if (p < 0 || p > 1) fail(ErrorKind::Runtime, fmt::format("bernoulli_ expects p to be in [0, 1], but got p={}", p));
    return fillRandom(self, [&] { return uniform01(DType::Float64) < p ? 1.0 : 0.0; });
}

Tensor rand(const Shape& sizes, const TensorOptions& options) {
    Tensor t = floatFactory(sizes, options, "check_uniform_bounds");
    uniformInPlace(t);
    return finish(t, options);
}

Tensor randn(const Shape& sizes, const TensorOptions& options) {
    Tensor t = floatFactory(sizes, options, "normal_kernel_cpu");
    normalInPlace(t);
    return finish(t, options);
}

Tensor randint(int64_t low, int64_t high, const Shape& sizes, const TensorOptions& options) {
    if (low >= high)
        fail(ErrorKind::Runtime, fmt::format("random_ expects 'from' to be less than 'to', but got from={} >= to={}", low, high));
    Tensor t = empty(sizes, options.dtype.value_or(DType::Int64));
    std::uniform_int_distribution<int64_t> dist(low, high - 1);
    fillRandom(t, [&] { return dist(generator().engine); });
    return finish(t, options);
}

Tensor randperm(int64_t n, const TensorOptions& options) {
    if (n < 0) fail(ErrorKind::Runtime, fmt::format("n must be non-negative, got{}", n));
    std::vector<int64_t> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = i;
    std::shuffle(values.begin(), values.end(), generator().engine);
    return finish(fromInts(values, {n}, options.dtype.value_or(DType::Int64)), options);
}

Tensor multinomial(const Tensor& probs, int64_t numSamples, bool replacement) {
    if (!isFloating(probs.dtype()))
        fail(ErrorKind::Runtime, fmt::format("multinomial only supports floating-point dtypes for input, got: {}", dtypeKernelName(probs.dtype())));
    if (probs.dim() != 1 && probs.dim() != 2) fail(ErrorKind::Runtime, "prob_dist must be 1 or 2 dim");
    const int64_t categories = probs.size(-1);
    if (numSamples <= 0) fail(ErrorKind::Runtime, "cannot sample n_sample <= 0 samples");
    if (!replacement && numSamples > categories)
        fail(ErrorKind::Runtime, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    const std::vector<double> p = toDoubles(contiguous(to(probs, std::nullopt, kCpu)));
    const int64_t rows = probs.dim() == 1 ? 1 : probs.size(0);
    for (double v : p)
        if (!(v >= 0) || std::isinf(v)) fail(ErrorKind::Runtime, "probability tensor contains either `inf`, `nan` or element < 0");
    std::vector<int64_t> samples;
    samples.reserve(static_cast<size_t>(rows * numSamples));
    for (int64_t r = 0; r < rows; ++r) {
        const double* row = p.data() + r * categories;
        double total = 0;
        for (int64_t c = 0; c < categories; ++c) total += row[c];
        if (total <= 0) fail(ErrorKind::Runtime, "invalid multinomial distribution (sum of probabilities <= 0)");
        if (!replacement || numSamples == 1) {
            // PyTorch's sampling without replacement: the categories with the largest p / q, q ~ Exp(1) per category
            // (the Gumbel-max trick with exp applied), as one draw per category.
            std::vector<double> score(static_cast<size_t>(categories));
            for (int64_t c = 0; c < categories; ++c) score[static_cast<size_t>(c)] = row[c] / -std::log1p(-uniform01(DType::Float64));
            std::vector<int64_t> order(static_cast<size_t>(categories));
            for (int64_t c = 0; c < categories; ++c) order[static_cast<size_t>(c)] = c;
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return score[static_cast<size_t>(a)] > score[static_cast<size_t>(b)]; });
            samples.insert(samples.end(), order.begin(), order.begin() + numSamples);
            continue;
        }
        // With replacement: a uniform draw per sample, found in the normalised cumulative distribution by binary search.
        std::vector<double> cumulative(static_cast<size_t>(categories));
        double running = 0;
        for (int64_t c = 0; c < categories; ++c) cumulative[static_cast<size_t>(c)] = (running += row[c]) / total;
        for (int64_t s = 0; s < numSamples; ++s) {
            const double u = uniform01(DType::Float64);
            // The first category whose cumulative probability passes u: never one of probability 0.
            const auto found = std::upper_bound(cumulative.begin(), cumulative.end(), u);
            int64_t index = std::min<int64_t>(found - cumulative.begin(), categories - 1);
            while (row[index] == 0 && index > 0) --index;  // rounding left the last sum under u
            samples.push_back(index);
        }
    }
    const Shape shape = probs.dim() == 1 ? Shape{numSamples} : Shape{rows, numSamples};
    return to(fromInts(samples, shape), std::nullopt, probs.device());
}

Tensor randLike(const Tensor& t) { return rand(t.sizes(), TensorOptions{t.dtype(), t.device(), false}); }
Tensor randnLike(const Tensor& t) { return randn(t.sizes(), TensorOptions{t.dtype(), t.device(), false}); }

}  // namespace eng::tensor
