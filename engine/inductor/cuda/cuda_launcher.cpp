// The CUDA KernelLauncher: each kernel generated as CUDA C++, compiled by NVRTC for the device's architecture
// through the kernel cache (a graph's kernels in parallel), and launched on the device's stream with a launch shape computed per call. Under
// max-autotune the first launch of a kernel times candidate block shapes on the real buffers and keeps the best; with
// coordinate_descent_tuning it then walks the threads per block by coordinate descent (ir/coordinate_descent.h).
#include "inductor/cuda/cuda_launcher.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "cuda/driver.h"
#include "cuda/tuning_list.h"
#include "inductor/cuda/bytecode_tier.h"
#include "inductor/cuda/cuda_kernel_codegen.h"
#include "inductor/cuda/cuda_tiers.h"
#include "inductor/ir/coordinate_descent.h"
#include "inductor/ir/kernel_launcher.h"
#include "inductor/nvptx/nvptx_codegen.h"

namespace eng::inductor {

namespace {

using Clock = std::chrono::steady_clock;

// CWB_CUDA_TUNING="block=512,elements=8,persistent=0,online=1,partials=2048,waves=4,trig_calls=1,store_vectors=0,where_vectors=0,block_partials=0,row_registers=16,column_partials=0,shifted_rows=0": other defaults than the heuristics' for every kernel, for
// measuring a variant without rebuilding (CudaTuning's fields; part of the source, so of the cache key too).
cuda::CudaTuning tuningFromEnvironment() {
    cuda::CudaTuning tuning;
    const char* text = std::getenv("CWB_CUDA_TUNING");
    if (!text) return tuning;
    const std::optional<std::string> unknown = eng::cuda::forEachTuningItem(text, [&](const std::string& key, int value) {
        if (key == "block") tuning.blockSize = value;
        else if (key == "elements") tuning.elementsPerThread = value;
        else if (key == "persistent") tuning.persistentRows = value != 0;
        else if (key == "vectors") tuning.allowVectorized = value != 0;
        else if (key == "online") tuning.onlineSoftmax = value != 0;
        else if (key == "partials") tuning.partialThreadsPerSm = value;
        else if (key == "waves") tuning.gridWaves = value;
        else if (key == "trig_calls") tuning.trigCalls = value != 0;
        else if (key == "store_vectors") tuning.storeVectors = value != 0;
        else if (key == "where_vectors") tuning.whereVectors = value != 0;
        else if (key == "block_partials") tuning.blockPartials = value != 0;
        else if (key == "row_registers") tuning.rowRegisters = value;
        else if (key == "column_partials") tuning.columnPartials = value != 0;
        else if (key == "shifted_rows") tuning.shiftedRows = value != 0;
        else return false;
        return true;
    });
    if (unknown)
        throw std::invalid_argument(fmt::format("CWB_CUDA_TUNING: unknown key '{}' (block, elements, persistent, vectors, online, partials, waves, trig_calls, store_vectors, where_vectors, block_partials, row_registers, column_partials, shifted_rows)", *unknown));
    return tuning;
}

class CudaLauncher : public KernelLauncher {
public:
    CudaLauncher(const std::vector<Kernel>& kernels, int deviceIndex, LaunchTuning tuning)
        : device_(eng::cuda::DeviceContext::get(deviceIndex)), kernels_(kernels), autotune_(tuning.autotune),
          coordinateDescent_(tuning.coordinateDescent) {
        auto start = Clock::now();
        const cuda::CudaTuning defaults = tuningFromEnvironment();
        for (const Kernel& k : kernels) codes_.push_back(cuda::generateCudaKernel(k, defaults));
        compileTiered();
        tuned_.assign(kernels.size(), !autotune_ && !coordinateDescent_);
        generatedWith_.assign(kernels.size(), defaults);
        unaligned_.resize(kernels.size());
        tuningReports_.assign(kernels.size(), "");
        compileSeconds_ = std::chrono::duration<double>(Clock::now() - start).count();
    }

    KernelArtifact artifact(size_t index, const SymbolValues& hints) const override {
        const cuda::CudaKernelCode& code = codes_.at(index);
        std::string launch = code.launchText(hints, device_.multiprocessorCount()) + " " + cuda::strategyName(code.strategy);
        if (autotune_ || coordinateDescent_)
            launch += tuningReports_[index].empty() ? " (tuned on its first launch)" : " " + tuningReports_[index];
        if (interpreted_.at(index))
            return KernelArtifact{"kernel_ir", kernelText(kernels_[index]),
                                  "interpreter tier: the kernel's bytecode run by cwb's prebuilt interpreter kernels, one thread per outer point"};
        if (quickTier_.at(index))
            return KernelArtifact{"ptx", compiled_.at(index)->cubin,
                                  kernels_[index].hasOuterRangeReductions()
                                      ? "quick tier: one thread per piece of the outer range, then one per point of the reduction range"
                                      : fmt::format("quick tier: one thread per outer point, blocks of {} threads, grid-stride", nvptx::kQuickBlockThreads)};
        // PTX from the LLVM path: the PTX the driver loads is what ran.
        if (compiled_.at(index)->ptx) return KernelArtifact{"ptx", compiled_.at(index)->cubin, launch + " (LLVM NVPTX)"};
        return KernelArtifact{"cuda", code.source, launch};
    }

    void launch(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) override {
        if (background_ && ((tiers_.swapWhenReady && background_->ready()) || quickLaunches_[index] >= tiers_.quickLaunches)) adoptOptimised();
        if (quickTier_[index]) {
            ++quickLaunches_[index];
            if (interpreted_[index]) bytecode_->launch(index, kernels_[index], buffers, symbols);
            else cuda::launchQuickTier(device_, *compiled_[index], kernels_[index], buffers, symbols);
            return;
        }
        const bool aligned = cuda::buffersAligned(buffers);
        if (!tuned_[index] && aligned) autotune(index, buffers, symbols);
        if (codes_[index].assumesAligned && !aligned) {
            // An offset view (a slice passed as a graph input): the kernel generated without the alignment
            // assumption, made on first need and kept.
            auto& [code, compiled] = unaligned_[index];
            if (!compiled) {
                cuda::CudaTuning general = generatedWith_[index];
                general.assumeAligned = false;
                code = cuda::generateCudaKernel(kernels_[index], general);
                compiled = compile(index, code);
            }
            cuda::launchCudaKernel(device_, *compiled, code, buffers, symbols);
            return;
        }
        cuda::launchCudaKernel(device_, *compiled_.at(index), codes_.at(index), buffers, symbols);
    }

    void awaitOptimised() override {
        if (!background_) return;
        adoptOptimised();
        for (const auto& compiled : compiled_) device_.preload(*compiled);  // not inside the recording
    }

    double compileSeconds() const override { return compileSeconds_; }
    KernelCompileInfo compileInfo(size_t index) const override { return info_.at(index); }

private:
    static std::string howCompiled(const eng::cuda::KernelCompileOutcome& outcome) {
        const eng::cuda::KernelOrigin origin = outcome.origin;
        // Another kernel of this graph with the same code but for names compiled it: its module and entry run.
        if (origin == eng::cuda::KernelOrigin::SameSource) return fmt::format("kernel {} (the same code but for names)", outcome.kernel->entry);
        return origin == eng::cuda::KernelOrigin::Nvrtc ? "NVRTC"
               : origin == eng::cuda::KernelOrigin::Llvm ? "LLVM NVPTX"
                                                         : std::string("the ") + toString(origin);
    }

    /// Kernels the kernel cache has compile now (a disk read); the others start on the interpreter tier (nothing to
    /// compile; not a kernel it runs slowly, bytecode_tier.h), else on the quick tier while their optimised kernels compile in the background
    /// (cuda_tiers.h); the rest compile now.
    void compileTiered() {
        const std::string& arch = device_.arch();
        eng::cuda::KernelCompiler& compiler = eng::cuda::KernelCompiler::instance();
        std::vector<eng::cuda::CompileJob> jobs = cuda::cudaCompileJobs(kernels_, codes_, arch, path_, compiler);
        const bool tiered = tiers_.tiered && !autotune_ && !coordinateDescent_;
        const bool interpreter = tiered && tiers_.interpreter && cuda::bytecodeTierAvailable(arch);
        quickTier_.assign(kernels_.size(), false);
        interpreted_.assign(kernels_.size(), false);
        quickLaunches_.assign(kernels_.size(), 0);
        compiled_.assign(kernels_.size(), nullptr);
        info_.assign(kernels_.size(), {});
        std::vector<std::unique_ptr<bytecode::Program>> programs(kernels_.size());
        std::vector<eng::cuda::CompileJob> now, later;
        std::vector<size_t> nowIndex;
        for (size_t i = 0; i < kernels_.size(); ++i) {
            const bool miss = tiered && !compiler.cached(jobs[i].key);
            const bool quickCovers = miss && nvptx::quickTierCovers(kernels_[i], arch);
            if (miss && interpreter && !cuda::bytecodeSlowerThanQuickTier(kernels_[i]))
                programs[i] = encodeKernelBytecode(kernels_[i]);  // null: the bytecode cannot express it
            if (programs[i]) {
                interpreted_[i] = quickTier_[i] = true;
                info_[i] = {0, "the GPU interpreter tier (its bytecode, nothing compiled) while the optimised kernel compiles"};
                later.push_back(jobs[i]);
                continue;
            }
            nowIndex.push_back(i);
            if (quickCovers) {
                quickTier_[i] = true;
                later.push_back(jobs[i]);
                now.push_back({"quick tier\n" + jobs[i].key, [this, i, key = jobs[i].key, &arch] {
                                   const auto started = Clock::now();
                                   eng::cuda::KernelCompileOutcome outcome = cuda::compileQuickTier(kernels_[i], arch, key, tiers_.quickJitLevel);
                                   // CWB_CUDA_QUICK_LOAD=threads: the driver's JIT of its PTX here, beside the
                                   // graph's other kernels' (cuda_tiers.h says why it is off).
                                   if (tiers_.loadOnCompileThreads) device_.preload(*outcome.kernel);
                                   outcome.seconds = std::chrono::duration<double>(Clock::now() - started).count();
                                   return outcome;
                               }});
            } else {
                now.push_back(std::move(jobs[i]));
            }
        }
        if (!later.empty()) background_ = std::make_unique<cuda::BackgroundCompile>(std::move(later));
        if (std::find(interpreted_.begin(), interpreted_.end(), true) != interpreted_.end())
            bytecode_ = std::make_unique<cuda::BytecodePrograms>(device_, std::move(programs));
        std::vector<eng::cuda::KernelCompileOutcome> outcomes = compiler.compileJobs(now);
        for (size_t k = 0; k < outcomes.size(); ++k) {
            const size_t i = nowIndex[k];
            std::string how = howCompiled(outcomes[k]);
            if (quickTier_[i]) how = "the quick tier (LLVM NVPTX, one thread per outer point) while the optimised kernel compiles";
            compiled_[i] = std::move(outcomes[k].kernel);
            info_[i] = {outcomes[k].seconds, how};
        }
    }

    /// The background compile's kernels replace the quick tier's (waiting for them if they are not ready).
    void adoptOptimised() {
        std::vector<eng::cuda::KernelCompileOutcome> outcomes = background_->take();
        background_.reset();
        size_t next = 0;
        for (size_t i = 0; i < kernels_.size(); ++i) {
            if (!quickTier_[i]) continue;
            eng::cuda::KernelCompileOutcome& outcome = outcomes.at(next++);
            info_[i] = {outcome.seconds, fmt::format("{} in the background, after {} launch(es) of the {} tier", howCompiled(outcome), quickLaunches_[i],
                                                     interpreted_[i] ? "interpreter" : "quick")};
            compiled_[i] = std::move(outcome.kernel);
            quickTier_[i] = false;
            interpreted_[i] = false;
        }
        bytecode_.reset();
    }

    std::shared_ptr<const eng::cuda::CompiledKernel> compile(size_t index, const cuda::CudaKernelCode& code) {
        return cuda::compileCudaKernel(kernels_[index], code, device_.arch(), path_);
    }

    /// Mean time of `code` over a few launches after a warm-up launch, in microseconds.
    double timeLaunches(const eng::cuda::CompiledKernel& compiled, const cuda::CudaKernelCode& code, std::span<void* const> buffers,
                        const SymbolValues& symbols) {
        constexpr int kRuns = 10;
        cuda::launchCudaKernel(device_, compiled, code, buffers, symbols);
        device_.synchronize();
        auto start = Clock::now();
        for (int i = 0; i < kRuns; ++i) cuda::launchCudaKernel(device_, compiled, code, buffers, symbols);
        device_.synchronize();
        return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRuns;
    }

    /// The kernels only read their inputs and overwrite their outputs, so running candidates on the real buffers
    /// leaves the same results behind.
    void autotune(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) {
        tuned_[index] = true;
        if (autotune_) timeCandidates(index, buffers, symbols);
        if (coordinateDescent_) descend(index, buffers, symbols);
    }

    /// coordinate_descent_tuning: threads per block walked by coordinate descent (32 to 1024, doubling) from what
    /// the heuristic or max-autotune chose.
    void descend(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) {
        LaunchCoordinate block{"block", {32, 64, 128, 256, 512, 1024}};
        const int64_t current = static_cast<int64_t>(codes_[index].blockX) * codes_[index].blockY;
        size_t start = 0;
        while (start + 1 < block.values.size() && block.values[start] < current) ++start;
        std::map<int64_t, std::pair<cuda::CudaKernelCode, std::shared_ptr<const eng::cuda::CompiledKernel>>> made;
        auto variant = [&](int64_t threads) -> auto& {
            auto found = made.find(threads);
            if (found != made.end()) return found->second;
            cuda::CudaTuning tuning = generatedWith_[index];
            tuning.blockSize = static_cast<int>(threads);
            cuda::CudaKernelCode code = cuda::generateCudaKernel(kernels_[index], tuning);
            auto compiled = compile(index, code);
            return made[threads] = {std::move(code), std::move(compiled)};
        };
        DescentResult result = coordinateDescent({block}, {start}, [&](const std::vector<size_t>& choice) {
            auto& [code, compiled] = variant(block.values[choice[0]]);
            return timeLaunches(*compiled, code, buffers, symbols);
        });
        auto& [code, compiled] = variant(block.values[result.choice[0]]);
        generatedWith_[index].blockSize = static_cast<int>(block.values[result.choice[0]]);
        codes_[index] = code;
        compiled_[index] = compiled;
        tuningReports_[index] += (tuningReports_[index].empty() ? "" : "; ") + result.report;
    }

    /// max_autotune: the heuristic's launch shape and fixed candidates timed, the fastest kept.
    void timeCandidates(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) {
        double best = timeLaunches(*compiled_[index], codes_[index], buffers, symbols);
        std::string report = fmt::format("heuristic {:.1f} us", best);
        std::vector<std::pair<std::string, cuda::CudaTuning>> candidates;
        for (int block : {128, 256, 512, 1024}) {
            cuda::CudaTuning tuning = generatedWith_[index];
            tuning.blockSize = block;
            candidates.emplace_back(fmt::format("block {}", block), tuning);
        }
        if (kernels_[index].isReduction())
            for (int elements : {8, 32}) {  // threads per row follow from the elements each thread takes
                cuda::CudaTuning tuning = generatedWith_[index];
                tuning.elementsPerThread = elements;
                candidates.emplace_back(fmt::format("{} per thread", elements), tuning);
            }
        for (const auto& [label, tuning] : candidates) {
            cuda::CudaKernelCode code = cuda::generateCudaKernel(kernels_[index], tuning);
            auto compiled = compile(index, code);
            double micros = timeLaunches(*compiled, code, buffers, symbols);
            report += fmt::format(", {} {:.1f} us", label, micros);
            if (micros < best) {
                best = micros;
                generatedWith_[index] = tuning;
                codes_[index] = std::move(code);
                compiled_[index] = std::move(compiled);
            }
        }
        tuningReports_[index] = fmt::format("autotuned: {} (kept {:.1f} us)", report, best);
    }

    eng::cuda::DeviceContext& device_;
    cuda::CudaCodegenPath path_ = cuda::cudaCodegenFromEnvironment();
    std::vector<Kernel> kernels_;
    bool autotune_;
    bool coordinateDescent_;
    std::vector<cuda::CudaKernelCode> codes_;
    std::vector<std::shared_ptr<const eng::cuda::CompiledKernel>> compiled_;
    std::vector<bool> tuned_;
    std::vector<cuda::CudaTuning> generatedWith_;  // what each kept kernel was generated with
    std::vector<std::pair<cuda::CudaKernelCode, std::shared_ptr<const eng::cuda::CompiledKernel>>> unaligned_;
    std::vector<std::string> tuningReports_;  // what autotuning timed and kept, per kernel
    std::vector<KernelCompileInfo> info_;
    double compileSeconds_ = 0;
    cuda::TierSettings tiers_ = cuda::tierSettingsFromEnvironment();
    std::vector<bool> quickTier_;      // kernels running a first tier (quick or interpreter) until adoptOptimised
    std::vector<bool> interpreted_;    // ... the interpreter tier's (bytecode_)
    std::unique_ptr<cuda::BytecodePrograms> bytecode_;
    std::vector<int> quickLaunches_;
    // Last: destroyed first, waiting for its jobs, which refer to kernels_ and codes_.
    std::unique_ptr<cuda::BackgroundCompile> background_;
};

}  // namespace

void registerCudaLauncher() {
    registerLauncher(tensor::DeviceType::CUDA, [](const std::vector<Kernel>& kernels, int device, LaunchTuning tuning) -> std::unique_ptr<KernelLauncher> {
        return std::make_unique<CudaLauncher>(kernels, device, tuning);
    });
}

}  // namespace eng::inductor
