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
    if (kernel.hasOuterRangeReductions())  // the scheduler keeps such reductions in kernels of their own on CUDA
        throw std::logic_error("CUDA codegen: kernel " + kernel.name + " reduces over its outer range, which only the CPU generates");
    CudaKernelCode code = kernel.isCombo()       ? detail::generateCombo(kernel, tuning)
                          : kernel.isReduction() ? detail::generateReduction(kernel, tuning)
                                                 : detail::generatePointwise(kernel, tuning);
    code.name = kernel.name;
    code.outerRanges = kernel.outerRanges;
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
    } else if (multiprocessors > 0) {
        // Beyond a few full waves the kernels' grid-stride loops do the rest with no extra block launches.
        const int64_t residentPerSm = std::max<int64_t>(1, 2048 / (static_cast<int64_t>(blockX) * blockY));
        blocks = std::min<int64_t>(blocks, multiprocessors * residentPerSm * 8);
    }
    blocks = std::min<int64_t>(blocks, 2147483647);
    eng::cuda::LaunchShape shape;
    shape.gridX = static_cast<unsigned>(blocks);
    shape.blockX = blockX;
    shape.blockY = blockY;
    return shape;
}

std::string CudaKernelCode::launchText(const SymbolValues& symbolValues, int multiprocessors) const {
    const eng::cuda::LaunchShape s = launchShape(symbolValues, multiprocessors);
    return fmt::format("grid=({}, {}, {}) block=({}, {}, {})", s.gridX, s.gridY, s.gridZ, s.blockX, s.blockY, s.blockZ);
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
    // An empty outer range launches nothing (a zero grid is a launch error).
    int64_t items = 1;
    for (const Index& range : code.outerRanges) items *= evaluate(range, {}, symbols);
    if (items <= 0) return;
    std::vector<void*> args;
    for (void*& pointer : pointers) args.push_back(&pointer);
    for (long long& value : values) args.push_back(&value);
    device.launch(compiled, code.launchShape(symbols, device.multiprocessorCount()), args.data());
}

}  // namespace eng::inductor::cuda
