// NVRTC compilation to CUBIN (a real sm_XX target: NVRTC returns an empty CUBIN for compute_XX) with the
// in-memory and disk kernel caches in front of it.
#include "cuda/nvrtc_compiler.h"

#include <nvrtc.h>

#include <fmt/format.h>

#include "cuda/driver.h"

namespace eng::cuda {

namespace {

void checkNvrtc(nvrtcResult result, const char* what) {
    if (result != NVRTC_SUCCESS) throw CudaError(fmt::format("{}: {}", what, nvrtcGetErrorString(result)));
}

// Destroys the program on every path out of compileWithNvrtc.
struct ProgramGuard {
    nvrtcProgram program = nullptr;
    ~ProgramGuard() {
        if (program) nvrtcDestroyProgram(&program);
    }
};

}  // namespace

std::string nvrtcVersionText() {
    static const std::string text = [] {
        int major = 0, minor = 0;
        checkNvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
        return fmt::format("{}.{}", major, minor);
    }();
    return text;
}

KernelCompiler::KernelCompiler(std::filesystem::path cacheDir) : disk_(std::move(cacheDir)) {}

KernelCompiler& KernelCompiler::instance() {
    static KernelCompiler compiler;
    return compiler;
}

std::vector<std::string> KernelCompiler::optionsFor(const std::string& arch) const {
    // No fast-math: results must match the CPU kernels to float rounding, as PyTorch's CUDA kernels do.
    return {"--gpu-architecture=" + arch, "--std=c++17"};
}

std::string KernelCompiler::cacheKey(const KernelSource& source, const std::string& arch) const {
    std::string key = fmt::format("nvrtc {}\narch {}\nentry {}\noptions", nvrtcVersionText(), arch, source.entry);
    for (const std::string& option : optionsFor(arch)) key += " " + option;
    key += "\n";
    key += source.code;
    return key;
}

std::string KernelCompiler::compileWithNvrtc(const KernelSource& source, const std::string& arch) const {
    if (arch.rfind("sm_", 0) != 0)
        throw CudaError(fmt::format("NVRTC CUBIN needs a real architecture such as sm_90, got '{}'", arch));
    ProgramGuard guard;
    checkNvrtc(nvrtcCreateProgram(&guard.program, source.code.c_str(), (source.entry + ".cu").c_str(), 0, nullptr, nullptr),
               "nvrtcCreateProgram");
    const std::vector<std::string> options = optionsFor(arch);
    std::vector<const char*> optionPointers;
    for (const std::string& option : options) optionPointers.push_back(option.c_str());
    const nvrtcResult compiled = nvrtcCompileProgram(guard.program, static_cast<int>(optionPointers.size()), optionPointers.data());
    if (compiled != NVRTC_SUCCESS) {
        size_t logSize = 0;
        nvrtcGetProgramLogSize(guard.program, &logSize);
        std::string log(logSize, '\0');
        if (logSize > 0) nvrtcGetProgramLog(guard.program, log.data());
        throw CudaError(fmt::format("NVRTC could not compile kernel {} for {}: {}\n{}", source.entry, arch,
                                    nvrtcGetErrorString(compiled), log));
    }
    size_t cubinSize = 0;
    checkNvrtc(nvrtcGetCUBINSize(guard.program, &cubinSize), "nvrtcGetCUBINSize");
    if (cubinSize == 0) throw CudaError(fmt::format("NVRTC produced an empty CUBIN for {} ({})", source.entry, arch));
    std::string cubin(cubinSize, '\0');
    checkNvrtc(nvrtcGetCUBIN(guard.program, cubin.data()), "nvrtcGetCUBIN");
    return cubin;
}

std::shared_ptr<const CompiledKernel> KernelCompiler::compile(const KernelSource& source, const std::string& arch) {
    const std::string key = cacheKey(source, arch);
    {
        std::lock_guard lock(mutex_);
        if (auto it = memory_.find(key); it != memory_.end()) {
            ++stats_.memoryHits;
            return it->second;
        }
    }
    auto kernel = std::make_shared<CompiledKernel>();
    kernel->key = key;
    kernel->entry = source.entry;
    kernel->arch = arch;
    bool fromDisk = false;
    if (std::optional<std::string> cached = disk_.load(key)) {
        kernel->cubin = std::move(*cached);
        fromDisk = true;
    } else {
        kernel->cubin = compileWithNvrtc(source, arch);
        disk_.store(key, kernel->cubin);
    }
    std::lock_guard lock(mutex_);
    if (fromDisk) ++stats_.diskHits;
    else ++stats_.compiles;
    auto [it, inserted] = memory_.emplace(key, std::move(kernel));
    return it->second;
}

KernelCacheStats KernelCompiler::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

}  // namespace eng::cuda
