// The host's vector instruction set, read once (cpuid through __builtin_cpu_supports), and the level in use.
#include "tensor/simd_dispatch.h"

#include <atomic>
#include <cstdlib>
#include <string>

namespace eng::tensor {

namespace {

SimdLevel detectHost() {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return SimdLevel::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return SimdLevel::Avx2;
#endif
    return SimdLevel::Baseline;
}

SimdLevel clampToHost(SimdLevel level) {
    return static_cast<uint8_t>(level) > static_cast<uint8_t>(hostSimdLevel()) ? hostSimdLevel() : level;
}

SimdLevel initialLevel() {
    SimdLevel level = hostSimdLevel();
    if (const char* env = std::getenv("CWB_CPU_SIMD")) {
        const std::string wanted = env;
        if (wanted == "baseline") level = SimdLevel::Baseline;
        else if (wanted == "avx2") level = SimdLevel::Avx2;
    }
    return clampToHost(level);
}

std::atomic<SimdLevel>& currentLevel() {
    static std::atomic<SimdLevel> level{initialLevel()};
    return level;
}

}  // namespace

SimdLevel hostSimdLevel() {
    static const SimdLevel host = detectHost();
    return host;
}

SimdLevel simdLevel() { return currentLevel().load(std::memory_order_relaxed); }

SimdLevel setSimdLevel(SimdLevel level) {
    return currentLevel().exchange(clampToHost(level), std::memory_order_relaxed);
}

std::string_view simdLevelName(SimdLevel level) {
    switch (level) {
        case SimdLevel::Avx512: return "avx512";
        case SimdLevel::Avx2: return "avx2";
        case SimdLevel::Baseline: break;
    }
    return "baseline";
}

}  // namespace eng::tensor
