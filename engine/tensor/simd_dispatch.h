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

// fn() compiled for one instruction set, with everything it calls inlined (flatten: GCC's inliner otherwise
// leaves a large element function, such as GELU's erf, as a call per element, which cannot vectorise). Callees
// that cannot be inlined stay baseline code, so a variant runs its own instructions only after simdLevel()
// chose it.
template <typename Fn>
[[gnu::flatten]] void runBaseline(const Fn& fn) {
    fn();
}

#if defined(__x86_64__) && defined(__GNUC__)
// GCC otherwise tunes AVX-512 code for 256-bit vectors; clang's target attribute has no such option (it warns).
#if defined(__clang__)
#define CWB_AVX512_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"
#else
#define CWB_AVX512_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"
#endif
template <typename Fn>
[[gnu::target("avx2,fma"), gnu::flatten]] void runAvx2(const Fn& fn) {
    fn();
}
template <typename Fn>
[[gnu::target(CWB_AVX512_TARGET), gnu::flatten]] void runAvx512(
    const Fn& fn) {
    fn();
}
#endif

// fn() on the level simdLevel() chose.
template <typename Fn>
void run(const Fn& fn) {
#if defined(__x86_64__) && defined(__GNUC__)
    switch (simdLevel()) {
        case SimdLevel::Avx512: return runAvx512(fn);
        case SimdLevel::Avx2: return runAvx2(fn);
        case SimdLevel::Baseline: break;
    }
#endif
    runBaseline(fn);
}

// body(i) for i in [0, n), vectorised on the chosen level.
template <typename Body>
void loop(int64_t n, const Body& body) {
    run([&] {
        for (int64_t i = 0; i < n; ++i) body(i);
    });
}

// The sum of term(i) over [0, n) in double, as kSumLanes interleaved partial sums that vectorise (a serial double
// sum waits on each add's latency); lane k sums i = k mod kSumLanes, so the order, and the result, is the same on
// every level. Call it inside run() so that it is compiled for the chosen level.
constexpr int kSumLanes = 16;
template <typename Term>
[[gnu::always_inline]] inline double laneSum(int64_t n, const Term& term) {
    double lanes[kSumLanes] = {};
    int64_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
#pragma GCC unroll 16
        for (int k = 0; k < kSumLanes; ++k) lanes[k] += term(i + k);
    }
    double total = 0;
    for (; i < n; ++i) total += term(i);
    for (double lane : lanes) total += lane;
    return total;
}

}  // namespace simd

}  // namespace eng::tensor
