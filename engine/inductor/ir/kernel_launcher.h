// How a compiled graph runs its generated kernels on one device: compiled once per graph (all kernels together),
// then launched per call with the buffers' addresses and the call's symbol values. Implementations: the LLVM JIT
// for CPU tensors, NVRTC + the driver API for CUDA tensors, and the reference interpreter.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "inductor/ir/kernel_ir.h"

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
};

/// Every kernel run by interpretKernel (tests, and the fallback when no code generator is built in).
std::unique_ptr<KernelLauncher> makeInterpreterLauncher(const std::vector<Kernel>& kernels);
/// The LLVM ORC JIT (engine/inductor/cpu).
std::unique_ptr<KernelLauncher> makeCpuLauncher(const std::vector<Kernel>& kernels);
/// NVRTC kernels on CUDA device `device` (engine/inductor/cuda). With `autotune`, each kernel's first launch times
/// candidate launch shapes on the real buffers and keeps the fastest (max-autotune).
std::unique_ptr<KernelLauncher> makeCudaLauncher(const std::vector<Kernel>& kernels, int device, bool autotune);

}  // namespace eng::inductor
