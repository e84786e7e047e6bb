// The CPU code generator as the inductor runs it: kernels JIT-compiled together per graph and launched over the
// worker threads (cpu_launcher.cpp).
#pragma once

namespace eng::inductor {

/// Registers the LLVM JIT as the code generator of CPU kernels (ir/kernel_launcher.h's registerLauncher).
void registerCpuLauncher();

}  // namespace eng::inductor
