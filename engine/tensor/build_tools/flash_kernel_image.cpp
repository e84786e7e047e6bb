// Build step: compiles every flash-attention kernel the run time asks for (cudagen::flashLibraryKernels, the same
// source text) with NVRTC into CUBINs for the given architectures and PTX for the newest, into one image that the
// build embeds in cwb (cuda/prebuilt_kernels.h). Needs the CUDA toolkit's NVRTC, no GPU.
//   cwb_flash_kernel_image OUT ARCHS PTX_ARCH CACHE_DIR    e.g. out.bin 80,90,100,120 120 build/flash-kernel-cache
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cuda/driver.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/prebuilt_kernels.h"
#include "cuda/toolkit_libraries.h"
#include "tensor/cuda_attention.h"

namespace {

using namespace eng;

// PTX of source for a virtual architecture ("compute_120"), with the options the run time compiles with.
std::string compilePtx(const cuda::KernelCompiler& compiler, const cuda::KernelSource& source, const std::string& arch) {
    const cuda::NvrtcApi& api = cuda::nvrtc();
    nvrtcProgram program = nullptr;
    if (api.nvrtcCreateProgram(&program, source.code.c_str(), (source.entry + ".cu").c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
        throw cuda::CudaError("nvrtcCreateProgram failed for " + source.entry);
    const std::vector<std::string> options = compiler.optionsFor(arch);
    std::vector<const char*> pointers;
    for (const std::string& option : options) pointers.push_back(option.c_str());
    std::string ptx;
    const nvrtcResult result = api.nvrtcCompileProgram(program, static_cast<int>(pointers.size()), pointers.data());
    size_t size = 0;
    if (result == NVRTC_SUCCESS && api.nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS) {
        ptx.resize(size);
        if (api.nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS) ptx.clear();
    }
    api.nvrtcDestroyProgram(&program);
    if (ptx.empty()) throw cuda::CudaError(fmt::format("NVRTC could not make PTX of {} for {}", source.entry, arch));
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();  // (the size counts the terminating NUL)
    return ptx;
}

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s OUT ARCHS PTX_ARCH CACHE_DIR\n", argv[0]);
        return 2;
    }
    // The kernels the run time asks for by default: no tuning or option the build machine's environment may set.
    for (const char* name : {"CWB_FLASH_TUNING", "CWB_FLASH_BACKWARD_FUSED", "CWB_FLASH_BACKWARD_WGMMA", "CWB_NVRTC_OPTIONS"}) unsetenv(name);
    const auto started = std::chrono::steady_clock::now();
    try {
        const std::vector<cuda::KernelSource> sources = tensor::cudagen::flashLibraryKernels();
        cuda::KernelCompiler compiler(argv[4], false);
        std::vector<cuda::PrebuiltKernel> kernels;
        std::vector<std::shared_ptr<const cuda::CompiledKernel>> images;  // what the kernels' views point into
        for (const std::string& arch : splitList(argv[2])) {
            const std::vector<cuda::KernelCompileOutcome> outcomes = compiler.compileAll(sources, "sm_" + arch);
            for (size_t i = 0; i < sources.size(); ++i) {
                // (a cached CUBIN of the same code under other names would carry the other entry point's name)
                if (outcomes[i].kernel->entry != sources[i].entry)
                    throw cuda::CudaError(fmt::format("{}: the build's cache gave {}", sources[i].entry, outcomes[i].kernel->entry));
                kernels.push_back({sources[i].entry, "sm_" + arch, cuda::sourceDigest(sources[i].code), outcomes[i].kernel->cubin});
                images.push_back(outcomes[i].kernel);
            }
        }
        const std::string ptxArch = std::string("compute_") + argv[3];
        std::vector<cuda::CompileJob> jobs;
        for (const cuda::KernelSource& source : sources) {
            const std::string key = compiler.cacheKey(source, ptxArch);
            jobs.push_back({key, [&compiler, &source, key, ptxArch] {
                                return compiler.compilePtx(source.entry, key, ptxArch, [&] { return compilePtx(compiler, source, ptxArch); });
                            }});
        }
        const std::vector<cuda::KernelCompileOutcome> ptx = compiler.compileJobs(jobs);
        for (size_t i = 0; i < sources.size(); ++i) {
            kernels.push_back({sources[i].entry, ptxArch, cuda::sourceDigest(sources[i].code), ptx[i].kernel->cubin});
            images.push_back(ptx[i].kernel);
        }
        const std::string image = cuda::packPrebuiltKernels(kernels);
        // (written every time, so the build sees it newer than the tool; the embedding source changes only with it)
        std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
        out.write(image.data(), static_cast<std::streamsize>(image.size()));
        if (!out) throw cuda::CudaError(std::string("cannot write ") + argv[1]);
        const cuda::KernelCacheStats stats = compiler.stats();
        std::printf("flash kernels: %zu sources, %zu images (%.1f MB) in %.1f s: %lld compiled, %lld from the build's cache\n", sources.size(),
                    kernels.size(), static_cast<double>(image.size()) / 1e6,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), static_cast<long long>(stats.compiles),
                    static_cast<long long>(stats.diskHits));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cwb_flash_kernel_image: %s\n", e.what());
        return 1;
    }
    return 0;
}
