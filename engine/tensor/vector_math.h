// Branch-free float32 exp, tanh, erf and friends that the compiler can vectorise: libm's versions are called
// once per element and set errno, which keeps the pointwise loops scalar. Accurate to a few float ulps (the
// accuracy is asserted over dense grids in tests/unit/engine/tensor/vector_math_test.cpp).
#pragma once

#include <bit>
#include <cstdint>

namespace eng::tensor::vecmath {

// e^x for float with x already inside [-87.34, 88.73] (no saturation): x = n*ln2 + r with |r| <= ln2/2, e^r by its
// Taylor series to degree 7 (remainder < 6e-9 relative), then 2^n put straight into the exponent bits: one factor
// where n <= 127 is known (kWideExponent false: |x| <= 87), else two so that n = 128 does not overflow the exponent.
// The constants of that exp, also those of the AVX-512 copy in cpu_attention_bf16.cpp (expNonPositive).
namespace expconst {
inline constexpr float kLog2e = 1.44269504088896341f;
// ln2 split in two so that n*ln2 is exact in its high part (Cody and Waite).
inline constexpr float kLn2High = 0.693145751953125f;
inline constexpr float kLn2Low = 1.428606765330187045e-6f;
// Round to nearest by adding and subtracting 1.5 * 2^23 (SSE2 has no rounding instruction to vectorise); the
// shifted float's low bits are then n itself, read without a float-to-int conversion (undefined for NaN,
// which flows through as NaN instead).
inline constexpr float kRoundingShift = 12582912.0f;
// 1/7!, 1/6!, ..., 1/2!: the series' coefficients in Horner's order.
inline constexpr float kSeries[] = {1.0f / 5040.0f, 1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f};
}  // namespace expconst

template <bool kWideExponent>
[[gnu::always_inline]] inline float expNoSaturation(float x) {
    using namespace expconst;
    const float shifted = x * kLog2e + kRoundingShift;
    const float n = shifted - kRoundingShift;
    const float r = (x - n * kLn2High) - n * kLn2Low;
    // 1 + (r + r^2 (1/2! + r/3! + ... + r^5/7!)): the polynomial's rounding errors stay inside the small
    // correction, and the final 1 + s rounds once, so results are within an ulp.
    float q = kSeries[0];
    q = q * r + kSeries[1];
    q = q * r + kSeries[2];
    q = q * r + kSeries[3];
    q = q * r + kSeries[4];
    q = q * r + kSeries[5];
    const float p = 1.0f + (r + (r * r) * q);
    // n lies in [-126, 128]; both forms multiply p by powers of two exactly, so they give the same result.
    const auto exponent = static_cast<int32_t>(std::bit_cast<uint32_t>(shifted) - std::bit_cast<uint32_t>(kRoundingShift));
    if constexpr (kWideExponent) {
        const int32_t half = exponent >> 1;
        const float scaleA = std::bit_cast<float>(static_cast<uint32_t>(half + 127) << 23);
        const float scaleB = std::bit_cast<float>(static_cast<uint32_t>(exponent - half + 127) << 23);
        return p * scaleA * scaleB;
    } else {
        return p * std::bit_cast<float>(static_cast<uint32_t>(exponent + 127) << 23);
    }
}

// e^x for |x| <= 87, which tanh and erf bound themselves: it saves exp's clamps and selects and one of its two
// scalings (a sixth of GELU's vector instructions).
[[gnu::always_inline]] inline float expInRange(float x) { return expNoSaturation<false>(x); }

// e^x for float: expNoSaturation on the clamped input; inputs past the float range saturate to 0 / inf.
[[gnu::always_inline]] inline float exp(float x) {
    constexpr float kMaxInput = 88.7228f;   // e^x overflows float above this
    constexpr float kMinInput = -87.3365f;  // and is below the smallest normal float under this
    const bool overflow = x > kMaxInput;
    const bool underflow = x < kMinInput;
    const float clamped = x > kMaxInput ? kMaxInput : (x < kMinInput ? kMinInput : x);
    const float result = vecmath::expNoSaturation<true>(clamped);
    return overflow ? __builtin_inff() : (underflow ? 0.0f : result);
}

// tanh for float. Small |x|: the odd Taylor series (cancellation would cost relative accuracy there);
// otherwise 1 - 2/(e^{2|x|} + 1), with the sign put back.
[[gnu::always_inline]] inline float tanh(float x) {
    const float ax = x < 0 ? -x : x;
    const float x2 = x * x;
    // x - x^3/3 + 2x^5/15 - 17x^7/315 + 62x^9/2835 - 1382x^11/155925; below 0.25 the next term is < 1e-9.
    float series = -1382.0f / 155925.0f;
    series = series * x2 + 62.0f / 2835.0f;
    series = series * x2 - 17.0f / 315.0f;
    series = series * x2 + 2.0f / 15.0f;
    series = series * x2 - 1.0f / 3.0f;
    // The odd series has x's sign already, but -0 + (+0) is +0: copysign keeps tanh(-0) = -0, as libm's.
    series = __builtin_copysignf(x + x * x2 * series, x);
    // 2|x| <= 20 (tanh(10) is 1 in float), inside expInRange's range.
    const float e = vecmath::expInRange(2.0f * (ax > 10.0f ? 10.0f : ax));
    const float large = 1.0f - 2.0f / (e + 1.0f);
    const float signedLarge = x < 0 ? -large : large;
    return ax < 0.25f ? series : signedLarge;
}

// erf for float. |x| < 0.75: the odd Maclaurin series (terms to x^19 leave < 2e-9). Otherwise 1 - erfc(|x|)
// with erfc(x) = t * e^{P(u) - x^2}, t = 1/(1 + x/2), u = t mapped onto [-1, 1] over x in [0.75, 10]: P is our
// degree-8 Chebyshev interpolant of log(erfc(x) e^{x^2} / t) (relative error of erfc under 2e-8 in double).
[[gnu::always_inline]] inline float erf(float x) {
    const float ax = x < 0 ? -x : x;
    const float x2 = x * x;
    // 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)), n = 0..9, in Horner form over x^2.
    constexpr float kTwoOverSqrtPi = 1.12837916709551257f;
    float series = -1.0f / (362880.0f * 19.0f);
    series = series * x2 + 1.0f / (40320.0f * 17.0f);
    series = series * x2 - 1.0f / (5040.0f * 15.0f);
    series = series * x2 + 1.0f / (720.0f * 13.0f);
    series = series * x2 - 1.0f / (120.0f * 11.0f);
    series = series * x2 + 1.0f / (24.0f * 9.0f);
    series = series * x2 - 1.0f / (6.0f * 7.0f);
    series = series * x2 + 1.0f / (2.0f * 5.0f);
    series = series * x2 - 1.0f / 3.0f;
    series = series * x2 + 1.0f;
    series = kTwoOverSqrtPi * x * series;

    // Past x = 4, erfc(x) < 1.6e-8 is under half an ulp of 1, so erf rounds to 1 whatever the clamped x gives; the
    // clamp also keeps the exponent below inside expInRange's range (poly - x^2 >= -18).
    const float clampedX = ax > 4.0f ? 4.0f : ax;
    const float t = 1.0f / (1.0f + 0.5f * clampedX);
    // t runs over [1/6, 8/11] for x in [0.75, 10]; u = (2t - (1/6 + 8/11)) / (8/11 - 1/6).
    const float u = t * 3.567567568f - 1.594594595f;
    float poly = -6.791623945e-06f;
    poly = poly * u - 2.697453025e-05f;
    poly = poly * u + 1.043526882e-04f;
    poly = poly * u + 3.922599854e-04f;
    poly = poly * u - 1.398426055e-03f;
    poly = poly * u - 7.357409216e-03f;
    poly = poly * u + 1.932721050e-02f;
    poly = poly * u + 3.706001269e-01f;
    poly = poly * u - 7.425478898e-01f;
    const float erfc = t * vecmath::expInRange(poly - clampedX * clampedX);
    const float large = 1.0f - erfc;
    const float signedLarge = x < 0 ? -large : large;
    return ax < 0.75f ? series : signedLarge;
}

[[gnu::always_inline]] inline float sigmoid(float x) { return 1.0f / (1.0f + vecmath::exp(-x)); }

}  // namespace eng::tensor::vecmath
