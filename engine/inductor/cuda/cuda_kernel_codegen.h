// CUDA C++ generation for loop-level kernels (kernel_ir.h): one readable NVRTC translation unit per kernel,
// its launch shape for given symbol values, and a launcher that passes buffers and symbols in Kernel order.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cuda/device_context.h"
#include "cuda/nvrtc_compiler.h"
#include "inductor/ir/kernel_ir.h"

namespace eng::inductor::cuda {

/// What max-autotune varies; 0 leaves the choice to the heuristics.
struct CudaTuning {
    int blockSize = 0;          // threads per block
    int elementsPerThread = 0;  // pointwise: elements per thread per loop step (a multiple of the vector width);
                                // reductions: reduction-range elements per thread (decides threads per row)
    bool allowVectorized = true;  // 16-byte loads/stores where every access is the flat index (or base + r0 along rows)
    /// Pointwise kernels whose loads are not all flat (a cat, a broadcast add) but whose stores are: a thread takes 16
    /// bytes of the contiguous innermost dim, the index decoded once, stores as one vector (`store_vectors=0`: off).
    bool storeVectors = true;
    /// In that form, a where whose condition is the same on all of a vector's lanes and whose sides load (a cat along
    /// the innermost dim of pieces of whole vectors) is decided once a vector, and its side's loads become 16-byte
    /// vectors (`where_vectors=0`: off, the where decided lane by lane with one element a load).
    bool whereVectors = true;
    // Row reductions of a constant length keep each row in registers across passes instead of re-reading it
    // from L2 in every pass, when a thread's share of the row is at most 4 vectors (16 registers a loaded
    // buffer). On: once a thread's vector steps were unrolled with no bounds check, it measured faster on the H100
    // (softmax [8192, 8192] 0.1827 against 0.1903 ms, layer_norm [16384, 1024] 0.0496 against 0.0519 ms).
    bool persistentRows = true;
    /// With more than 16, longer rows stay in registers too while a thread's row arrays take at most this many
    /// registers (4 a 16-byte vector; up to 4 vectors a buffer always may), and a length that is not whole vectors
    /// leaves its last elements to a scalar tail read from memory in each pass (rows known to be aligned). 16 (the
    /// earlier rule): GPT-2's cross_entropy backward, the case it was made for, reads contiguous rows of 50257 that are
    /// not aligned, so it never applied there and is not measured yet (`row_registers=32` turns it on).
    int rowRegisters = 16;
    /// A column reduction of few columns over many rows (a bias gradient's sum over 8192 rows of 768) runs as a row
    /// kernel over the rows with per-piece column partials in registers and a finish that combines the pieces in
    /// order (cuda_column_sums.cpp), so the rows spread over the whole grid (`column_partials=0`: the column form,
    /// blocks of 32 columns each reading every row).
    bool columnPartials = true;
    /// A pass that only reads rows not known to start on a vector (a contiguous [N, 50257] bfloat16 tensor: one row in
    /// 8 does), its loads along the row at one base, reads vectors from the aligned one at or before the row's start,
    /// lanes outside the row doing nothing (`shifted_rows=1`; off: misaligned rows take the scalar loop). Off: on the
    /// H100 it left cross_entropy's backward unchanged (tests/bench/cross_entropy_backward_bench.py, 1.318 and 1.308 ms
    /// against 1.302 ms off, one call, 2026-11-28 04:52 UTC).
    bool shiftedRows = false;
    // Softmax's max and sum of exp(x - max) in one read of the row (an online (max, sum) accumulator), so the
    // row is read twice instead of three times. Off: on the H100 it measured slower than three passes whose later
    // two re-read the row from L2 (softmax [8192, 8192] 0.225 ms, against 0.199-0.201 ms for three passes; the
    // exps of the first pass wait on the running max).
    bool onlineSoftmax = false;
    /// Every buffer starts on a 16-byte boundary, as the caching allocator's blocks do (Inductor's Triton kernels
    /// assume the same): vector paths need no run-time alignment checks and no scalar copies of the same loops,
    /// which roughly halves NVRTC's work. The launcher checks the pointers and falls back to a kernel generated
    /// without the assumption for offset views.
    bool assumeAligned = true;
    /// Kernels with reductions over their outer range write per-piece partials (one piece per block row of
    /// threads), so their grid is capped near one wave: this many threads per multiprocessor (0: 1024).
    int partialThreadsPerSm = 0;
    /// With partials in registers and several rows of threads a block, the rows combine their partials in shared
    /// memory and the block writes one piece (`block_partials=0`: a piece a row of threads, as before).
    bool blockPartials = true;
    /// Caps other kernels' grids at this many full waves of resident blocks, the grid-stride loops doing the rest
    /// (0: no cap, a block per piece of work as Triton launches; on the H100 a cap of 8 waves made B1 3% and B2 4%
    /// slower).
    int gridWaves = 0;
    /// sin, cos and tan called out of line (the prelude's cwb_sin/cwb_cos/cwb_tan, one copy a kernel) instead of
    /// inlined into every unrolled vector lane. Off: it cut NVRTC's CPU time on B1's kernel from 97 to 64 ms on
    /// the development machine, but on the H100 host the cold compiles moved within their noise (75-128 ms against
    /// 110-243 ms, three processes each) while B1 ran 1.5% slower (0.1832-0.1834 against 0.1805-0.1808 ms).
    bool trigCalls = false;
};

enum class CudaStrategy {
    PointwiseVectorized,  // flat loop, 16-byte vectors of the flat index plus a scalar tail
    PointwiseScalar,      // flat loop, one element per step (strided or broadcast accesses)
    RowReduction,         // threads of a row group stride over a contiguous reduction range
    ColumnReduction,      // threads along the contiguous outer var, a 2-D block splitting the reduction range
};
const char* strategyName(CudaStrategy strategy);

struct CudaKernelCode {
    std::string name;    // == Kernel::name, the extern "C" __global__ entry
    std::string source;  // a complete NVRTC translation unit, meant to be read by users
    /// Names in `source` besides `name` that do not decide the machine code (the buffers'): the kernel cache masks
    /// them, so kernels that differ only in names compile once (eng::cuda::KernelSource::renamable).
    std::vector<std::string> renamable;

    CudaStrategy strategy = CudaStrategy::PointwiseScalar;
    int vectorWidth = 1;     // elements per vector access (PointwiseVectorized; row reductions along aligned rows)
    bool index64 = false;    // index arithmetic in 64 bits (some index may exceed 2^31)
    bool persistent = false; // row reduction keeping rows in registers across passes (CudaTuning::persistentRows)
    bool partialsInRegisters = false;  // reductions over the outer range keep their column partials in registers
    bool columnsAsRows = false;  // a column reduction generated as a row kernel with column partials (columnPartials)
    bool assumesAligned = false;  // relies on CudaTuning::assumeAligned: launch it only on 16-byte aligned buffers
    unsigned blockX = 1, blockY = 1;
    int64_t itemsPerBlock = 1;       // outer elements (pointwise) or outer indices (reductions) a block covers per step
    std::vector<Index> outerRanges;  // what the grid covers
    std::vector<Index> reductionRanges;  // what a finish entry covers (outerPartials)
    std::vector<std::string> symbols;
    /// A combo kernel's parts, in grid order: each covers ceil(numel / itemsPerBlock) blocks (the kernel computes
    /// the same split), and the grid is their sum.
    struct ComboBlocks {
        Index numel;
        int64_t itemsPerBlock = 1;
    };
    std::vector<ComboBlocks> comboParts;
    /// Reductions over the outer range (Reduction::overOuterRange): how many. Such a kernel has a second entry,
    /// `<name>_finish`, launched after it over the reduction range with blocks of finishBlockX x finishBlockY; both
    /// take the workspace (workspaceBytes) and the number of pieces (pieces()) after the symbols.
    int outerPartials = 0;
    /// A piece is a block (its rows of threads combine their partials in shared memory first) instead of a block's
    /// row of threads: gridX pieces instead of gridX * blockY.
    bool piecePerBlock = false;
    int64_t pieces(const eng::cuda::LaunchShape& shape) const { return int64_t{shape.gridX} * (piecePerBlock ? 1 : shape.blockY); }
    unsigned finishBlockX = 32, finishBlockY = 32;
    int partialThreadsPerSm = 1024;  // the grid cap of such kernels (CudaTuning::partialThreadsPerSm)
    int gridWaves = 0;               // the grid cap of the others (CudaTuning::gridWaves; 0: none)
    eng::cuda::LaunchShape finishShape(const SymbolValues& symbols) const;
    size_t workspaceBytes(const eng::cuda::LaunchShape& shape, const SymbolValues& symbols) const;

    /// Grid and block for given symbol values. With multiprocessors > 0 the grid is capped at gridWaves waves of
    /// the device when that is set, and near one wave for kernels with outer partials (the kernels grid-stride);
    /// otherwise it is exact (capped only by CUDA's limit).
    eng::cuda::LaunchShape launchShape(const SymbolValues& symbols, int multiprocessors = 0) const;
    /// "grid=(4096, 1, 1) block=(256, 1, 1)" for launchShape(symbols, multiprocessors).
    std::string launchText(const SymbolValues& symbols, int multiprocessors = 0) const;
    eng::cuda::KernelSource kernelSource() const { return {name, source, renamable}; }
};

/// Throws std::logic_error for kernels verifyKernel rejects.
CudaKernelCode generateCudaKernel(const Kernel& kernel, const CudaTuning& tuning = {});

/// Whether every buffer starts on a 16-byte boundary, as a kernel with CudaKernelCode::assumesAligned needs.
bool buffersAligned(std::span<void* const> buffers);

/// Which compiler makes a kernel's machine code. Nvrtc: the generated CUDA C++ through NVRTC. Llvm: kernels that
/// inductor/nvptx covers (pointwise) as LLVM IR lowered to PTX by LLVM's NVPTX backend, which the driver compiles
/// when it loads them; the others still through NVRTC. CWB_CUDA_CODEGEN=nvrtc|llvm, default nvrtc.
enum class CudaCodegenPath { Nvrtc, Llvm };
/// Throws std::invalid_argument for other values of CWB_CUDA_CODEGEN.
CudaCodegenPath cudaCodegenFromEnvironment();
/// Whether the Llvm path generates this kernel (`code` is the CUDA generator's, whose launch plan it follows).
bool llvmGenerates(const Kernel& kernel, const CudaKernelCode& code, const std::string& arch);
/// Each kernel compiled for `arch` through `compiler`'s kernel cache by `path`, the distinct ones on parallel threads
/// (NVRTC and LLVM alike); kernels with the same code but for their names (the layers of a model) compile once and
/// share the module, whose entry is the first one's name (launch by CompiledKernel::entry). Outcomes in order.
/// Needs no GPU: the driver compiles PTX only when a device loads it.
std::vector<eng::cuda::KernelCompileOutcome> compileCudaKernels(const std::vector<Kernel>& kernels, const std::vector<CudaKernelCode>& codes,
                                                               const std::string& arch, CudaCodegenPath path,
                                                               eng::cuda::KernelCompiler& compiler = eng::cuda::KernelCompiler::instance());
std::shared_ptr<const eng::cuda::CompiledKernel> compileCudaKernel(const Kernel& kernel, const CudaKernelCode& code, const std::string& arch,
                                                                   CudaCodegenPath path);
/// compileCudaKernels' jobs, for running them elsewhere (the background compile of a tiered compile): each refers to
/// its kernel and code, `arch` and `compiler`, which must outlive it.
std::vector<eng::cuda::CompileJob> cudaCompileJobs(const std::vector<Kernel>& kernels, const std::vector<CudaKernelCode>& codes, const std::string& arch,
                                                   CudaCodegenPath path, eng::cuda::KernelCompiler& compiler);

/// Launches on device's stream: one device pointer per Kernel::buffers, one value per Kernel::symbols.
void launchCudaKernel(eng::cuda::DeviceContext& device, const eng::cuda::CompiledKernel& compiled, const CudaKernelCode& code,
                      std::span<void* const> buffers, const SymbolValues& symbols);

}  // namespace eng::inductor::cuda
