// The CUDA code generator as the inductor runs it: kernels compiled by NVRTC per graph and launched through the
// driver API (cuda_launcher.cpp).
#pragma once

namespace eng::inductor {

/// Registers NVRTC as the code generator of CUDA kernels (ir/kernel_launcher.h's registerLauncher); with
/// max-autotune each kernel's first launch times candidate launch shapes on the real buffers and keeps the fastest.
void registerCudaLauncher();

}  // namespace eng::inductor
