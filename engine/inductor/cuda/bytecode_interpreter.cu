// The GPU interpreter tier's kernels: kernel_bytecode.h's loop as three entry points, compiled when cwb is built
// (nvcc, a CUBIN per common architecture and PTX for newer ones) and embedded in the binary, so a graph's first
// calls run with no compile and no JIT (inductor/cuda/bytecode_tier.cpp loads it once per process).
#include "inductor/ir/kernel_bytecode.h"

using namespace eng::inductor::bytecode;

namespace {

__device__ int64_t firstThread() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ int64_t threadCount() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace

// One thread per outer point, grid-stride: every pass of the point (its reductions sequential, as the reference).
extern "C" __global__ void cwb_bytecode_points(const __grid_constant__ Launch launch) {
    State state;
    for (int64_t point = firstThread(); point < launch.outerPoints; point += threadCount()) runPoint(launch, state, point);
}

// Reductions over the outer range: one thread per piece of it, into the piece's partials...
extern "C" __global__ void cwb_bytecode_pieces(const __grid_constant__ Launch launch) {
    State state;
    for (int64_t piece = firstThread(); piece < launch.pieces; piece += threadCount()) runPiece(launch, state, piece);
}

// ... then one thread per point of the reduction range combines the pieces in order and runs the final stores.
extern "C" __global__ void cwb_bytecode_finish(const __grid_constant__ Launch launch) {
    State state;
    for (int64_t point = firstThread(); point < launch.reductionPoints; point += threadCount()) runFinish(launch, state, point);
}
