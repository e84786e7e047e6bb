// GPU kernels as LLVM IR lowered to PTX by LLVM's NVPTX backend (no NVRTC front end, NVVM or ptxas: the driver
// JIT-compiles the PTX when it loads it, as Triton's kernels are loaded). The op bodies come from the CPU code
// generator's expression emitter; math functions from CUDA's libdevice, linked into the module as NVRTC does.
#pragma once

#include <functional>
#include <string>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor::nvptx {

/// How the kernel divides its work, decided by the CUDA generator (whose launcher computes the grid from it).
struct PtxLaunchPlan {
    int blockX = 256;      // threads per block (also the kernel's maxntid)
    int vectorWidth = 1;   // > 1: each thread step covers `vectorWidth` consecutive elements, every buffer 16-byte aligned
    int unroll = 1;        // vector steps a thread takes per grid step
    /// With vectorWidth > 1: whether an index is the flat row-major index of the outer range (it is then the element
    /// position itself, not recomposed from the decoded variables, so the lanes' accesses are seen to be adjacent).
    std::function<bool(const Index&)> isFlatIndex;
};

/// Whether this path generates the kernel: pointwise kernels (no reductions, no combo parts) for an architecture
/// LLVM 19 knows (sm_52 to sm_90), when libdevice can be read (CWB_LIBDEVICE, else the toolkit's that cwb was
/// built with).
bool nvptxCovers(const Kernel& kernel, const std::string& arch);

struct PtxKernel {
    std::string ptx;           // the module's PTX, entry `kernel.name`
    std::string kernelIr;      // the kernel's LLVM IR as emitted (libdevice calls not yet inlined), shown to users
};

/// Throws std::runtime_error when the kernel or the toolchain (libdevice) is missing something.
PtxKernel generatePtx(const Kernel& kernel, const PtxLaunchPlan& plan, const std::string& arch);

/// The quick tier of a tiered compile (nvptx_quick.cpp): the kernel's CPU loop body, one GPU thread per outer point
/// (grid-stride, blocks of up to kQuickBlockThreads), a light LLVM pipeline; every sum in the interpreter's order. Covers
/// pointwise kernels and reductions over rows of a constant length up to 65536 (also beside reductions over the outer
/// range), not combo kernels.
inline constexpr int kQuickBlockThreads = 128;
bool quickTierCovers(const Kernel& kernel, const std::string& arch);
/// Throws as generatePtx does.
PtxKernel generateQuickPtx(const Kernel& kernel, const std::string& arch);
/// A quick-tier kernel with reductions over its outer range takes after its symbols a workspace and the number of
/// pieces (int64): each piece's partials, kQuickPartialSlotBytes per point of the reduction range, reduction after
/// reduction; its second entry point, quickFinishEntry(entry), combines the pieces, one thread per point.
extern const int64_t kQuickPartialSlotBytes;
std::string quickFinishEntry(const std::string& entry);

/// What besides the kernel and its plan decides the PTX (LLVM's version, libdevice's size, this build of cwb):
/// part of the kernel cache's key.
const std::string& nvptxIdentity();

}  // namespace eng::inductor::nvptx
