// The CWB_COMPILE_PROFILE report of one frame compile (capture/compile_profile.h).
#include "capture/compile_profile.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

namespace eng::capture {

namespace {

// What happened between two moments: eager kernels and kernel compiles, in words.
std::string countersBetween(const CompileCounters& from, const CompileCounters& to) {
    const auto& a = from.eager;
    const auto& b = to.eager;
    std::string text = fmt::format("eager kernels {} compiled at first launch in {:.2f} s", b.compiled - a.compiled, b.compileSeconds - a.compileSeconds);
    if (b.fromPrefetch > a.fromPrefetch || b.prefetched > a.prefetched)
        text += fmt::format(", {} from prefetches (waited {:.2f} s), {} prefetches queued", b.fromPrefetch - a.fromPrefetch,
                            b.prefetchWaitSeconds - a.prefetchWaitSeconds, b.prefetched - a.prefetched);
    text += fmt::format("; kernel compiles {} ({:.2f} s summed over threads), disk cache hits {}", to.kernels.compiles - from.kernels.compiles,
                        to.kernels.compileSeconds - from.kernels.compileSeconds, to.kernels.diskHits - from.kernels.diskHits);
    return text;
}

}  // namespace

bool compileProfileEnabled() {
    static const bool enabled = [] {
        const char* setting = std::getenv("CWB_COMPILE_PROFILE");
        return setting != nullptr && *setting != '\0' && std::string_view(setting) != "0";
    }();
    return enabled;
}

CompileCounters compileCountersNow() {
    CompileCounters counters;
    counters.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    counters.eager = tensor::cudaops::eagerKernelStats();
    counters.kernels = cuda::KernelCompiler::instance().stats();
    return counters;
}

void printCompileProfile(const std::string& compileId, const std::string& function, const CompileCounters& start, const CompileCounters& traced,
                         const CompileCounters& backendDone, const std::vector<traces::PhaseTime>& backendPhases) {
    const CompileCounters end = compileCountersNow();
    std::string text = fmt::format("[cwb compile profile] [{}] {}: {:.2f} s (trace {:.2f} s, backend {:.2f} s)\n", compileId, function,
                                   end.seconds - start.seconds, traced.seconds - start.seconds, backendDone.seconds - traced.seconds);
    text += "  trace: " + countersBetween(start, traced) + "\n";
    text += "  backend: " + countersBetween(traced, backendDone) + "\n";
    if (!backendPhases.empty()) {
        text += "  backend phases:";
        for (const traces::PhaseTime& phase : backendPhases) text += fmt::format(" {} {:.2f} s,", phase.phase, phase.seconds);
        text.back() = '\n';
    }
    std::fputs(text.c_str(), stderr);
}

}  // namespace eng::capture
