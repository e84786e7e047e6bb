// Run-time dispatch of the eager CPU loops to the host's widest vector instructions (SSE2, AVX2+FMA, AVX-512):
// one loop body, compiled once per instruction set through GCC's target attribute, chosen per call.
#pragma once

#include <cstdint>
#include <string_view>

namespace eng::tensor {

enum class SimdLevel : uint8_t { Baseline, Avx2, Avx512 };

// The level the loops use: the host's best, lowered by CWB_CPU_SIMD=baseline|avx2 (to compare or to reproduce).
SimdLevel simdLevel();
// The host's best level (what simdLevel() may be set to at most).
SimdLevel hostSimdLevel();
// Sets the level (clamped to the host's) and returns the previous one; tests run every level this way.
SimdLevel setSimdLevel(SimdLevel level);
std::string_view simdLevelName(SimdLevel level);

namespace simd {

// body(i) for i in [0, n), with the body and everything it calls inlined (flatten: GCC's inliner otherwise
// leaves a large element function, such as GELU's erf, as a call per element, which cannot vectorise). Callees
// that cannot be inlined stay baseline code, so a variant runs its own instructions only after simdLevel()
// chose it.
template <typename Body>
[[gnu::flatten]] void loopBaseline(int64_t n, const Body& body) {
    for (int64_t i = 0; i < n; ++i) body(i);
}

#if defined(__x86_64__) && defined(__GNUC__)
template <typename Body>
[[gnu::target("avx2,fma"), gnu::flatten]] void loopAvx2(int64_t n, const Body& body) {
    for (int64_t i = 0; i < n; ++i) body(i);
}
template <typename Body>
[[gnu::target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"), gnu::flatten]] void loopAvx512(
    int64_t n, const Body& body) {
    for (int64_t i = 0; i < n; ++i) body(i);
}
#endif

template <typename Body>
void loop(int64_t n, const Body& body) {
#if defined(__x86_64__) && defined(__GNUC__)
    switch (simdLevel()) {
        case SimdLevel::Avx512: return loopAvx512(n, body);
        case SimdLevel::Avx2: return loopAvx2(n, body);
        case SimdLevel::Baseline: break;
    }
#endif
    loopBaseline(n, body);
}

}  // namespace simd

}  // namespace eng::tensor
