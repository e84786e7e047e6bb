// The CPU code generator: kernel IR -> LLVM IR -> host machine code through ORC's LLJIT, one JIT session per
// graph. Kept free of LLVM headers so that callers do not pay their compile cost.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor::cpu {

// Every generated CPU kernel: buffers in Kernel::buffers order, symbol values in Kernel::symbols order, and a
// half-open range of flattened outer indices (row-major over Kernel::outerRanges) so callers can split work over
// threads. Ranges of one call must not overlap those of a concurrent call writing the same elements.
using KernelEntry = void (*)(void* const* buffers, const int64_t* symbols, int64_t outerBegin, int64_t outerEnd);

// A kernel with reductions over the outer range (Reduction::overOuterRange) takes after its buffers one partials
// array per such reduction (in pass order): kPartialSlotBytes for each point of the reduction range, which the
// call sets to the identity and accumulates its piece of the outer range into. Its finish, called with the same
// buffers but each partials pointer the first of `pieces` such arrays laid end to end, as
// finish(buffers, symbols, 0, pieces), combines them in piece order and runs Kernel::finalStores.
constexpr int64_t kPartialSlotBytes = 8;
inline constexpr const char* kFinishSuffix = "_finish";

class CpuKernelModule {  // owns the JIT'd code; entries stay valid while it lives
public:
    struct Impl;  // the LLJIT session (defined where LLVM is included)
    CpuKernelModule(std::unique_ptr<Impl> impl, std::vector<KernelEntry> entries, std::vector<KernelEntry> finishes,
                    std::vector<std::string> irTexts, std::vector<double> kernelSeconds, std::vector<bool> fromCache,
                    double compileSeconds);
    ~CpuKernelModule();
    CpuKernelModule(const CpuKernelModule&) = delete;
    CpuKernelModule& operator=(const CpuKernelModule&) = delete;

    size_t size() const { return entries_.size(); }
    KernelEntry entry(size_t kernelIndex) const { return entries_.at(kernelIndex); }
    /// The finish of a kernel with reductions over the outer range, null for other kernels.
    KernelEntry finish(size_t kernelIndex) const { return finishes_.at(kernelIndex); }
    /// Optimised LLVM IR text of that kernel's function (shown to users in the workbench).
    const std::string& llvmIr(size_t kernelIndex) const { return irTexts_.at(kernelIndex); }
    double compileSeconds() const { return compileSeconds_; }
    /// That kernel's own generation, optimisation and JIT-linking time.
    double kernelSeconds(size_t kernelIndex) const { return kernelSeconds_.at(kernelIndex); }
    /// Whether that kernel's object came from the on-disk kernel cache (nothing generated or optimised).
    bool fromCache(size_t kernelIndex) const { return fromCache_.at(kernelIndex); }

private:
    std::unique_ptr<Impl> impl_;
    std::vector<KernelEntry> entries_;
    std::vector<KernelEntry> finishes_;
    std::vector<std::string> irTexts_;
    std::vector<double> kernelSeconds_;
    std::vector<bool> fromCache_;
    double compileSeconds_ = 0;
};

/// Compiles all kernels of one graph, a module each, in one JIT session (O3, host CPU features, glibc's
/// libmvec for vectorised math where available). Each kernel's object file is kept in the on-disk kernel cache
/// (kernel_cache::defaultKernelCacheDir(), `<hash>.o`, beside NVRTC's CUBINs), keyed by its kernel IR, name, the host
/// CPU, LLVM's version and this cwb executable, so a later process loads it instead of compiling. Throws std::runtime_error with the kernel's or LLVM's message on
/// failure (malformed kernels included).
std::shared_ptr<CpuKernelModule> compileCpuKernels(const std::vector<Kernel>& kernels);

/// Total flattened outer range of `kernel` for the given symbol values: the `outerEnd` of a whole-kernel call.
int64_t outerPointCount(const Kernel& kernel, const SymbolValues& symbols);

}  // namespace eng::inductor::cpu
