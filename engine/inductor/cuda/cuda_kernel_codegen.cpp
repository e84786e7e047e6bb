// Entry points of the CUDA code generator: strategy choice, launch shapes for given symbol values, and the
// launcher that lays out kernel arguments in Kernel order (buffers, then int64 symbols).
#include "inductor/cuda/cuda_kernel_codegen.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "cuda/driver.h"
#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda {

const char* strategyName(CudaStrategy strategy) {
    switch (strategy) {
        case CudaStrategy::PointwiseVectorized: return "pointwise_vectorized";
        case CudaStrategy::PointwiseScalar: return "pointwise_scalar";
        case CudaStrategy::RowReduction: return "row_reduction";
        case CudaStrategy::ColumnReduction: return "column_reduction";
    }
    return "?";
}

CudaKernelCode generateCudaKernel(const Kernel& kernel, const CudaTuning& tuning) {
    verifyKernel(kernel);
    if (kernel.outerRanges.empty() && !kernel.isReduction() && kernel.passes.empty())
        throw std::logic_error("CUDA codegen: kernel " + kernel.name + " does nothing");
    // A column reduction over many rows as rows with column partials, when those stay in registers.
    std::optional<Kernel> rows = kernel.isReduction() && !kernel.isCombo() ? detail::columnReductionAsRows(kernel, tuning) : std::nullopt;
    CudaKernelCode code;
    if (rows) {
        code = detail::generateReduction(*rows, tuning);
        if (code.partialsInRegisters) {
            code.columnsAsRows = true;
            code.source = "// The column reduction below is generated as the row kernel whose IR follows it (its rows spread over the grid).\n" +
                          detail::irComment(kernel) + code.source;
        } else {
            rows.reset();
        }
    }
    if (!rows)
        code = kernel.isCombo()       ? detail::generateCombo(kernel, tuning)
               : kernel.isReduction() ? detail::generateReduction(kernel, tuning)
                                      : detail::generatePointwise(kernel, tuning);
    code.name = kernel.name;
    code.renamable = detail::renamableNames(kernel);
    if (tuning.trigCalls) code.source = "#define CWB_TRIG_CALLS\n" + code.source;  // before the prelude reads it
    if (tuning.gridWaves > 0) code.gridWaves = tuning.gridWaves;
    code.outerRanges = rows ? rows->outerRanges : kernel.outerRanges;
    code.reductionRanges = rows ? rows->reductionRanges : kernel.reductionRanges;
    code.symbols = kernel.symbols;
    return code;
}

eng::cuda::LaunchShape CudaKernelCode::launchShape(const SymbolValues& symbolValues, int multiprocessors) const {
    int64_t items = 1;
    for (const Index& range : outerRanges) items *= evaluate(range, {}, symbolValues);
    int64_t blocks = std::max<int64_t>(1, (items + itemsPerBlock - 1) / itemsPerBlock);
    if (!comboParts.empty()) {  // exactly the parts' blocks, which the kernel's dispatch counts the same way
        blocks = 0;
        for (const ComboBlocks& part : comboParts) blocks += (evaluate(part.numel, {}, symbolValues) + part.itemsPerBlock - 1) / part.itemsPerBlock;
        blocks = std::max<int64_t>(1, blocks);
    } else if (multiprocessors > 0 && outerPartials > 0) {
        // Every piece writes a row of partials per reduction over the outer range: about one wave of blocks.
        // The fewest blocks that leave no block more row groups than the cap's would: the same time, fewer pieces,
        // and no last round that only some blocks run (8192 rows on 264 blocks: 256 blocks of 32 rows each).
        const int64_t perSm = std::max<int64_t>(1, partialThreadsPerSm / (static_cast<int64_t>(blockX) * blockY));
        const int64_t rounds = (blocks + multiprocessors * perSm - 1) / (multiprocessors * perSm);
        blocks = (blocks + rounds - 1) / rounds;
    } else if (multiprocessors > 0 && gridWaves > 0) {
        // Beyond a few full waves the kernels' grid-stride loops do the rest with no extra block launches.
        const int64_t residentPerSm = std::max<int64_t>(1, 2048 / (static_cast<int64_t>(blockX) * blockY));
        blocks = std::min<int64_t>(blocks, multiprocessors * residentPerSm * gridWaves);
    }
    blocks = std::min<int64_t>(blocks, 2147483647);
    eng::cuda::LaunchShape shape;
    shape.gridX = static_cast<unsigned>(blocks);
    shape.blockX = blockX;
    shape.blockY = blockY;
    return shape;
}

eng::cuda::LaunchShape CudaKernelCode::finishShape(const SymbolValues& symbolValues) const {
    int64_t columns = 1;
    for (const Index& range : reductionRanges) columns *= evaluate(range, {}, symbolValues);
    eng::cuda::LaunchShape shape;
    shape.gridX = static_cast<unsigned>(std::clamp<int64_t>((columns + finishBlockX - 1) / finishBlockX, 1, 2147483647));
    shape.blockX = finishBlockX;
    shape.blockY = finishBlockY;
    return shape;
}

size_t CudaKernelCode::workspaceBytes(const eng::cuda::LaunchShape& shape, const SymbolValues& symbolValues) const {
    int64_t columns = 1;
    for (const Index& range : reductionRanges) columns *= evaluate(range, {}, symbolValues);
    return static_cast<size_t>(outerPartials) * static_cast<size_t>(pieces(shape)) * static_cast<size_t>(std::max<int64_t>(columns, 0)) * 8;
}

std::string CudaKernelCode::launchText(const SymbolValues& symbolValues, int multiprocessors) const {
    const eng::cuda::LaunchShape s = launchShape(symbolValues, multiprocessors);
    std::string text = fmt::format("grid=({}, {}, {}) block=({}, {}, {})", s.gridX, s.gridY, s.gridZ, s.blockX, s.blockY, s.blockZ);
    if (outerPartials == 0) return text;
    const eng::cuda::LaunchShape f = finishShape(symbolValues);
    return text + fmt::format(", then {}_finish grid=({}, 1, 1) block=({}, {}, 1)", name, f.gridX, f.blockX, f.blockY);
}

bool buffersAligned(std::span<void* const> buffers) {
    for (void* pointer : buffers)
        if (reinterpret_cast<uintptr_t>(pointer) % 16 != 0) return false;
    return true;
}

void launchCudaKernel(eng::cuda::DeviceContext& device, const eng::cuda::CompiledKernel& compiled, const CudaKernelCode& code,
                      std::span<void* const> buffers, const SymbolValues& symbols) {
    std::vector<void*> pointers(buffers.begin(), buffers.end());
    std::vector<long long> values;
    values.reserve(code.symbols.size());
    for (const std::string& symbol : code.symbols) {
        auto found = symbols.find(symbol);
        if (found == symbols.end()) throw std::logic_error(fmt::format("launching {}: no value for symbol {}", code.name, symbol));
        values.push_back(found->second);
    }
    // An empty outer range launches nothing (a zero grid is a launch error), unless reductions over it still
    // have results to write (their identities).
    int64_t items = 1;
    for (const Index& range : code.outerRanges) items *= evaluate(range, {}, symbols);
    if (items <= 0 && code.outerPartials == 0) return;
    std::vector<void*> args;
    for (void*& pointer : pointers) args.push_back(&pointer);
    for (long long& value : values) args.push_back(&value);
    const eng::cuda::LaunchShape shape = code.launchShape(symbols, device.multiprocessorCount());
    if (code.outerPartials == 0) {
        device.launch(compiled, shape, args.data());
        return;
    }
    // The pieces' partials live in a workspace until the finish entry has combined them; blocks of the caching
    // allocator are reused in stream order only, so it can go back as soon as both launches are queued.
    const size_t bytes = code.workspaceBytes(shape, symbols);
    void* workspace = device.allocate(std::max<size_t>(bytes, 16));
    int pieces = static_cast<int>(code.pieces(shape));
    args.push_back(&workspace);
    args.push_back(&pieces);
    try {
        device.launch(compiled, shape, args.data());
        device.launch(compiled, code.finishShape(symbols), args.data(), compiled.entry + "_finish");  // a shared module's names
    } catch (...) {
        device.deallocate(workspace);
        throw;
    }
    device.deallocate(workspace);
}

}  // namespace eng::inductor::cuda
