// CUDA C++ to CUBIN with NVRTC for one GPU architecture ("sm_90"), through the kernel cache (in-process map
// first, then disk). Needs no GPU and no driver, so kernels can be compiled and checked on any machine.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/kernel_cache.h"

namespace eng::cuda {

struct KernelSource {
    std::string entry;  // the extern "C" __global__ function to launch
    std::string code;   // complete translation unit
};

struct CompiledKernel {
    std::string key;    // cache key (also identifies the loaded module per device)
    std::string entry;
    std::string arch;
    std::string cubin;  // ELF image for cuModuleLoadData
};

// "13.0": the NVRTC library in use (part of every cache key).
std::string nvrtcVersionText();

class KernelCompiler {
public:
    explicit KernelCompiler(std::filesystem::path cacheDir = defaultKernelCacheDir());
    // The process-wide compiler using defaultKernelCacheDir().
    static KernelCompiler& instance();

    // Throws CudaError with NVRTC's log when the source does not compile.
    std::shared_ptr<const CompiledKernel> compile(const KernelSource& source, const std::string& arch);
    // The key compile() would use (source, arch, NVRTC version, options).
    std::string cacheKey(const KernelSource& source, const std::string& arch) const;

    KernelCacheStats stats() const;
    const DiskKernelCache& diskCache() const { return disk_; }

private:
    std::vector<std::string> optionsFor(const std::string& arch) const;
    std::string compileWithNvrtc(const KernelSource& source, const std::string& arch) const;

    DiskKernelCache disk_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const CompiledKernel>> memory_;
    KernelCacheStats stats_;
};

}  // namespace eng::cuda
