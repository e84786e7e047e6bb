// Shared by the NVPTX generator's translation units (the full tier, nvptx_codegen.cpp, and the quick tier,
// nvptx_quick.cpp): the target, libdevice, the optimisation pipeline and PTX emission.
#pragma once

#include <string>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

namespace eng::inductor::nvptx::detail {

inline constexpr const char* kNvptxTriple = "nvptx64-nvidia-cuda";

/// "sm_90" -> 90; 0 for anything else.
int smVersion(const std::string& arch);
/// libdevice's bitcode (CWB_LIBDEVICE, else the toolkit's); throws std::runtime_error when it cannot be read.
const llvm::MemoryBuffer& libdevice();
const llvm::Target& nvptxTarget();
/// libm calls, math intrinsics NVPTX cannot lower accurately and frem as libdevice calls.
void redirectMathToLibdevice(llvm::Module& module);
/// Links what the module uses of libdevice; every function but `kernel` becomes internal.
void linkLibdevice(llvm::Module& module, const llvm::Function& kernel);
/// LLVM's default module pipeline at `level` for the target.
void optimise(llvm::Module& module, llvm::TargetMachine& tm, llvm::OptimizationLevel level);
std::string emitPtx(llvm::Module& module, llvm::TargetMachine& tm);

}  // namespace eng::inductor::nvptx::detail
