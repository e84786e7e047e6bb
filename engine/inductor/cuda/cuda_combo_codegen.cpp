// Combo kernels on CUDA, as Inductor's combo kernels dispatch on the program id: the grid is the parts' grids one
// after another (each part gets ceil(numel / items per block) blocks), and a block runs the pointwise body of the
// part its index falls in, with its block index and grid size relative to that part; parts with one shared body
// (ir: comboSharedBodies) call it as a device function.
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

CudaKernelCode generateCombo(const Kernel& kernel, const CudaTuning& requested) {
    // Parts keep the flat or scalar forms: the store-vector form changes the items a block covers, which the
    // dispatch's block ranges are cut by.
    CudaTuning tuning = requested;
    tuning.storeVectors = false;
    CudaKernelCode code;
    code.strategy = CudaStrategy::PointwiseScalar;
    const ComboSharedBodies shared = comboSharedBodies(kernel);
    // Each shared body once, as a device function the dispatch calls with the part's buffers and extent: NVRTC
    // compiles an optimizer step's update once, not once per parameter. 32-bit indexing unless a part needs more.
    std::string functions;
    std::vector<CudaKernelCode> bodyCodes(shared.bodies.size());
    for (size_t i = 0; i < shared.bodies.size(); ++i) {
        bool index64 = false;
        for (size_t p = 0; p < kernel.parts.size(); ++p)
            if (shared.bodyOfPart[p] == static_cast<int>(i)) index64 = index64 || needsIndex64(kernel.parts[p].kernel);
        const std::string body = pointwiseBody(shared.bodies[i], tuning, bodyCodes[i], index64);
        std::string head = signature(shared.bodies[i], static_cast<int>(bodyCodes[i].blockX));
        head = "__device__ __noinline__ void " + head.substr(head.find(shared.bodies[i].name));
        head.insert(head.size() - 1, ", long long cwb_block, long long cwb_grid");
        functions += head + " {\n" + replaceAll(replaceAll(body, "blockIdx.x", "cwb_block"), "gridDim.x", "cwb_grid") + "}\n\n";
    }
    std::string body = "  // Combo kernel: each part runs on its own consecutive range of blocks.\n";
    body += "  long long cwb_block = blockIdx.x;\n";
    int counter = 0;
    for (size_t p = 0; p < kernel.parts.size(); ++p) {
        // The part's buffers under the combo's parameter names.
        Kernel part = kernel.parts[p].kernel;
        for (size_t j = 0; j < part.buffers.size(); ++j) part.buffers[j].name = bufferName(kernel, kernel.parts[p].buffers[j]);
        CudaKernelCode partCode;
        const int bodyIndex = shared.bodyOfPart[p];
        const std::string partBody = bodyIndex >= 0 ? std::string() : pointwiseBody(part, tuning, partCode);
        if (bodyIndex >= 0) partCode = bodyCodes[static_cast<size_t>(bodyIndex)];
        if (p == 0 || partCode.strategy == CudaStrategy::PointwiseVectorized) code.strategy = partCode.strategy;
        code.index64 = code.index64 || partCode.index64;
        code.assumesAligned = code.assumesAligned || partCode.assumesAligned;
        code.blockX = partCode.blockX;  // every part uses the tuning's block size
        code.comboParts.push_back(CudaKernelCode::ComboBlocks{product(part.outerRanges), partCode.itemsPerBlock});
        ExprEmitter sizes(kernel, "long long", "  ", counter);
        const std::string numel = sizes.index(product(part.outerRanges));
        body += fmt::format("  {{  // part {}: {}\n", p, part.name);
        body += fmt::format("    const long long cwb_blocks = ((long long)({}) + {}) / {};\n", numel, partCode.itemsPerBlock - 1, partCode.itemsPerBlock);
        body += "    if (cwb_block < cwb_blocks) {\n";
        if (bodyIndex >= 0) {
            std::string args;
            for (size_t j = 0; j < part.buffers.size(); ++j) args += part.buffers[j].name + ", ";
            body += fmt::format("      {}({}(long long)({}), cwb_block, cwb_blocks);\n", shared.bodies[static_cast<size_t>(bodyIndex)].name, args, numel);
        } else {
            body += "      const long long cwb_grid = cwb_blocks;\n";
            body += indented(replaceAll(replaceAll(partBody, "blockIdx.x", "cwb_block"), "gridDim.x", "cwb_grid"), "    ");
        }
        body += "      return;\n    }\n    cwb_block -= cwb_blocks;\n  }\n";
    }
    code.itemsPerBlock = 1;
    code.source = prelude() + "\n" + functions + irComment(kernel) + signature(kernel, static_cast<int>(code.blockX)) + " {\n" + body + "}\n";
    return code;
}

}  // namespace eng::inductor::cuda::detail
