// The CPU KernelLauncher: all kernels of a graph JIT-compiled in one LLVM JIT session, each launch splitting its outer
// range over the worker pool's threads when there is enough work to pay for them. With coordinate_descent_tuning the
// number of pieces the outer range splits into is tuned per kernel on its first launch (coordinate_descent.h).
#include "inductor/cpu/cpu_launcher.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include "inductor/cpu/cpu_codegen.h"
#include "inductor/ir/coordinate_descent.h"
#include "inductor/ir/kernel_launcher.h"
#include "tensor/worker_pool.h"

namespace eng::inductor {

namespace {

/// Elements of work (outer points x reduction length) below which a kernel stays on the calling thread.
constexpr int64_t kParallelWork = 1 << 16;

class CpuLauncher : public KernelLauncher {
public:
    CpuLauncher(const std::vector<Kernel>& kernels, bool coordinateDescent, int threadCap)
        : threadCap_(threadCap), kernels_(kernels), module_(cpu::compileCpuKernels(kernels)), tuned_(kernels.size(), !coordinateDescent),
          pieces_(kernels.size(), 0), reports_(kernels.size()) {}

    KernelArtifact artifact(size_t index, const SymbolValues& hints) const override {
        const int64_t points = cpu::outerPointCount(kernels_.at(index), hints);
        std::string launch = std::to_string(points) + " outer points over up to " + std::to_string(threadCount()) + " threads";
        if (!tuned_[index]) launch += " (coordinate descent on its first launch)";
        else if (!reports_[index].empty()) launch += " " + reports_[index];
        return KernelArtifact{"llvm_ir", module_->llvmIr(index), launch};
    }

    void launch(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) override {
        const Kernel& kernel = kernels_.at(index);
        std::vector<int64_t> values;
        for (const std::string& name : kernel.symbols) values.push_back(symbols.at(name));
        const int64_t points = cpu::outerPointCount(kernel, symbols);
        if (!tuned_[index]) tune(index, buffers, values, symbols, points);
        runPieces(index, buffers, values, symbols, points, pieces_[index] > 0 ? pieces_[index] : heuristicPieces(kernel, symbols, points));
    }

    double compileSeconds() const override { return module_->compileSeconds(); }
    KernelCompileInfo compileInfo(size_t index) const override {
        return {module_->kernelSeconds(index), module_->fromCache(index) ? "the disk cache" : "LLVM"};
    }

private:
    int threadCount() const { return threadCap_ > 0 ? std::min(threadCap_, tensor::workerThreadCount()) : tensor::workerThreadCount(); }

    static int64_t rowLengthOf(const Kernel& kernel, const SymbolValues& symbols) {
        int64_t rowLength = 1;
        for (const Index& r : kernel.reductionRanges) rowLength *= evaluate(r, {}, symbols);
        return std::max<int64_t>(rowLength, 1);
    }

    /// One piece per thread when there is enough work to pay for them, else one.
    int64_t heuristicPieces(const Kernel& kernel, const SymbolValues& symbols, int64_t points) const {
        const int threads = static_cast<int>(std::min<int64_t>(threadCount(), points));
        const bool serial = threads <= 1 || points * rowLengthOf(kernel, symbols) < kParallelWork;
        return serial ? 1 : threads;
    }

    /// coordinate_descent_tuning: the pieces the outer range splits into (1, 2, 4, ... up to four per thread) walked
    /// from the heuristic's choice. The kernels only read their inputs and overwrite their outputs (partials of
    /// reductions across pieces live in the launch), so timing candidates on the real buffers leaves the kept
    /// configuration's results behind once it runs last (launch runs it after this).
    void tune(size_t index, std::span<void* const> buffers, const std::vector<int64_t>& values, const SymbolValues& symbols, int64_t points) {
        tuned_[index] = true;
        const int64_t start = heuristicPieces(kernels_[index], symbols, points);
        LaunchCoordinate pieces{"pieces", {}};
        for (int64_t p = 1; p <= std::max<int64_t>(1, std::min<int64_t>(points, 4 * threadCount())); p *= 2) pieces.values.push_back(p);
        if (std::find(pieces.values.begin(), pieces.values.end(), start) == pieces.values.end()) {
            pieces.values.push_back(start);
            std::sort(pieces.values.begin(), pieces.values.end());
        }
        const size_t startIndex = static_cast<size_t>(std::find(pieces.values.begin(), pieces.values.end(), start) - pieces.values.begin());
        DescentResult result = coordinateDescent({pieces}, {startIndex}, [&](const std::vector<size_t>& choice) {
            constexpr int kRuns = 3;
            const int64_t count = pieces.values[choice[0]];
            runPieces(index, buffers, values, symbols, points, count);  // warm-up
            auto begin = std::chrono::steady_clock::now();
            for (int i = 0; i < kRuns; ++i) runPieces(index, buffers, values, symbols, points, count);
            return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count() / kRuns;
        });
        pieces_[index] = pieces.values[result.choice[0]];
        reports_[index] = result.report;
    }

    void runPieces(size_t index, std::span<void* const> buffers, const std::vector<int64_t>& values, const SymbolValues& symbols,
                   int64_t points, int64_t pieceCount) {
        const Kernel& kernel = kernels_.at(index);
        const int64_t rowLength = rowLengthOf(kernel, symbols);
        cpu::KernelEntry entry = module_->entry(index);
        const bool serial = pieceCount <= 1;
        const int64_t chunk = serial ? std::max<int64_t>(points, 1) : (points + pieceCount - 1) / pieceCount;
        const int64_t pieces = (points + chunk - 1) / chunk;
        if (cpu::KernelEntry finish = module_->finish(index)) {
            runWithPartials(kernel, entry, finish, buffers, values, points, chunk, std::max<int64_t>(pieces, 1), rowLength);
            return;
        }
        if (serial) {
            entry(buffers.data(), values.data(), 0, points);
            return;
        }
        tensor::runOnWorkers(pieces, [&](int64_t task) {
            const int64_t begin = task * chunk;
            entry(buffers.data(), values.data(), begin, std::min(points, begin + chunk));
        });
    }

    // A kernel with reductions over the outer range: each piece of the outer range accumulates into its own
    // partials (cpu_codegen.h), then the finish combines them in piece order and writes the results.
    static void runWithPartials(const Kernel& kernel, cpu::KernelEntry entry, cpu::KernelEntry finish, std::span<void* const> buffers,
                                const std::vector<int64_t>& values, int64_t points, int64_t chunk, int64_t pieces, int64_t rowLength) {
        int64_t across = 0;
        for (const KernelPass& pass : kernel.passes)
            for (const Reduction& r : pass.reductions) across += r.overOuterRange ? 1 : 0;
        const int64_t pieceBytes = rowLength * cpu::kPartialSlotBytes;
        std::vector<std::byte> storage(static_cast<size_t>(across * pieces * pieceBytes));
        auto arguments = [&](int64_t piece) {
            std::vector<void*> all(buffers.begin(), buffers.end());
            for (int64_t j = 0; j < across; ++j) all.push_back(storage.data() + (j * pieces + piece) * pieceBytes);
            return all;
        };
        auto runPiece = [&](int64_t piece) {
            const int64_t begin = piece * chunk;
            entry(arguments(piece).data(), values.data(), begin, std::min(points, begin + chunk));
        };
        if (pieces == 1) runPiece(0);
        else tensor::runOnWorkers(pieces, runPiece);
        finish(arguments(0).data(), values.data(), 0, pieces);
    }

    int threadCap_;
    std::vector<Kernel> kernels_;
    std::shared_ptr<cpu::CpuKernelModule> module_;
    std::vector<bool> tuned_;            // per kernel: its launch configuration is settled
    std::vector<int64_t> pieces_;        // per kernel: the pieces coordinate descent kept (0: the heuristic's)
    std::vector<std::string> reports_;   // per kernel: what coordinate descent timed and kept
};

}  // namespace

void registerCpuLauncher() {
    registerLauncher(tensor::DeviceType::CPU, [](const std::vector<Kernel>& kernels, int, LaunchTuning tuning) -> std::unique_ptr<KernelLauncher> {
        return std::make_unique<CpuLauncher>(kernels, tuning.coordinateDescent, tuning.cpuThreads);
    });
}

}  // namespace eng::inductor
