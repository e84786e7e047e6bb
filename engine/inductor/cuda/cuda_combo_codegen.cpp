// Combo kernels on CUDA, as Inductor's combo kernels dispatch on the program id: the grid is the parts' grids one
// after another (each part gets ceil(numel / items per block) blocks), and a block runs the pointwise body of the
// part its index falls in, with its block index and grid size relative to that part.
#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

namespace {

std::string replaceAll(std::string text, const std::string& what, const std::string& with) {
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) text.replace(at, what.size(), with);
    return text;
}

std::string indented(const std::string& text, const std::string& indent) {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        out += (line.empty() || line[0] == '#' ? "" : indent) + line + "\n";
        start = end + 1;
    }
    return out;
}

}  // namespace

CudaKernelCode generateCombo(const Kernel& kernel, const CudaTuning& tuning) {
    CudaKernelCode code;
    code.strategy = CudaStrategy::PointwiseScalar;
    std::string body = "  // Combo kernel: each part runs on its own consecutive range of blocks.\n";
    body += "  long long cwb_block = blockIdx.x;\n";
    int counter = 0;
    for (size_t p = 0; p < kernel.parts.size(); ++p) {
        // The part's buffers under the combo's parameter names.
        Kernel part = kernel.parts[p].kernel;
        for (size_t j = 0; j < part.buffers.size(); ++j) part.buffers[j].name = bufferName(kernel, kernel.parts[p].buffers[j]);
        CudaKernelCode partCode;
        partCode.index64 = needsIndex64(part);
        const std::string partBody = pointwiseBody(part, tuning, partCode);
        if (p == 0 || partCode.strategy == CudaStrategy::PointwiseVectorized) code.strategy = partCode.strategy;
        code.index64 = code.index64 || partCode.index64;
        code.assumesAligned = code.assumesAligned || partCode.assumesAligned;
        code.blockX = partCode.blockX;  // every part uses the tuning's block size
        code.comboParts.push_back(CudaKernelCode::ComboBlocks{product(part.outerRanges), partCode.itemsPerBlock});
        ExprEmitter sizes(kernel, "long long", "  ", counter);
        body += fmt::format("  {{  // part {}: {}\n", p, part.name);
        body += fmt::format("    const long long cwb_blocks = ((long long)({}) + {}) / {};\n", sizes.index(product(part.outerRanges)),
                            partCode.itemsPerBlock - 1, partCode.itemsPerBlock);
        body += "    if (cwb_block < cwb_blocks) {\n      const long long cwb_grid = cwb_blocks;\n";
        body += indented(replaceAll(replaceAll(partBody, "blockIdx.x", "cwb_block"), "gridDim.x", "cwb_grid"), "    ");
        body += "      return;\n    }\n    cwb_block -= cwb_blocks;\n  }\n";
    }
    code.itemsPerBlock = 1;
    code.source = prelude() + "\n" + irComment(kernel) + signature(kernel, static_cast<int>(code.blockX)) + " {\n" + body + "}\n";
    return code;
}

}  // namespace eng::inductor::cuda::detail
