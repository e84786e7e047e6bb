// The GPU interpreter tier: a graph's kernels as bytecode (inductor/ir/kernel_bytecode.h) run by interpreter kernels
// compiled when cwb was built and embedded in it (bytecode_interpreter.cu), so their first launches need no compile
// and no JIT while the optimised kernels compile in the background (cuda_tiers.h).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cuda/device_context.h"
#include "inductor/ir/kernel_bytecode_encoder.h"

namespace eng::inductor::cuda {

/// Whether this build embeds the interpreter's kernels (the CUDA toolkit's nvcc was found when cwb was built) with
/// machine code for `arch` ("sm_90") or PTX the driver can JIT for it (then the tier costs a JIT once per process).
bool bytecodeTierAvailable(const std::string& arch);
/// The architectures with machine code in the embedded image, as CWB_BYTECODE_ARCHS listed them ("80,86,...").
std::string bytecodeTierArchitectures();

/// Whether the interpreter runs `kernel` much slower than the quick tier, which then takes it (or, where the quick tier
/// does not cover it, the optimised kernel compiles before the first call, as without tiers):
/// reductions over the outer range (a thread per piece of rows, its partials read and written in memory per element:
/// B6's first call took 0.668 s against the quick tier's 0.051, H100, 2026-11-27) and rows longer than
/// kLongRowPoints (a thread per row: B2's 8192 rows of 8192 took 0.063 s against 0.036; B3's rows of 1024 0.014
/// against 0.038).
bool bytecodeSlowerThanQuickTier(const Kernel& kernel);
inline constexpr int64_t kLongRowPoints = 4096;

/// Programs of one graph's kernels on one device: encoded from the kernels (null for a kernel the bytecode cannot
/// express) and copied to the device together, once.
class BytecodePrograms {
public:
    BytecodePrograms(eng::cuda::DeviceContext& device, std::vector<std::unique_ptr<bytecode::Program>> programs);
    ~BytecodePrograms();
    BytecodePrograms(const BytecodePrograms&) = delete;
    BytecodePrograms& operator=(const BytecodePrograms&) = delete;

    bool has(size_t index) const { return index < onDevice_.size() && onDevice_[index] != nullptr; }
    /// Runs kernel `index` through the interpreter: a thread per outer point (blocks of one warp for reductions, whose
    /// rows a thread walks in the reference's order), or for reductions over the outer range a thread per piece of
    /// it and then a thread per point of the reduction range combining the pieces in order.
    void launch(size_t index, const Kernel& kernel, std::span<void* const> buffers, const SymbolValues& symbols);

private:
    eng::cuda::DeviceContext& device_;
    std::vector<std::unique_ptr<bytecode::Program>> programs_;
    void* memory_ = nullptr;
    std::vector<const bytecode::Program*> onDevice_;
};

}  // namespace eng::inductor::cuda
