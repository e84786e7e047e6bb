// Tiered compilation (cuda_tiers.h): the quick tier's compile and launch, and the background compile of the optimised
// tier, which the process's exit waits for (a thread still inside NVRTC must not outlive the compiler it uses).
#include "inductor/cuda/cuda_tiers.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

#include "inductor/nvptx/nvptx_codegen.h"

namespace eng::inductor::cuda {

int environmentInt(const char* name, int fallback) {
    const char* text = std::getenv(name);
    return text && *text ? std::atoi(text) : fallback;
}

namespace {

// Background compiles in flight. Constructed after KernelCompiler::instance() (BackgroundCompile asks for that
// first), so static destruction runs its destructor, which waits for them, before the compiler's.
class InFlight {
public:
    static InFlight& get() {
        eng::cuda::KernelCompiler::instance();
        static InFlight inFlight;
        return inFlight;
    }
    ~InFlight() {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [&] { return count_ == 0; });
    }
    void started() {
        std::lock_guard lock(mutex_);
        ++count_;
    }
    void finished() {
        std::lock_guard lock(mutex_);
        if (--count_ == 0) idle_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable idle_;
    int count_ = 0;
};

}  // namespace

TierSettings tierSettingsFromEnvironment() {
    TierSettings settings;
    settings.tiered = environmentInt("CWB_CUDA_TIERS", 1) != 0;
    settings.interpreter = environmentInt("CWB_CUDA_INTERPRETER", 1) != 0;
    settings.quickJitLevel = std::clamp(environmentInt("CWB_CUDA_QUICK_JIT_OPT", settings.quickJitLevel), 0, 4);
    settings.quickLaunches = std::max(0, environmentInt("CWB_CUDA_QUICK_LAUNCHES", settings.quickLaunches));
    const char* load = std::getenv("CWB_CUDA_QUICK_LOAD");
    settings.loadOnCompileThreads = load && std::string(load) == "threads";
    const char* swap = std::getenv("CWB_CUDA_TIER_SWAP");
    settings.swapWhenReady = !(swap && std::string(swap) == "launches");
    return settings;
}

eng::cuda::KernelCompileOutcome compileQuickTier(const Kernel& kernel, const std::string& arch, const std::string& jobKey, int jitLevel) {
    const auto started = std::chrono::steady_clock::now();
    auto compiled = std::make_shared<eng::cuda::CompiledKernel>();
    // The module's key on the device: the kernel's names are not masked in the quick tier's PTX, so its entry
    // names the module (a same-code kernel of another graph has entry points of other names).
    compiled->key = "quick tier " + kernel.name + "\n" + jobKey;
    compiled->entry = kernel.name;
    compiled->arch = arch;
    compiled->cubin = nvptx::generateQuickPtx(kernel, arch).ptx;
    compiled->ptx = true;
    compiled->jitLevel = jitLevel;
    eng::cuda::KernelCompileOutcome outcome;
    outcome.kernel = std::move(compiled);
    outcome.origin = eng::cuda::KernelOrigin::Llvm;
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return outcome;
}

eng::cuda::LaunchShape gridStrideShape(const eng::cuda::DeviceContext& device, int64_t threads, unsigned block) {
    eng::cuda::LaunchShape s;
    s.blockX = block;
    const int64_t blocks = std::max<int64_t>((threads + block - 1) / block, 1);
    s.gridX = static_cast<unsigned>(std::min<int64_t>(blocks, int64_t{32} * device.multiprocessorCount()));
    return s;
}

void launchQuickTier(eng::cuda::DeviceContext& device, const eng::cuda::CompiledKernel& compiled, const Kernel& kernel,
                     std::span<void* const> buffers, const SymbolValues& symbols) {
    std::vector<void*> pointers(buffers.begin(), buffers.end());
    std::vector<long long> values;
    for (const std::string& symbol : kernel.symbols) values.push_back(symbols.at(symbol));
    int64_t points = 1;
    for (const Index& range : kernel.outerRanges) points *= evaluate(range, {}, symbols);
    if (points <= 0 && kernel.finalStores.empty()) return;
    std::vector<void*> args;
    for (void*& pointer : pointers) args.push_back(&pointer);
    for (long long& value : values) args.push_back(&value);
    auto shape = [&](int64_t threads, unsigned blockX) { return gridStrideShape(device, threads, blockX); };
    if (!kernel.hasOuterRangeReductions()) {
        // A thread reduces whole rows: blocks of one warp spread a few thousand rows over every multiprocessor.
        device.launch(compiled, shape(points, kernel.isReduction() ? 32 : nvptx::kQuickBlockThreads), args.data());
        return;
    }
    // Reductions over the outer range: each piece (a thread) accumulates its share of the rows into its own
    // partials, then a thread per point of the reduction range combines the pieces in order (nvptx_quick.cpp).
    // As many pieces as 64 MB of partials hold, at most one a row.
    int64_t reductionPoints = 1, across = 0;
    for (const Index& range : kernel.reductionRanges) reductionPoints *= evaluate(range, {}, symbols);
    for (const KernelPass& pass : kernel.passes)
        for (const Reduction& r : pass.reductions) across += r.overOuterRange ? 1 : 0;
    constexpr int64_t kWorkspaceBytes = int64_t{64} << 20;
    const int64_t pieceBytes = std::max<int64_t>(reductionPoints, 1) * nvptx::kQuickPartialSlotBytes;
    long long pieces = std::clamp<int64_t>(kWorkspaceBytes / (across * pieceBytes), 1, std::max<int64_t>(points, 1));
    void* workspace = device.allocate(static_cast<size_t>(across * pieces * pieceBytes));
    args.push_back(&workspace);
    args.push_back(&pieces);
    try {
        device.launch(compiled, shape(pieces, 32), args.data());
        device.launch(compiled, shape(reductionPoints, nvptx::kQuickBlockThreads), args.data(), nvptx::quickFinishEntry(compiled.entry));
    } catch (...) {
        device.deallocate(workspace);
        throw;
    }
    device.deallocate(workspace);  // stream-ordered: the next user of the block runs after these launches
}

BackgroundCompile::BackgroundCompile(std::vector<eng::cuda::CompileJob> jobs) : jobs_(std::move(jobs)) {
    InFlight& inFlight = InFlight::get();
    inFlight.started();
    thread_ = std::thread([this, &inFlight] {
        try {
            outcomes_ = eng::cuda::KernelCompiler::instance().compileJobs(jobs_);
        } catch (...) {
            error_ = std::current_exception();
        }
        ready_.store(true, std::memory_order_release);
        inFlight.finished();
    });
}

BackgroundCompile::~BackgroundCompile() {
    if (thread_.joinable()) thread_.join();
}

std::vector<eng::cuda::KernelCompileOutcome> BackgroundCompile::take() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
    return std::move(outcomes_);
}

}  // namespace eng::inductor::cuda
