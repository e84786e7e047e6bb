// Which compiler makes a generated kernel's machine code: NVRTC from the CUDA C++, or, with CWB_CUDA_CODEGEN=llvm,
// LLVM's NVPTX backend for the kernels it covers (inductor/nvptx: pointwise kernels, following the CUDA kernel's
// launch plan), both through the kernel cache.
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"
#include "inductor/nvptx/nvptx_codegen.h"

namespace eng::inductor::cuda {

CudaCodegenPath cudaCodegenFromEnvironment() {
    const char* text = std::getenv("CWB_CUDA_CODEGEN");
    if (!text || !*text || std::string(text) == "nvrtc") return CudaCodegenPath::Nvrtc;
    if (std::string(text) == "llvm") return CudaCodegenPath::Llvm;
    throw std::invalid_argument(fmt::format("CWB_CUDA_CODEGEN: unknown code generator '{}' (nvrtc, llvm)", text));
}

bool llvmGenerates(const Kernel& kernel, const CudaKernelCode& code, const std::string& arch) {
    const bool pointwise = code.strategy == CudaStrategy::PointwiseVectorized || code.strategy == CudaStrategy::PointwiseScalar;
    return pointwise && nvptx::nvptxCovers(kernel, arch);
}

namespace {

// The CUDA kernel's launch plan, which the PTX must follow: the launcher computes the grid from `code`.
nvptx::PtxLaunchPlan launchPlan(const Kernel& kernel, const CudaKernelCode& code) {
    nvptx::PtxLaunchPlan plan;
    plan.blockX = static_cast<int>(code.blockX);
    // Vectors only where the kernel may assume aligned buffers (the unaligned variant takes the scalar loop).
    if (code.strategy == CudaStrategy::PointwiseVectorized && code.assumesAligned) {
        plan.vectorWidth = code.vectorWidth;
        plan.unroll = static_cast<int>(code.itemsPerBlock / (static_cast<int64_t>(code.blockX) * code.vectorWidth));
    }
    plan.isFlatIndex = [flat = detail::flatIndex(kernel.outerRanges, 0)](const Index& index) { return detail::sameIndex(index, flat); };
    return plan;
}

eng::cuda::KernelCompileOutcome compileWithLlvm(const Kernel& kernel, const CudaKernelCode& code, const std::string& arch,
                                                eng::cuda::KernelCompiler& compiler) {
    const nvptx::PtxLaunchPlan plan = launchPlan(kernel, code);
    const std::string key = fmt::format("{}\nplan block {} width {} unroll {}\n{}", nvptx::nvptxIdentity(), plan.blockX, plan.vectorWidth,
                                        plan.unroll, kernelText(kernel));
    return compiler.compilePtx(code.name, key, arch, [&] { return nvptx::generatePtx(kernel, plan, arch).ptx; });
}

}  // namespace

std::vector<eng::cuda::KernelCompileOutcome> compileCudaKernels(const std::vector<Kernel>& kernels, const std::vector<CudaKernelCode>& codes,
                                                               const std::string& arch, CudaCodegenPath path,
                                                               eng::cuda::KernelCompiler& compiler) {
    if (kernels.size() != codes.size()) throw std::logic_error("compileCudaKernels: one code per kernel");
    std::vector<eng::cuda::KernelCompileOutcome> outcomes(kernels.size());
    std::vector<eng::cuda::KernelSource> sources;
    std::vector<size_t> byNvrtc;
    for (size_t i = 0; i < kernels.size(); ++i) {
        if (path == CudaCodegenPath::Llvm && llvmGenerates(kernels[i], codes[i], arch)) {
            outcomes[i] = compileWithLlvm(kernels[i], codes[i], arch, compiler);
        } else {
            sources.push_back(codes[i].kernelSource());
            byNvrtc.push_back(i);
        }
    }
    std::vector<eng::cuda::KernelCompileOutcome> compiled = compiler.compileAll(sources, arch);
    for (size_t j = 0; j < byNvrtc.size(); ++j) outcomes[byNvrtc[j]] = std::move(compiled[j]);
    return outcomes;
}

std::shared_ptr<const eng::cuda::CompiledKernel> compileCudaKernel(const Kernel& kernel, const CudaKernelCode& code, const std::string& arch,
                                                                   CudaCodegenPath path) {
    return compileCudaKernels({kernel}, {code}, arch, path).at(0).kernel;
}

}  // namespace eng::inductor::cuda
