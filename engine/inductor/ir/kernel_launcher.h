// How a compiled graph runs its generated kernels on one device: compiled once per graph (all kernels together),
// then launched per call with the buffers' addresses and the call's symbol values. Implementations: the LLVM JIT
// for CPU tensors, NVRTC + the driver API for CUDA tensors, and the reference interpreter.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "inductor/ir/kernel_ir.h"
#include "tensor/device.h"

namespace eng::inductor {

/// What the workbench shows of one kernel: its source and how it is launched.
struct KernelArtifact {
    std::string language;      // "llvm_ir", "cuda", "kernel_ir"
    std::string source;
    std::string launchConfig;  // "grid=(8192,1,1) block=(256,1,1)" / "outer range split over 2 threads"
};

/// How one kernel's code was obtained: its own compile time and by what ("NVRTC", "the disk cache", "LLVM").
struct KernelCompileInfo {
    double seconds = 0;
    std::string how;
};

class KernelLauncher {
public:
    virtual ~KernelLauncher() = default;
    /// The artifact of kernel `index` (valid after construction).
    virtual KernelArtifact artifact(size_t index, const SymbolValues& hints) const = 0;
    /// Runs kernel `index`: one address per kernel buffer parameter, values in Kernel::symbols order.
    virtual void launch(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) = 0;
    /// Wall seconds spent compiling all kernels (less than the sum of compileInfo's when they compile in parallel).
    virtual double compileSeconds() const = 0;
    virtual KernelCompileInfo compileInfo(size_t index) const = 0;
    /// Waits for kernels still compiling in the background (a tiered compile's optimised tier) and launches only
    /// those from then on: before a CUDA graph records the launches.
    virtual void awaitOptimised() {}
};

/// Every kernel run by interpretKernel (tests, and the fallback for a device without a code generator).
std::unique_ptr<KernelLauncher> makeInterpreterLauncher(const std::vector<Kernel>& kernels);

/// How a launcher may tune each kernel's launch configuration on the real buffers at its first launch.
struct LaunchTuning {
    bool autotune = false;           // max_autotune: time candidate launch shapes and keep the fastest
    bool coordinateDescent = false;  // coordinate_descent_tuning: walk the launch configuration by coordinate descent
    int cpuThreads = -1;             // cpp.threads: the most threads a CPU kernel runs on (-1: the worker pool's)
};

/// A code generator's launcher for the kernels of one graph on device `deviceIndex`.
using LauncherFactory =
    std::function<std::unique_ptr<KernelLauncher>(const std::vector<Kernel>& kernels, int deviceIndex, LaunchTuning tuning)>;
/// Makes `factory` the code generator of `device`'s kernels (engine/inductor/cpu: the LLVM JIT for CPU tensors,
/// engine/inductor/cuda: NVRTC for CUDA tensors; each registers itself when the backend is installed).
void registerLauncher(tensor::DeviceType device, LauncherFactory factory);
/// The launcher of `device`'s registered code generator, or null when none is registered.
std::unique_ptr<KernelLauncher> makeLauncher(tensor::DeviceType device, const std::vector<Kernel>& kernels, int deviceIndex,
                                             LaunchTuning tuning);

}  // namespace eng::inductor
