// The CPU KernelLauncher: all kernels of a graph JIT-compiled in one LLVM JIT session, each launch splitting its outer
// range over the worker pool's threads when there is enough work to pay for them.
#include "inductor/cpu/cpu_launcher.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "inductor/cpu/cpu_codegen.h"
#include "tensor/worker_pool.h"
#include "inductor/ir/kernel_launcher.h"

namespace eng::inductor {

namespace {

/// Elements of work (outer points x reduction length) below which a kernel stays on the calling thread.
constexpr int64_t kParallelWork = 1 << 16;

class CpuLauncher : public KernelLauncher {
public:
    explicit CpuLauncher(const std::vector<Kernel>& kernels) : kernels_(kernels), module_(cpu::compileCpuKernels(kernels)) {}

    KernelArtifact artifact(size_t index, const SymbolValues& hints) const override {
        const int64_t points = cpu::outerPointCount(kernels_.at(index), hints);
        return KernelArtifact{"llvm_ir", module_->llvmIr(index),
                              std::to_string(points) + " outer points over up to " + std::to_string(threadCount()) + " threads"};
    }

    void launch(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) override {
        const Kernel& kernel = kernels_.at(index);
        std::vector<int64_t> values;
        for (const std::string& name : kernel.symbols) values.push_back(symbols.at(name));
        const int64_t points = cpu::outerPointCount(kernel, symbols);
        int64_t rowLength = 1;
        for (const Index& r : kernel.reductionRanges) rowLength *= evaluate(r, {}, symbols);
        cpu::KernelEntry entry = module_->entry(index);
        const int threads = static_cast<int>(std::min<int64_t>(threadCount(), points));
        const bool serial = threads <= 1 || points * std::max<int64_t>(rowLength, 1) < kParallelWork;
        const int64_t chunk = serial ? std::max<int64_t>(points, 1) : (points + threads - 1) / threads;
        const int64_t pieces = (points + chunk - 1) / chunk;
        if (cpu::KernelEntry finish = module_->finish(index)) {
            runWithPartials(kernel, entry, finish, buffers, values, points, chunk, std::max<int64_t>(pieces, 1), std::max<int64_t>(rowLength, 1));
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

    double compileSeconds() const override { return module_->compileSeconds(); }
    KernelCompileInfo compileInfo(size_t index) const override {
        return {module_->kernelSeconds(index), module_->fromCache(index) ? "the disk cache" : "LLVM"};
    }

private:
    static int threadCount() { return tensor::workerThreadCount(); }

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

    std::vector<Kernel> kernels_;
    std::shared_ptr<cpu::CpuKernelModule> module_;
};

}  // namespace

void registerCpuLauncher() {
    registerLauncher(tensor::DeviceType::CPU, [](const std::vector<Kernel>& kernels, int, bool) -> std::unique_ptr<KernelLauncher> {
        return std::make_unique<CpuLauncher>(kernels);
    });
}

}  // namespace eng::inductor
