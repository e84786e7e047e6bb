// The GPU interpreter tier's kernels: kernel_bytecode.h's loop as four entry points, compiled when cwb is built
// (nvcc, a CUBIN per common architecture and PTX for newer ones) and embedded in the binary, so a graph's first
// calls run with no compile and no JIT (inductor/cuda/bytecode_tier.cpp loads it once per process).
#include "inductor/ir/kernel_bytecode.h"

using namespace eng::inductor::bytecode;

namespace {

__device__ int64_t firstThread() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ int64_t threadCount() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

__device__ Accumulator shuffleXor(const Accumulator& a, int offset) {
    Accumulator out;
    out.value.i = __shfl_xor_sync(0xffffffffu, a.value.i, offset);
    out.position = __shfl_xor_sync(0xffffffffu, a.position, offset);
    out.started = __shfl_xor_sync(0xffffffffu, a.started, offset);
    return out;
}

// The block's partials of a pass's row reductions combined, the same bits in every thread: within each warp an xor
// butterfly (offsets 1, 2, 4, 8, 16, the lower lane's partial first), then the warps' results in warp order. The
// host's emulation (kernel_bytecode_encoder.cpp, combineGroupOnHost) follows the same order.
__device__ void combineInBlock(const Program& p, const PassRange& pass, State& s, Accumulator (*warps)[kMaxSlots]) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warpCount = blockDim.x >> 5;
    for (int j = pass.firstSlot; j < pass.firstSlot + pass.slotCount; ++j) {
        const Slot& slot = p.slots[j];
        if (slot.overOuterRange) continue;
        for (int offset = 1; offset < 32; offset <<= 1) {
            const Accumulator other = shuffleXor(s.acc[j], offset);
            if (lane & offset) {
                Accumulator lower = other;
                combine(lower, s.acc[j], slot);
                s.acc[j] = lower;
            } else {
                combine(s.acc[j], other, slot);
            }
        }
        if (lane == 0) warps[warp][j] = s.acc[j];
    }
    __syncthreads();
    for (int j = pass.firstSlot; j < pass.firstSlot + pass.slotCount; ++j) {
        if (p.slots[j].overOuterRange) continue;
        Accumulator total = warps[0][j];
        for (unsigned w = 1; w < warpCount; ++w) combine(total, warps[w][j], p.slots[j]);
        s.acc[j] = total;
    }
    __syncthreads();  // the next pass's combine reuses `warps`
}

// Every pass of outer point `point` by the whole block: passes over the reduction range shared point by point
// (runShare), then combined; the other passes by thread 0. A barrier after each pass orders its stores before the
// next pass's loads of them.
__device__ void runPointInBlock(const Launch& l, State& s, int64_t point, Accumulator (*warps)[kMaxSlots]) {
    const Program& p = *l.program;
    decode(point, l.outerExtents, p.outerVars, s.vars);
    for (int k = 0; k < p.passCount; ++k) {
        const PassRange& pass = p.passes[k];
        if (!pass.overReductionRange) {
            if (threadIdx.x == 0) execute(l, s, pass.begin, pass.end);
            __syncthreads();
            continue;
        }
        runShare(l, s, pass, threadIdx.x, blockDim.x);
        combineInBlock(p, pass, s, warps);
        finishPass(p, s, pass);
    }
}

}  // namespace

// One thread per outer point, grid-stride: every pass of the point (its reductions sequential, as the reference).
extern "C" __global__ void cwb_bytecode_points(const __grid_constant__ Launch launch) {
    State state;
    for (int64_t point = firstThread(); point < launch.outerPoints; point += threadCount()) runPoint(launch, state, point);
}

// Long rows: a block per outer point, grid-stride, its threads over the reduction range (blocks of whole warps).
extern "C" __global__ void __launch_bounds__(1024) cwb_bytecode_rows(const __grid_constant__ Launch launch) {
    __shared__ Accumulator warps[32][kMaxSlots];
    State state;
    for (int64_t point = blockIdx.x; point < launch.outerPoints; point += gridDim.x) runPointInBlock(launch, state, point, warps);
}

// Reductions over the outer range: a block per piece of it, its rows one after another as cwb_bytecode_rows runs
// them; a thread keeps the piece's partials of the reduction points it reads (coalesced, no other thread's)...
extern "C" __global__ void __launch_bounds__(1024) cwb_bytecode_pieces(const __grid_constant__ Launch launch) {
    __shared__ Accumulator warps[32][kMaxSlots];
    State state;
    for (int64_t piece = blockIdx.x; piece < launch.pieces; piece += gridDim.x) {
        startPiece(launch, state, piece, threadIdx.x, blockDim.x);
        int64_t begin, end;
        pieceRows(launch, piece, begin, end);
        for (int64_t point = begin; point < end; ++point) runPointInBlock(launch, state, point, warps);
    }
}

// ... then one thread per point of the reduction range combines the pieces in order and runs the final stores.
extern "C" __global__ void cwb_bytecode_finish(const __grid_constant__ Launch launch) {
    State state;
    for (int64_t point = firstThread(); point < launch.reductionPoints; point += threadCount()) runFinish(launch, state, point);
}
