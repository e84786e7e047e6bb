// Which compiler makes a generated kernel's machine code: NVRTC from the CUDA C++, or, with CWB_CUDA_CODEGEN=llvm,
// LLVM's NVPTX backend for the kernels it covers (inductor/nvptx: pointwise kernels, following the CUDA kernel's
// launch plan), both through the kernel cache, keyed with the kernels' names masked so that kernels differing only in
// names compile once; a graph's distinct kernels compile on parallel threads.
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"
#include "inductor/nvptx/nvptx_codegen.h"
#include "kernel_cache/disk_cache.h"

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

// The LLVM path's cache key: its generator, the plan and the kernel's IR text with the kernel's names masked.
std::string llvmKey(const Kernel& kernel, const nvptx::PtxLaunchPlan& plan) {
    std::vector<std::string> names{kernel.name};
    for (std::string& name : detail::renamableNames(kernel)) names.push_back(std::move(name));
    return fmt::format("{}\nplan block {} width {} unroll {}\nnames masked\n{}", nvptx::nvptxIdentity(), plan.blockX, plan.vectorWidth,
                       plan.unroll, kernel_cache::maskNames(kernelText(kernel), names));
}

}  // namespace

namespace detail {

std::vector<std::string> renamableNames(const Kernel& kernel) {
    std::vector<std::string> names;
    for (size_t i = 0; i < kernel.buffers.size(); ++i) {
        names.push_back(kernel.buffers[i].name);
        names.push_back(bufferName(kernel, static_cast<int>(i)));
    }
    for (const ComboPart& part : kernel.parts) {
        names.push_back(part.kernel.name);
        for (std::string& name : renamableNames(part.kernel)) names.push_back(std::move(name));
    }
    return names;
}

}  // namespace detail

std::vector<eng::cuda::CompileJob> cudaCompileJobs(const std::vector<Kernel>& kernels, const std::vector<CudaKernelCode>& codes, const std::string& arch,
                                                   CudaCodegenPath path, eng::cuda::KernelCompiler& compiler) {
    if (kernels.size() != codes.size()) throw std::logic_error("compileCudaKernels: one code per kernel");
    std::vector<eng::cuda::CompileJob> jobs;
    jobs.reserve(kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i) {
        if (path == CudaCodegenPath::Llvm && llvmGenerates(kernels[i], codes[i], arch)) {
            nvptx::PtxLaunchPlan plan = launchPlan(kernels[i], codes[i]);
            std::string key = llvmKey(kernels[i], plan);
            jobs.push_back({eng::cuda::KernelCompiler::ptxCacheKey(key, arch), [&, i, key, plan] {
                                return compiler.compilePtx(codes[i].name, key, arch, [&] { return nvptx::generatePtx(kernels[i], plan, arch).ptx; });
                            }});
        } else {
            eng::cuda::KernelSource source = codes[i].kernelSource();
            std::string key = compiler.cacheKey(source, arch);
            jobs.push_back({key, [&compiler, source = std::move(source), key, &arch] { return compiler.compileKeyed(source, key, arch); }});
        }
    }
    return jobs;
}

std::vector<eng::cuda::KernelCompileOutcome> compileCudaKernels(const std::vector<Kernel>& kernels, const std::vector<CudaKernelCode>& codes,
                                                               const std::string& arch, CudaCodegenPath path,
                                                               eng::cuda::KernelCompiler& compiler) {
    return compiler.compileJobs(cudaCompileJobs(kernels, codes, arch, path, compiler));
}

std::shared_ptr<const eng::cuda::CompiledKernel> compileCudaKernel(const Kernel& kernel, const CudaKernelCode& code, const std::string& arch,
                                                                   CudaCodegenPath path) {
    return compileCudaKernels({kernel}, {code}, arch, path).at(0).kernel;
}

}  // namespace eng::inductor::cuda
