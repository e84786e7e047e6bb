// Tiered compilation of a graph's CUDA kernels: on a kernel-cache miss a kernel first runs a quickly compiled tier
// (inductor/nvptx's quick tier: milliseconds of LLVM, the driver's JIT at a low level) while the optimised kernel
// (NVRTC, or the LLVM path's full tier) compiles on a background thread and replaces it once ready.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "inductor/cuda/cuda_kernel_codegen.h"

namespace eng::inductor::cuda {

/// Settings from the environment: CWB_CUDA_TIERS=0 compiles every kernel's optimised tier before the first call
/// (default 1); CWB_CUDA_INTERPRETER=0 starts kernels on the quick tier instead of the GPU interpreter tier
/// (bytecode_tier.h: nothing compiled, default 1; kernels the bytecode cannot express or runs slowly take the quick
/// tier); CWB_CUDA_QUICK_JIT_OPT=0..4 the driver's optimisation level for the quick tier's PTX (default 1);
/// CWB_CUDA_QUICK_LAUNCHES=N: a kernel's launches on the quick tier before a launch waits for the optimised one
/// (default 8, so that a loop past its first calls runs at full speed however long the compile takes);
/// CWB_CUDA_TIER_SWAP=launches swaps exactly then, not as soon as the optimised kernels are ready (tests, and
/// measuring the quick tier's own run time); CWB_CUDA_QUICK_LOAD=threads has each quick kernel JIT-loaded by the driver
/// on its compile thread instead of at its first launch (off: on the H100 host the driver's JITs did not overlap, and
/// B7's four took 127 ms side by side against 87 ms one after another, cold call 0.141 against 0.102 s, 2026-11-27).
struct TierSettings {
    bool tiered = true;
    bool interpreter = true;
    bool loadOnCompileThreads = false;
    int quickJitLevel = 1;
    int quickLaunches = 8;
    bool swapWhenReady = true;
};
TierSettings tierSettingsFromEnvironment();
/// An integer setting from the environment (the tiers' and the interpreter's): `fallback` where unset or empty.
int environmentInt(const char* name, int fallback);

/// The quick tier of `kernel` (nvptx::quickTierCovers must hold), not cached: the optimised tier is what the kernel
/// cache keeps. `jobKey` (its optimised job's key) and the kernel's name name its module on the device.
eng::cuda::KernelCompileOutcome compileQuickTier(const Kernel& kernel, const std::string& arch, const std::string& jobKey, int jitLevel);

/// The first tiers' grid for `threads` threads in blocks of `block`: grid-stride over at most 32 blocks a
/// multiprocessor (the quick tier's kernels and the bytecode interpreter's).
eng::cuda::LaunchShape gridStrideShape(const eng::cuda::DeviceContext& device, int64_t threads, unsigned block);

/// Launches a quick-tier kernel: one thread per outer point, grid-stride over at most 32 blocks a multiprocessor
/// (blocks of one warp for reductions).
void launchQuickTier(eng::cuda::DeviceContext& device, const eng::cuda::CompiledKernel& compiled, const Kernel& kernel,
                     std::span<void* const> buffers, const SymbolValues& symbols);

/// Jobs compiled on a thread of their own. The jobs (and what they refer to) must outlive the object; destruction
/// waits for them, and so does the process's exit (static destruction) for objects never destroyed.
class BackgroundCompile {
public:
    explicit BackgroundCompile(std::vector<eng::cuda::CompileJob> jobs);
    ~BackgroundCompile();
    BackgroundCompile(const BackgroundCompile&) = delete;
    BackgroundCompile& operator=(const BackgroundCompile&) = delete;

    bool ready() const { return ready_.load(std::memory_order_acquire); }
    /// Waits, then the outcomes in job order; rethrows the compile's failure.
    std::vector<eng::cuda::KernelCompileOutcome> take();

private:
    std::vector<eng::cuda::CompileJob> jobs_;
    std::vector<eng::cuda::KernelCompileOutcome> outcomes_;
    std::exception_ptr error_;
    std::atomic<bool> ready_{false};
    std::thread thread_;
};

}  // namespace eng::inductor::cuda
