// The block normal fill PyTorch's CPU kernel uses for contiguous tensors of 16 or more elements: every element's
// uniform is drawn first, then each block of 16 becomes 8 Box-Muller pairs (element j with j + 8), and a tail that
// is not a whole block redraws the last 16 uniforms. float32 follows the AVX2 kernel (the Cephes log and sincos of
// avx_mathfun.h, lane by lane, with the fused multiply-adds GCC forms in PyTorch's build); float64 uses libm.
#include <cmath>
#include <cstring>
#include <numbers>

#include "tensor/random.h"

namespace eng::tensor {

namespace {

float fromBits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

uint32_t toBits(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

// a * b + c with one rounding, as the compiled kernel's vfmadd (inlined into fill16's clones: a vfmadd instruction
// where the CPU has one, libm's exact software fma elsewhere; the same value either way).
[[gnu::always_inline]] inline float fused(float a, float b, float c) { return std::fma(a, b, c); }

// avx_mathfun.h's log256_ps for one lane (inputs here are in (0, 1]).
[[gnu::always_inline]] inline float cephesLog(float x) {
    constexpr float kSqrtHalf = static_cast<float>(0.707106781186547524);
    constexpr float kP[] = {static_cast<float>(7.0376836292E-2),  static_cast<float>(-1.1514610310E-1), static_cast<float>(1.1676998740E-1),
                            static_cast<float>(-1.2420140846E-1), static_cast<float>(1.4249322787E-1),  static_cast<float>(-1.6668057665E-1),
                            static_cast<float>(2.0000714765E-1),  static_cast<float>(-2.4999993993E-1), static_cast<float>(3.3333331174E-1)};
    constexpr float kQ1 = static_cast<float>(-2.12194440e-4), kQ2 = static_cast<float>(0.693359375);
    const bool invalid = x <= 0.0f;
    x = std::fmax(x, fromBits(0x00800000U));
    const int32_t exponent = static_cast<int32_t>(toBits(x) >> 23) - 0x7f;
    x = fromBits((toBits(x) & ~0x7f800000U) | toBits(0.5f));
    float e = static_cast<float>(exponent) + 1.0f;
    const bool below = x < kSqrtHalf;
    const float kept = below ? x : 0.0f;
    x = x - 1.0f;
    e = e - (below ? 1.0f : 0.0f);
    x = x + kept;
    const float z = x * x;
    float y = fused(kP[0], x, kP[1]);
    for (int k = 2; k <= 8; ++k) y = fused(y, x, kP[k]);
    y = y * x;
    y = fused(y, z, e * kQ1);
    y = fused(-z, 0.5f, y);
    x = fused(e, kQ2, x + y);
    return invalid ? fromBits(toBits(x) | 0xffffffffU) : x;
}

// avx_mathfun.h's sincos256_ps for one lane.
[[gnu::always_inline]] inline void cephesSinCos(float x, float& sine, float& cosine) {
    constexpr float kFourOverPi = static_cast<float>(1.27323954473516);
    constexpr float kDp1 = static_cast<float>(-0.78515625), kDp2 = static_cast<float>(-2.4187564849853515625e-4),
                    kDp3 = static_cast<float>(-3.77489497744594108e-8);
    constexpr float kSin0 = static_cast<float>(-1.9515295891E-4), kSin1 = static_cast<float>(8.3321608736E-3),
                    kSin2 = static_cast<float>(-1.6666654611E-1);
    constexpr float kCos0 = static_cast<float>(2.443315711809948E-005), kCos1 = static_cast<float>(-1.388731625493765E-003),
                    kCos2 = static_cast<float>(4.166664568298827E-002);
    uint32_t sineSign = toBits(x) & 0x80000000U;
    x = std::fabs(x);
    int32_t octant = static_cast<int32_t>(x * kFourOverPi);  // truncation, as cvttps
    octant = (octant + 1) & ~1;
    const float y = static_cast<float>(octant);
    sineSign ^= static_cast<uint32_t>(octant & 4) << 29;
    const bool sinePolynomial = (octant & 2) == 0;
    const uint32_t cosineSign = static_cast<uint32_t>(~(octant - 2) & 4) << 29;
    x = fused(y, kDp1, x);
    x = fused(y, kDp2, x);
    x = fused(y, kDp3, x);
    const float z = x * x;
    float c = fused(kCos0, z, kCos1);
    c = fused(c, z, kCos2);
    c = c * z;
    c = fused(c, z, -(z * 0.5f));
    c = c + 1.0f;
    float s = fused(kSin0, z, kSin1);
    s = fused(s, z, kSin2);
    s = s * z;
    s = fused(s, x, x);
    sine = fromBits(toBits(sinePolynomial ? s : c) ^ sineSign);
    cosine = fromBits(toBits(sinePolynomial ? c : s) ^ cosineSign);
}

[[gnu::target_clones("fma", "default")]] void fill16(float* data, float mean, float std) {
    const float twoPi = static_cast<float>(2.0f * std::numbers::pi);
    for (int j = 0; j < 8; ++j) {
        const float radius = std::sqrt(-2.0f * cephesLog(1.0f - data[j]));
        float sine = 0, cosine = 0;
        cephesSinCos(twoPi * data[j + 8], sine, cosine);
        data[j] = fused(radius * cosine, std, mean);
        data[j + 8] = fused(radius * sine, std, mean);
    }
}

void fill16(double* data, double mean, double std) {
    for (int j = 0; j < 8; ++j) {
        const double radius = std::sqrt(-2 * std::log(1 - data[j]));
        const double theta = 2.0 * std::numbers::pi * data[j + 8];
        data[j] = std::fma(radius * std::cos(theta), std, mean);
        data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
    }
}

template <typename T>
T uniformDraw(CpuGenerator& gen) {
    if constexpr (std::is_same_v<T, double>) return static_cast<double>(gen.random64() & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53;
    else return static_cast<float>(gen.random() & 0xffffffU) * 0x1.0p-24f;
}

template <typename T>
void fillBlocks(T* data, int64_t size, T mean, T std, CpuGenerator& gen) {
    for (int64_t i = 0; i < size; ++i) data[i] = uniformDraw<T>(gen);
    for (int64_t i = 0; i + 16 <= size; i += 16) fill16(data + i, mean, std);
    if (size % 16 != 0) {
        T* tail = data + size - 16;
        for (int i = 0; i < 16; ++i) tail[i] = uniformDraw<T>(gen);
        fill16(tail, mean, std);
    }
}

}  // namespace

void normalFillBlocks(const Tensor& target, double mean, double std, CpuGenerator& gen) {
    if (target.dtype() == DType::Float64) {
        fillBlocks(target.dataAs<double>(), target.numel(), mean, std, gen);
        return;
    }
    if (target.dtype() == DType::Float32) {
        fillBlocks(target.dataAs<float>(), target.numel(), static_cast<float>(mean), static_cast<float>(std), gen);
        return;
    }
    // float16 / bfloat16: PyTorch's generic block fill in float arithmetic, rounded once at the end.
    Tensor wide = empty(target.sizes(), DType::Float32);
    fillBlocks(wide.dataAs<float>(), wide.numel(), static_cast<float>(mean), static_cast<float>(std), gen);
    dispatchDType(target.dtype(), [&]<typename T>() {
        T* out = target.dataAs<T>();
        const float* in = wide.dataAs<float>();
        for (int64_t i = 0; i < target.numel(); ++i) out[i] = castValue<T>(in[i]);
    });
}

}  // namespace eng::tensor
