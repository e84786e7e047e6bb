// CUDA C++ to CUBIN with NVRTC for one GPU architecture ("sm_90"), through the kernel cache (in-process map
// first, then disk), one kernel or a graph's kernels at once on parallel threads. Needs no GPU and no driver,
// so kernels can be compiled and checked on any machine.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernel_cache/disk_cache.h"

namespace eng::cuda {

struct KernelSource {
    KernelSource() = default;
    KernelSource(std::string entryName, std::string source, std::vector<std::string> renamableNames = {})
        : entry(std::move(entryName)), code(std::move(source)), renamable(std::move(renamableNames)) {}
    std::string entry;  // the extern "C" __global__ function to launch
    std::string code;   // complete translation unit
    // Identifiers besides `entry` that do not decide the machine code (parameter names). The cache key masks them
    // and the entry, with what is named after them by appending '_' and a suffix (locals, other entry points such
    // as `<entry>_finish`; kernel_cache::maskNames), so kernels that differ only in these names compile once and
    // share one module, whose entry points keep the names of the kernel that compiled it (CompiledKernel::entry).
    std::vector<std::string> renamable;
    // Compiled for the architecture-specific target where the device has one (sm_90 -> sm_90a: wgmma, setmaxnreg);
    // the code must also compile for the plain targets (__CUDA_ARCH_FEAT_SM90_ALL tells which it is).
    bool archSpecific = false;
};

struct CompiledKernel {
    std::string key;    // cache key (also identifies the loaded module per device)
    std::string entry;  // the entry point's name in the module: that of the kernel which compiled it
    std::string arch;
    std::string cubin;  // ELF image for cuModuleLoadData, or PTX text when `ptx`
    bool ptx = false;   // PTX (the LLVM NVPTX path): the driver compiles it to machine code when it loads the module
    int jitLevel = -1;  // PTX: the driver's CU_JIT_OPTIMIZATION_LEVEL (0-4); -1: CWB_PTX_JIT_OPT, else 4
};

// Where a compile() call found its CUBIN (Llvm: compilePtx's generator made the PTX; SameSource: another kernel of the
// same batch with the same code but for names compiled it; Prebuilt: embedded when cwb was built, prebuilt_kernels.h).
enum class KernelOrigin { Nvrtc, DiskCache, MemoryCache, Llvm, SameSource, Prebuilt };
const char* toString(KernelOrigin origin);

// One kernel of compileAll: the kernel, where it came from and the wall time its compile() took on its thread.
struct KernelCompileOutcome {
    std::shared_ptr<const CompiledKernel> kernel;
    KernelOrigin origin = KernelOrigin::Nvrtc;
    double seconds = 0;
};

// Where this process's compiles were served from.
struct KernelCacheStats {
    int64_t memoryHits = 0;
    int64_t diskHits = 0;
    int64_t compiles = 0;
    int64_t sameSource = 0;  // kernels of a batch that took another's compile (same code but for names)
    int64_t prebuilt = 0;    // compile() calls served by a kernel embedded at build time
    double compileSeconds = 0;  // the compiles' time, summed over the threads they ran on
};

// One kernel to compile: its cache key (jobs with equal keys compile once) and how to compile it.
struct CompileJob {
    std::string key;
    std::function<KernelCompileOutcome()> compile;
};

// "13.0": the NVRTC library in use (part of every cache key).
std::string nvrtcVersionText();

class KernelCompiler {
public:
    // usePrebuilt: compile() takes a kernel embedded at build time for its source when there is one (and NVRTC's
    // options are the defaults the build compiled with), before any cache.
    explicit KernelCompiler(std::filesystem::path cacheDir = kernel_cache::defaultKernelCacheDir(), bool usePrebuilt = true);
    // The process-wide compiler using defaultKernelCacheDir().
    static KernelCompiler& instance();

    // NVRTC's options for arch (the defaults and CWB_NVRTC_OPTIONS's), and whether they are the defaults alone.
    std::vector<std::string> optionsFor(const std::string& arch) const;
    static bool defaultOptions();

    // Throws CudaError with NVRTC's log when the source does not compile.
    std::shared_ptr<const CompiledKernel> compile(const KernelSource& source, const std::string& arch);
    // compile() telling where the kernel came from and how long it took.
    KernelCompileOutcome compileTimed(const KernelSource& source, const std::string& arch);
    // compileTimed() under `key`, which the caller already has from cacheKey(source, arch) (masking a translation
    // unit's names is the costly part of a lookup).
    KernelCompileOutcome compileKeyed(const KernelSource& source, const std::string& key, const std::string& arch);
    // Every source compiled as compile() does, on up to `threads` threads at once (0: one per hardware thread):
    // NVRTC is thread-safe and spends its time in optimisation and ptxas, so a graph's kernels compile in the
    // time of its slowest one. Outcomes in source order; the first failure is rethrown after all have finished.
    std::vector<KernelCompileOutcome> compileAll(const std::vector<KernelSource>& sources, const std::string& arch, unsigned threads = 0);
    // The jobs with distinct keys run on up to `threads` threads at once (0: one per hardware thread); a job whose
    // key an earlier one has gets that one's kernel (origin SameSource). Outcomes in job order; the first failure
    // is rethrown after all have finished.
    std::vector<KernelCompileOutcome> compileJobs(const std::vector<CompileJob>& jobs, unsigned threads = 0);
    // PTX that another code generator makes (`generate`, called on a miss), cached in memory and on disk as
    // compile()'s CUBINs are; `key` must name everything that decides the PTX (the generator's identity, the kernel).
    KernelCompileOutcome compilePtx(const std::string& entry, const std::string& key, const std::string& arch,
                                    const std::function<std::string()>& generate);
    // The key compile() would use (the source with its names masked, arch, NVRTC version, options).
    std::string cacheKey(const KernelSource& source, const std::string& arch) const;
    // The key compilePtx(entry, key, arch, ...) uses: `key` should have the kernel's names masked, as cacheKey's.
    static std::string ptxCacheKey(const std::string& key, const std::string& arch);

    // Whether a job's key (cacheKey or ptxCacheKey) is in the memory or disk cache, so compiling it costs a file read.
    bool cached(const std::string& key) const;

    KernelCacheStats stats() const;
    const kernel_cache::DiskKernelCache& diskCache() const { return disk_; }

private:
    // compile() and compilePtx(): the memory cache, then `disk`, then `generate`.
    KernelCompileOutcome compileCached(const std::string& entry, const std::string& key, const std::string& arch, bool ptx,
                                       const kernel_cache::DiskKernelCache& disk, KernelOrigin generator,
                                       const std::function<std::string()>& generate);
    std::string compileWithNvrtc(const KernelSource& source, const std::string& arch) const;

    kernel_cache::DiskKernelCache disk_;
    kernel_cache::DiskKernelCache ptxDisk_;
    bool usePrebuilt_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const CompiledKernel>> memory_;
    // The same kernels by their exact source and architecture: eager ops ask at every launch, and masking the names
    // of a whole translation unit costs far more than a launch (it is done once per distinct source).
    std::unordered_map<std::string, std::shared_ptr<const CompiledKernel>> exactSources_;
    KernelCacheStats stats_;
};

}  // namespace eng::cuda
