// 16-bit floating-point storage types (IEEE binary16 and bfloat16). Arithmetic happens in float: these
// types only convert, with round-to-nearest-even on the way down, exactly as PyTorch's c10::Half/BFloat16.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace eng::tensor {

constexpr uint16_t floatToHalfBits(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN stays a quiet NaN
    if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
    if (magnitude < 0x38800000u) {
        // Subnormal half: the value in units of 2^-24, rounded half to even. Scaling by 2^24 is exact.
        const float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;
        const auto whole = static_cast<uint32_t>(scaled);
        const float fraction = scaled - static_cast<float>(whole);
        uint32_t rounded = whole;
        if (fraction > 0.5f || (fraction == 0.5f && (whole & 1u))) ++rounded;
        return static_cast<uint16_t>(sign | rounded);
    }
    // Normal: rebias the exponent, then round the 13 dropped mantissa bits to nearest even. A carry out of
    // the mantissa correctly bumps the exponent.
    uint32_t rebiased = magnitude - (static_cast<uint32_t>(127 - 15) << 23);
    rebiased += 0x0fffu + ((rebiased >> 13) & 1u);
    return static_cast<uint16_t>(sign | (rebiased >> 13));
}

constexpr float halfBitsToFloat(uint16_t half) {
    const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
    const uint32_t exponent = (half >> 10) & 0x1fu;
    const uint32_t mantissa = half & 0x3ffu;
    if (exponent == 0) {
        // Subnormal (or zero): mantissa * 2^-24, exact in float.
        const float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

constexpr uint16_t floatToBFloat16Bits(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
    const uint32_t roundingBias = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

constexpr float bfloat16BitsToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

// Half and BFloat16 convert implicitly to float so that generic kernels can compute in float; building
// one from a wider value is explicit because it rounds.
struct Half {
    uint16_t bits = 0;
    constexpr Half() = default;
    constexpr explicit Half(float value) : bits(floatToHalfBits(value)) {}
    constexpr explicit Half(double value) : Half(static_cast<float>(value)) {}
    static constexpr Half fromBits(uint16_t raw) {
        Half h;
        h.bits = raw;
        return h;
    }
    constexpr operator float() const { return halfBitsToFloat(bits); }  // NOLINT(google-explicit-constructor)
};

struct BFloat16 {
    uint16_t bits = 0;
    constexpr BFloat16() = default;
    constexpr explicit BFloat16(float value) : bits(floatToBFloat16Bits(value)) {}
    constexpr explicit BFloat16(double value) : BFloat16(static_cast<float>(value)) {}
    static constexpr BFloat16 fromBits(uint16_t raw) {
        BFloat16 b;
        b.bits = raw;
        return b;
    }
    constexpr operator float() const { return bfloat16BitsToFloat(bits); }  // NOLINT(google-explicit-constructor)
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

}  // namespace eng::tensor
