// The random factories and in-place fills with PyTorch's CPU transformations: each kernel draws 32 or 64 bits per
// element as PyTorch's does, in the order its TensorIterator visits the elements (memory order), so a seed gives
// torch's values. CUDA tensors get the same host numbers (PyTorch's Philox stream is not reproduced).
#include "tensor/random.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <numeric>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/cuda_kernels.h"
#include "tensor/host_route.h"
#include "tensor/iteration.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace {

CpuGenerator& pick(CpuGenerator* gen) { return gen ? *gen : defaultGenerator(); }

std::map<int64_t, CpuGenerator>& generatorTable() {
    static std::map<int64_t, CpuGenerator> table;
    return table;
}

// uniform_real_distribution: the low `digits` bits of a 32-bit draw (53 of a 64-bit one for double) on the type's
// grid in [0, 1), then x * (to - from) + from in the type's accumulation precision (one fused multiply-add).
template <typename T>
T uniformSample(CpuGenerator& gen, double from, double to) {
    if constexpr (std::is_same_v<T, double>) {
        const double x = static_cast<double>(gen.random64() & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53;
        return std::fma(x, to - from, from);
    } else {
        constexpr int digits = std::is_same_v<T, Half> ? 11 : std::is_same_v<T, BFloat16> ? 8 : 24;
        const float low = static_cast<float>(castValue<T>(from)), high = static_cast<float>(castValue<T>(to));
        const float x = static_cast<float>(gen.random() & ((1U << digits) - 1)) * (1.0f / static_cast<float>(1U << digits));
        return castValue<T>(std::fma(x, high - low, low));
    }
}

double uniformDouble(CpuGenerator& gen) { return static_cast<double>(gen.random64() & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53; }

// normal_distribution<double> with the generator's cached second value (the path of small or strided tensors).
double normalSample(CpuGenerator& gen, double mean, double std) {
    double value = 0;
    if (gen.nextDoubleNormal) {
        value = *gen.nextDoubleNormal;
        gen.nextDoubleNormal.reset();
    } else {
        const double u1 = uniformDouble(gen);
        const double u2 = uniformDouble(gen);
        const double radius = std::sqrt(-2.0 * std::log1p(-u2));
        const double theta = 2.0 * std::numbers::pi * u1;
        gen.nextDoubleNormal = radius * std::sin(theta);
        value = radius * std::cos(theta);
    }
    return std::fma(value, std, mean);
}

// Runs `fill` over a contiguous tensor in the order PyTorch's TensorIterator visits self (memory order: dimensions
// by decreasing stride), then writes it into self; a CUDA tensor is filled on the host and copied over.
template <typename Fill>
const Tensor& fillInIteratorOrder(const Tensor& self, Fill&& fill) {
    if (cudaops::onCuda(self)) {
        const Tensor host = empty(self.sizes(), self.dtype());
        fill(host);
        hostroute::writeBack(self, host);
        return self;
    }
    if (self.isContiguous()) {
        fill(self);
        return self;
    }
    std::vector<int64_t> order(static_cast<size_t>(self.dim()));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return self.strides()[static_cast<size_t>(a)] > self.strides()[static_cast<size_t>(b)]; });
    const Tensor view = permute(self, order);
    const Tensor target = empty(view.sizes(), self.dtype());
    fill(target);
    copyInto(view, target);
    return self;
}

// One draw per element, in order.
template <typename Draw>
const Tensor& fillEach(const Tensor& self, Draw&& draw) {
    return fillInIteratorOrder(self, [&](const Tensor& target) {
        dispatchDType(target.dtype(), [&]<typename T>() {
            T* data = target.dataAs<T>();
            for (int64_t i = 0; i < target.numel(); ++i) data[i] = draw.template operator()<T>();
        });
    });
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

// The inverse error function as PyTorch's calc_erfinv computes it (a rational first guess, then two Newton steps), in
// double for a float input: trunc_normal_'s values come out within one float ulp of torch's (98% bit-equal; torch's
// vectorised float kernel rounds its last step its own way).
double erfinvOf(double y) {
    constexpr double kA[] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
    constexpr double kB[] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
    constexpr double kC[] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
    constexpr double kD[] = {3.543889200, 1.637067800};
    const double magnitude = std::fabs(y);
    if (magnitude > 1.0) return std::numeric_limits<double>::quiet_NaN();
    if (magnitude == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
    double x = 0;
    if (magnitude <= 0.7) {
        const double z = y * y;
        const double num = ((kA[3] * z + kA[2]) * z + kA[1]) * z + kA[0];
        const double dem = (((kB[3] * z + kB[2]) * z + kB[1]) * z + kB[0]) * z + 1.0;
        x = y * num / dem;
    } else {
        const double z = std::sqrt(-std::log((1.0 - magnitude) / 2.0));
        const double num = ((kC[3] * z + kC[2]) * z + kC[1]) * z + kC[0];
        const double dem = (kD[1] * z + kD[0]) * z + 1.0;
        x = std::copysign(num, y) / dem;
    }
    const double slope = 2.0 / std::sqrt(std::numbers::pi);
    x = x - (std::erf(x) - y) / (slope * std::exp(-x * x));
    x = x - (std::erf(x) - y) / (slope * std::exp(-x * x));
    return x;
}

}  // namespace

CpuGenerator& defaultGenerator() {
    static CpuGenerator global;
    return global;
}

void manualSeed(uint64_t seed) { defaultGenerator().manualSeed(seed); }

uint64_t initialSeed() { return defaultGenerator().initialSeed(); }

int64_t newGenerator() {
    auto& table = generatorTable();
    const int64_t id = table.empty() ? 1 : table.rbegin()->first + 1;
    table.emplace(id, CpuGenerator());
    return id;
}

CpuGenerator& generatorById(int64_t id) {
    auto it = generatorTable().find(id);
    if (it == generatorTable().end()) fail(ErrorKind::Runtime, fmt::format("no torch.Generator with id {}", id));
    return it->second;
}

Value generatorValue(int64_t id) { return Value::namedTuple("torch.Generator", {"id"}, {Value(id)}); }

CpuGenerator& generatorFrom(const Value& generator) {
    if (generator.isNone()) return defaultGenerator();
    if (generator.kind() == Value::Kind::Tuple && generator.sequence().typeName == "torch.Generator")
        return generatorById(generator.items().at(0).toInt());
    fail(ErrorKind::Type, "generator must be a torch.Generator");
}

GeneratorState generatorState() {
    GeneratorState state{defaultGenerator(), {}};
    for (const auto& [id, gen] : generatorTable()) state.others.emplace_back(id, gen);
    return state;
}

void setGeneratorState(const GeneratorState& state) {
    defaultGenerator() = state.global;
    for (const auto& [id, gen] : state.others) generatorTable().insert_or_assign(id, gen);
}

const Tensor& uniformInPlace(const Tensor& self, double from, double to, CpuGenerator* gen) {
    if (!isFloating(self.dtype()))
        fail(ErrorKind::Runtime, fmt::format("\"check_uniform_bounds\" not implemented for '{}'", dtypeKernelName(self.dtype())));
    if (from > to) fail(ErrorKind::Runtime, fmt::format("uniform_ expects to return a [from, to) range, but found from={} > to={}", from, to));
    CpuGenerator& g = pick(gen);
    return fillEach(self, [&]<typename T>() -> T {
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return uniformSample<T>(g, from, to);
        else return T{};
    });
}

const Tensor& normalInPlace(const Tensor& self, double mean, double std, CpuGenerator* gen) {
    if (std < 0) fail(ErrorKind::Runtime, fmt::format("normal expects std >= 0.0, but found std {}", std));
    CpuGenerator& g = pick(gen);
    if (self.numel() >= 16 && (self.isContiguous() || cudaops::onCuda(self)))
        return fillInIteratorOrder(self, [&](const Tensor& target) { normalFillBlocks(target, mean, std, g); });
    return fillEach(self, [&]<typename T>() { return castValue<T>(normalSample(g, mean, std)); });
}

const Tensor& bernoulliInPlace(const Tensor& self, double p, CpuGenerator* gen) {
    if (p < 0 || p > 1) fail(ErrorKind::Runtime, fmt::format("bernoulli_ expects p to be in [0, 1], but got p={}", p));
    CpuGenerator& g = pick(gen);
    return fillEach(self, [&]<typename T>() { return castValue<T>(uniformDouble(g) < p ? 1.0 : 0.0); });
}

const Tensor& exponentialInPlace(const Tensor& self, double lambda, CpuGenerator* gen) {
    if (!(lambda > 0)) fail(ErrorKind::Runtime, fmt::format("exponential_ expects lambda > 0.0, but found lambda={}", lambda));
    CpuGenerator& g = pick(gen);
    return fillEach(self, [&]<typename T>() { return castValue<T>(-1.0 / lambda * std::log1p(-uniformDouble(g))); });
}

const Tensor& randomInPlace(const Tensor& self, int64_t from, std::optional<int64_t> to, CpuGenerator* gen) {
    CpuGenerator& g = pick(gen);
    const DType dtype = self.dtype();
    const bool wide = dtype == DType::Int64 || dtype == DType::Float64 || dtype == DType::Float32 || dtype == DType::BFloat16;
    if (to) {
        if (from >= *to) fail(ErrorKind::Runtime, fmt::format("random_ expects 'from' to be less than 'to', but got from={} >= to={}", from, *to));
        // uniform_int_from_to_distribution: a 64-bit draw only for ranges of 2^32 or more in the wide types.
        const uint64_t range = static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
        return fillEach(self, [&]<typename T>() {
            const uint64_t bits = wide && range >= (uint64_t{1} << 32) ? g.random64() : g.random();
            return castValue<T>(static_cast<int64_t>(bits % range + static_cast<uint64_t>(from)));
        });
    }
    if (from != 0) fail(ErrorKind::NotImplemented, "random_(from) without 'to' is not supported");
    // uniform_int_distribution: [0, 2^digits] for floats, [0, max] for integers, a bit for bool.
    return fillEach(self, [&]<typename T>() {
        if constexpr (std::is_same_v<T, bool>) {
            return static_cast<bool>(g.random() & 1U);
        } else if constexpr (std::is_same_v<T, double>) {
            return static_cast<double>(g.random64() % ((uint64_t{1} << 53) + 1));
        } else if constexpr (std::is_same_v<T, int64_t>) {
            return static_cast<int64_t>(g.random64() % (static_cast<uint64_t>(INT64_MAX) + 1));
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
            constexpr int digits = std::is_same_v<T, Half> ? 11 : std::is_same_v<T, BFloat16> ? 8 : 24;
            return castValue<T>(static_cast<double>(g.random() % ((uint64_t{1} << digits) + 1)));
        } else {
            return static_cast<T>(g.random() % (static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1));
        }
    });
}

const Tensor& truncNormalInPlace(const Tensor& self, double mean, double std, double a, double b, CpuGenerator* gen) {
    auto normCdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
    const double low = normCdf((a - mean) / std), high = normCdf((b - mean) / std);
    uniformInPlace(self, 2 * low - 1, 2 * high - 1, gen);
    // erfinv_, mul_(std * sqrt(2)), add_(mean), clamp_(a, b): each a float op on the tensor, as PyTorch runs them.
    if (self.dtype() != DType::Float32)
        fail(ErrorKind::NotImplemented, fmt::format("trunc_normal_ of {} is not supported (float32 only)", dtypeKernelName(self.dtype())));
    const Tensor values = contiguous(to(self, std::nullopt, kCpu));
    float* data = values.dataAs<float>();
    const float scale = static_cast<float>(std * std::sqrt(2.0)), shift = static_cast<float>(mean);
    for (int64_t i = 0; i < values.numel(); ++i) {
        const float scaled = static_cast<float>(erfinvOf(data[i])) * scale;
        data[i] = std::clamp(scaled + shift, static_cast<float>(a), static_cast<float>(b));
    }
    copyInto(self, values);
    return self;
}

Tensor rand(const Shape& sizes, const TensorOptions& options, CpuGenerator* gen) {
    Tensor t = floatFactory(sizes, options, "check_uniform_bounds");
    uniformInPlace(t, 0.0, 1.0, gen);
    return finish(t, options);
}

Tensor randn(const Shape& sizes, const TensorOptions& options, CpuGenerator* gen) {
    Tensor t = floatFactory(sizes, options, "normal_kernel_cpu");
    normalInPlace(t, 0.0, 1.0, gen);
    return finish(t, options);
}

Tensor randint(int64_t low, int64_t high, const Shape& sizes, const TensorOptions& options, CpuGenerator* gen) {
    if (low >= high)
        fail(ErrorKind::Runtime, fmt::format("random_ expects 'from' to be less than 'to', but got from={} >= to={}", low, high));
    Tensor t = empty(sizes, options.dtype.value_or(DType::Int64));
    randomInPlace(t, low, high, gen);
    return finish(t, options);
}

Tensor randperm(int64_t n, const TensorOptions& options, CpuGenerator* gen) {
    if (n < 0) fail(ErrorKind::Runtime, fmt::format("n must be non-negative, got{}", n));
    CpuGenerator& g = pick(gen);
    std::vector<int64_t> values(static_cast<size_t>(n));
    if (n < static_cast<int64_t>(std::numeric_limits<uint32_t>::max() / 20)) {
        // A forward Fisher-Yates shuffle on 32-bit draws.
        std::iota(values.begin(), values.end(), 0);
        for (int64_t i = 0; i + 1 < n; ++i) {
            const auto z = static_cast<int64_t>(g.random() % static_cast<uint64_t>(n - i));
            std::swap(values[static_cast<size_t>(i)], values[static_cast<size_t>(i + z)]);
        }
    } else {
        // Large n: the inside-out shuffle on 64-bit draws.
        for (int64_t i = 0; i < n; ++i) {
            const auto z = static_cast<int64_t>(g.random64() % static_cast<uint64_t>(i + 1));
            values[static_cast<size_t>(i)] = values[static_cast<size_t>(z)];
            values[static_cast<size_t>(z)] = i;
        }
    }
    return finish(fromInts(values, {n}, options.dtype.value_or(DType::Int64)), options);
}

Tensor multinomial(const Tensor& probs, int64_t numSamples, bool replacement, CpuGenerator* gen) {
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
    CpuGenerator& g = pick(gen);
    const bool single = probs.dtype() != DType::Float64;
    std::vector<int64_t> samples;
    samples.reserve(static_cast<size_t>(rows * numSamples));
    if (!replacement || numSamples == 1) {
        // PyTorch's sampling without replacement: q = exponential_() over the whole tensor (in its dtype), then the
        // categories with the largest p / q per row (the Gumbel-max trick with exp applied).
        std::vector<double> q(p.size());
        for (double& v : q) {
            v = -std::log1p(-uniformDouble(g));
            if (single) v = static_cast<float>(v);
        }
        for (int64_t r = 0; r < rows; ++r) {
            std::vector<double> score(static_cast<size_t>(categories));
            for (int64_t c = 0; c < categories; ++c) {
                const size_t at = static_cast<size_t>(r * categories + c);
                score[static_cast<size_t>(c)] = single ? static_cast<float>(static_cast<float>(p[at]) / static_cast<float>(q[at])) : p[at] / q[at];
            }
            std::vector<int64_t> order(static_cast<size_t>(categories));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return score[static_cast<size_t>(a)] > score[static_cast<size_t>(b)]; });
            samples.insert(samples.end(), order.begin(), order.begin() + numSamples);
        }
    } else {
        for (int64_t r = 0; r < rows; ++r) {
            const double* row = p.data() + r * categories;
            double total = 0;
            for (int64_t c = 0; c < categories; ++c) total += row[c];
            if (total <= 0) fail(ErrorKind::Runtime, "invalid multinomial distribution (sum of probabilities <= 0)");
            // A uniform draw per sample, found by binary search in the normalised cumulative distribution.
            std::vector<double> cumulative(static_cast<size_t>(categories));
            double running = 0;
            for (int64_t c = 0; c < categories; ++c) cumulative[static_cast<size_t>(c)] = (running += row[c]) / total;
            for (int64_t s = 0; s < numSamples; ++s) {
                const double u = uniformDouble(g);
                const auto found = std::lower_bound(cumulative.begin(), cumulative.end(), u);
                int64_t index = std::min<int64_t>(found - cumulative.begin(), categories - 1);
                while (row[index] == 0 && index > 0) --index;  // rounding left the last sum under u
                samples.push_back(index);
            }
        }
    }
    const Shape shape = probs.dim() == 1 ? Shape{numSamples} : Shape{rows, numSamples};
    return to(fromInts(samples, shape), std::nullopt, probs.device());
}

Tensor randLike(const Tensor& t) { return rand(t.sizes(), TensorOptions{t.dtype(), t.device(), false}); }
Tensor randnLike(const Tensor& t) { return randn(t.sizes(), TensorOptions{t.dtype(), t.device(), false}); }

}  // namespace eng::tensor
