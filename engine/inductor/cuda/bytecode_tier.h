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
/// does not cover it, the optimised kernel compiles before the first call, as without tiers): rows of a constant length
/// over kLongRowPoints, which even a block a row walks for long (a full sum of 2^26 points: one block). Long rows and
/// reductions over the outer range run a block a row (bytecodeRowThreads): B6's first call took 0.668 s with a thread
/// a piece of rows against the quick tier's 0.051, B2's 0.063 s with a thread a row against 0.036 (H100, 2026-11-27).
bool bytecodeSlowerThanQuickTier(const Kernel& kernel);
inline constexpr int64_t kLongRowPoints = 65536;

/// Threads that share a row of `reductionPoints` points on the interpreter tier: 1 (a thread walks the row) for rows
/// shorter than CWB_BYTECODE_BLOCK_ROWS (default 256; 0: never a block) unless `inPieces` (reductions over the outer
/// range always run a block a piece of rows: a thread a piece starved the GPU), else a block of whole warps,
/// CWB_BYTECODE_ROW_POINTS points a thread (default 16) up to CWB_BYTECODE_ROW_BLOCK threads (default 256).
/// CWB_BYTECODE_PARTIALS_MB (default 64) bounds the pieces' partials, so their count.
int64_t bytecodeRowThreads(int64_t reductionPoints, bool inPieces);
/// The pieces of the outer range that a launch of `program` (reductions over the outer range) cuts: as many as
/// CWB_BYTECODE_PARTIALS_MB of partials hold, at most one a row.
int64_t bytecodePieces(const bytecode::Program& program, int64_t outerPoints, int64_t reductionPoints);
/// The bytes of partials one such piece writes (every reduction point of every outer-range slot).
int64_t bytecodePieceBytes(const bytecode::Program& program, int64_t reductionPoints);

/// Programs of one graph's kernels on one device: encoded from the kernels (null for a kernel the bytecode cannot
/// express) and copied to the device together, once.
class BytecodePrograms {
public:
    BytecodePrograms(eng::cuda::DeviceContext& device, std::vector<std::unique_ptr<bytecode::Program>> programs);
    ~BytecodePrograms();
    BytecodePrograms(const BytecodePrograms&) = delete;
    BytecodePrograms& operator=(const BytecodePrograms&) = delete;

    bool has(size_t index) const { return index < onDevice_.size() && onDevice_[index] != nullptr; }
    /// Runs kernel `index` through the interpreter: a thread per outer point (blocks of one warp for reductions of
    /// short rows, which a thread walks in the reference's order), a block per row for long rows (its threads over the
    /// row, partials combined in a fixed order: the same bits every call), or for reductions over the outer range a
    /// block per piece of it (its rows as the long rows') and then a thread per point of the reduction range
    /// combining the pieces in order.
    void launch(size_t index, const Kernel& kernel, std::span<void* const> buffers, const SymbolValues& symbols);

private:
    eng::cuda::DeviceContext& device_;
    std::vector<std::unique_ptr<bytecode::Program>> programs_;
    void* memory_ = nullptr;
    std::vector<const bytecode::Program*> onDevice_;
};

}  // namespace eng::inductor::cuda
