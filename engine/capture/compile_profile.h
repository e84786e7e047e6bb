// CWB_COMPILE_PROFILE=1: where each frame compile's time went, on stderr: Dynamo's trace, the backend and its phases,
// and in each part the eager CUDA kernels its example values compiled (or took from a prefetch) and the kernel
// compiles (NVRTC, LLVM) it ran, so that a cold first step can be taken apart without a profiler.
#pragma once

#include <string>
#include <vector>

#include "cuda/nvrtc_compiler.h"
#include "tensor/cuda_launch_memo.h"
#include "model/trace_model.h"

namespace eng::capture {

bool compileProfileEnabled();

// The process's counters at one moment of a compile.
struct CompileCounters {
    double seconds = 0;  // steady clock
    tensor::cudaops::EagerKernelStats eager;
    cuda::KernelCacheStats kernels;
};
CompileCounters compileCountersNow();

// The frame's block: its trace (start to traced), its backend (traced to backendDone, with the backend's phases) and
// the whole compile (start to now).
void printCompileProfile(const std::string& compileId, const std::string& function, const CompileCounters& start, const CompileCounters& traced,
                         const CompileCounters& backendDone, const std::vector<traces::PhaseTime>& backendPhases);

}  // namespace eng::capture
