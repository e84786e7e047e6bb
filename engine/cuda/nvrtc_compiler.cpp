// NVRTC compilation to CUBIN (a real sm_XX target: NVRTC returns an empty CUBIN for compute_XX) with the
// in-memory and disk kernel caches in front of it.
#include "cuda/nvrtc_compiler.h"


#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <exception>
#include <string_view>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "cuda/driver.h"
#include "cuda/prebuilt_kernels.h"
#include "cuda/toolkit_libraries.h"

namespace eng::cuda {

namespace {

void checkNvrtc(nvrtcResult result, const char* what) {
    if (result != NVRTC_SUCCESS) throw CudaError(fmt::format("{}: {}", what, nvrtc().nvrtcGetErrorString(result)));
}

// Destroys the program on every path out of compileWithNvrtc.
struct ProgramGuard {
    nvrtcProgram program = nullptr;
    ~ProgramGuard() {
        if (program) nvrtc().nvrtcDestroyProgram(&program);
    }
};

}  // namespace

const char* toString(KernelOrigin origin) {
    switch (origin) {
        case KernelOrigin::Nvrtc: return "nvrtc";
        case KernelOrigin::DiskCache: return "disk cache";
        case KernelOrigin::MemoryCache: return "memory cache";
        case KernelOrigin::Llvm: return "LLVM NVPTX";
        case KernelOrigin::SameSource: return "another kernel with the same code";
        case KernelOrigin::Prebuilt: return "embedded at build time";
    }
    return "?";
}

std::string nvrtcVersionText() {
    static const std::string text = [] {
        int major = 0, minor = 0;
        checkNvrtc(nvrtc().nvrtcVersion(&major, &minor), "nvrtcVersion");
        return fmt::format("{}.{}", major, minor);
    }();
    return text;
}

KernelCompiler::KernelCompiler(std::filesystem::path cacheDir, bool usePrebuilt)
    : disk_(cacheDir, ".cubin"), ptxDisk_(cacheDir, ".ptx"), usePrebuilt_(usePrebuilt) {}

bool KernelCompiler::defaultOptions() {
    const char* extra = std::getenv("CWB_NVRTC_OPTIONS");
    return extra == nullptr || std::string_view(extra).find_first_not_of(" \t") == std::string_view::npos;
}

KernelCompiler& KernelCompiler::instance() {
    static KernelCompiler compiler;
    return compiler;
}

std::vector<std::string> KernelCompiler::optionsFor(const std::string& arch) const {
    // No fast-math: results must match the CPU kernels to float rounding, as PyTorch's CUDA kernels do.
    // -minimal: no texture, surface or device-runtime declarations in NVRTC's implicit header, which no kernel of
    // cwb uses; its front end then takes about 5 ms less a kernel (of 20-30 ms for the smallest kernel).
    std::vector<std::string> options = {"--gpu-architecture=" + arch, "--std=c++17", "-minimal"};
    // CWB_NVRTC_OPTIONS: extra NVRTC options, space-separated (part of the cache key like every option).
    if (const char* extra = std::getenv("CWB_NVRTC_OPTIONS")) {
        std::istringstream words(extra);
        for (std::string word; words >> word;) options.push_back(word);
    }
    return options;
}

// The target NVRTC compiles source for on a device of `arch` (KernelSource::archSpecific).
static std::string nvrtcTarget(const KernelSource& source, const std::string& arch) { return source.archSpecific && arch == "sm_90" ? "sm_90a" : arch; }

std::string KernelCompiler::cacheKey(const KernelSource& source, const std::string& arch) const {
    std::string key = fmt::format("nvrtc {}\narch {}\noptions", nvrtcVersionText(), nvrtcTarget(source, arch));
    for (const std::string& option : optionsFor(nvrtcTarget(source, arch))) key += " " + option;
    key += "\nnames masked\n";
    std::vector<std::string> names{source.entry};
    names.insert(names.end(), source.renamable.begin(), source.renamable.end());
    key += kernel_cache::maskNames(source.code, names);
    return key;
}

std::string KernelCompiler::compileWithNvrtc(const KernelSource& source, const std::string& arch) const {
    if (arch.rfind("sm_", 0) != 0)
        throw CudaError(fmt::format("NVRTC CUBIN needs a real architecture such as sm_90, got '{}'", arch));
    ProgramGuard guard;
    checkNvrtc(nvrtc().nvrtcCreateProgram(&guard.program, source.code.c_str(), (source.entry + ".cu").c_str(), 0, nullptr, nullptr),
               "nvrtcCreateProgram");
    const std::vector<std::string> options = optionsFor(nvrtcTarget(source, arch));
    std::vector<const char*> optionPointers;
    for (const std::string& option : options) optionPointers.push_back(option.c_str());
    const nvrtcResult compiled = nvrtc().nvrtcCompileProgram(guard.program, static_cast<int>(optionPointers.size()), optionPointers.data());
    if (compiled != NVRTC_SUCCESS) {
        size_t logSize = 0;
        nvrtc().nvrtcGetProgramLogSize(guard.program, &logSize);
        std::string log(logSize, '\0');
        if (logSize > 0) nvrtc().nvrtcGetProgramLog(guard.program, log.data());
        throw CudaError(fmt::format("NVRTC could not compile kernel {} for {}: {}\n{}", source.entry, arch,
                                    nvrtc().nvrtcGetErrorString(compiled), log));
    }
    size_t cubinSize = 0;
    checkNvrtc(nvrtc().nvrtcGetCUBINSize(guard.program, &cubinSize), "nvrtcGetCUBINSize");
    if (cubinSize == 0) throw CudaError(fmt::format("NVRTC produced an empty CUBIN for {} ({})", source.entry, arch));
    std::string cubin(cubinSize, '\0');
    checkNvrtc(nvrtc().nvrtcGetCUBIN(guard.program, cubin.data()), "nvrtcGetCUBIN");
    return cubin;
}

std::shared_ptr<const CompiledKernel> KernelCompiler::compile(const KernelSource& source, const std::string& arch) {
    return compileTimed(source, arch).kernel;
}

KernelCompileOutcome KernelCompiler::compileTimed(const KernelSource& source, const std::string& arch) {
    std::string exactKey = arch + '\n' + source.code;
    {
        std::lock_guard lock(mutex_);
        if (auto it = exactSources_.find(exactKey); it != exactSources_.end()) {
            ++stats_.memoryHits;
            return KernelCompileOutcome{it->second, KernelOrigin::MemoryCache, 0};
        }
    }
    KernelCompileOutcome outcome;
    const PrebuiltKernel* prebuilt = usePrebuilt_ && defaultOptions() ? findPrebuilt(source, arch) : nullptr;
    if (prebuilt) {
        auto kernel = std::make_shared<CompiledKernel>();
        // (the key names the module a device loads: one per embedded image)
        kernel->key = fmt::format("prebuilt {} {} {:016x}", prebuilt->arch, prebuilt->entry, prebuilt->digest);
        kernel->entry = prebuilt->entry;
        kernel->arch = arch;
        kernel->cubin.assign(prebuilt->image);
        kernel->ptx = prebuilt->ptx();
        outcome.kernel = std::move(kernel);
        outcome.origin = KernelOrigin::Prebuilt;
    } else {
        outcome = compileKeyed(source, cacheKey(source, arch), arch);
    }
    std::lock_guard lock(mutex_);
    if (prebuilt) ++stats_.prebuilt;
    exactSources_.emplace(std::move(exactKey), outcome.kernel);
    return outcome;
}

KernelCompileOutcome KernelCompiler::compileKeyed(const KernelSource& source, const std::string& key, const std::string& arch) {
    return compileCached(source.entry, key, arch, false, disk_, KernelOrigin::Nvrtc, [&] { return compileWithNvrtc(source, arch); });
}

KernelCompileOutcome KernelCompiler::compilePtx(const std::string& entry, const std::string& key, const std::string& arch,
                                                const std::function<std::string()>& generate) {
    return compileCached(entry, ptxCacheKey(key, arch), arch, true, ptxDisk_, KernelOrigin::Llvm, generate);
}

bool KernelCompiler::cached(const std::string& key) const {
    {
        std::lock_guard lock(mutex_);
        if (memory_.count(key)) return true;
    }
    std::error_code ignored;
    const kernel_cache::DiskKernelCache& disk = key.rfind("ptx\n", 0) == 0 ? ptxDisk_ : disk_;
    return !disk.dir().empty() && std::filesystem::exists(disk.pathFor(key), ignored);
}

std::string KernelCompiler::ptxCacheKey(const std::string& key, const std::string& arch) { return "ptx\narch " + arch + "\n" + key; }

namespace {

// A cache file holds the entry point's name (that of the kernel which compiled it) before the binary.
std::string withEntry(const std::string& entry, const std::string& binary) { return "entry " + entry + "\n" + binary; }
bool splitEntry(std::string& stored, std::string& entry) {
    const size_t end = stored.find('\n');
    if (stored.compare(0, 6, "entry ") != 0 || end == std::string::npos || end == 6 || end + 1 == stored.size()) return false;
    entry = stored.substr(6, end - 6);
    stored.erase(0, end + 1);
    return true;
}

}  // namespace

KernelCompileOutcome KernelCompiler::compileCached(const std::string& entry, const std::string& key, const std::string& arch, bool ptx,
                                                   const kernel_cache::DiskKernelCache& disk, KernelOrigin generator,
                                                   const std::function<std::string()>& generate) {
    const auto started = std::chrono::steady_clock::now();
    KernelCompileOutcome outcome;
    {
        std::lock_guard lock(mutex_);
        if (auto it = memory_.find(key); it != memory_.end()) {
            ++stats_.memoryHits;
            outcome.kernel = it->second;
            outcome.origin = KernelOrigin::MemoryCache;
            return outcome;
        }
    }
    auto kernel = std::make_shared<CompiledKernel>();
    kernel->key = key;
    kernel->entry = entry;
    kernel->arch = arch;
    kernel->ptx = ptx;
    std::optional<std::string> cached = disk.load(key);
    if (cached && splitEntry(*cached, kernel->entry)) {
        kernel->cubin = std::move(*cached);
        outcome.origin = KernelOrigin::DiskCache;
    } else {
        kernel->cubin = generate();
        disk.store(key, withEntry(entry, kernel->cubin));
        outcome.origin = generator;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::lock_guard lock(mutex_);
    if (outcome.origin == KernelOrigin::DiskCache) ++stats_.diskHits;
    else {
        ++stats_.compiles;
        stats_.compileSeconds += seconds;
    }
    // Two threads may have compiled the same source: both get the first one stored.
    auto [it, inserted] = memory_.emplace(key, std::move(kernel));
    outcome.kernel = it->second;
    outcome.seconds = seconds;
    return outcome;
}

std::vector<KernelCompileOutcome> KernelCompiler::compileAll(const std::vector<KernelSource>& sources, const std::string& arch,
                                                             unsigned threads) {
    std::vector<CompileJob> jobs;
    jobs.reserve(sources.size());
    for (const KernelSource& source : sources) {
        std::string key = cacheKey(source, arch);
        jobs.push_back({key, [this, &source, key, &arch] { return compileKeyed(source, key, arch); }});
    }
    return compileJobs(jobs, threads);
}

std::vector<KernelCompileOutcome> KernelCompiler::compileJobs(const std::vector<CompileJob>& jobs, unsigned threads) {
    // Each distinct key's first job compiles; the others wait for it.
    std::vector<size_t> distinct, firstOf(jobs.size());
    std::unordered_map<std::string_view, size_t> byKey;
    for (size_t i = 0; i < jobs.size(); ++i) {
        auto [it, inserted] = byKey.emplace(jobs[i].key, i);
        firstOf[i] = it->second;
        if (inserted) distinct.push_back(i);
    }
    std::vector<KernelCompileOutcome> outcomes(jobs.size());
    std::vector<std::exception_ptr> errors(jobs.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t d = next++; d < distinct.size(); d = next++) {
            try {
                outcomes[distinct[d]] = jobs[distinct[d]].compile();
            } catch (...) {
                errors[distinct[d]] = std::current_exception();
            }
        }
    };
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t helpers = std::min<size_t>(threads, distinct.size()) - (distinct.empty() ? 0 : 1);
    std::vector<std::thread> pool;
    for (size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    for (const std::exception_ptr& error : errors)
        if (error) std::rethrow_exception(error);
    int64_t shared = 0;
    for (size_t i = 0; i < jobs.size(); ++i)
        if (firstOf[i] != i) {
            outcomes[i].kernel = outcomes[firstOf[i]].kernel;
            outcomes[i].origin = KernelOrigin::SameSource;
            ++shared;
        }
    std::lock_guard lock(mutex_);
    stats_.sameSource += shared;
    return outcomes;
}

KernelCacheStats KernelCompiler::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

}  // namespace eng::cuda
