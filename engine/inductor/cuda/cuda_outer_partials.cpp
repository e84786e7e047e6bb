// Reductions over a row kernel's outer range (B6's column sums beside its row sums, one read of the input): the
// per-piece partials (registers or the piece's workspace row) and the `<name>_finish` entry point that combines
// the pieces in order and runs the kernel's finalStores.
#include <algorithm>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

namespace {

// Every region of the workspace holds pieces x columns accumulators of up to 8 bytes.
constexpr int kSlotBytes = 8;
// Shared memory for combining a block's rows of threads (one vector step of one reduction at a time); beside the
// row combines' scratch (at most 16 KB) it stays under the 48 KB of static shared memory.
constexpr int kCombineBytes = 24576;

int accumulatorBytes(const std::string& type) {
    if (type == "float" || type == "int" || type == "unsigned") return 4;
    if (type == "double" || type == "cwb_u64" || type == "cwb_i64" || type == "long long" || type == "bool") return 8;
    return 16;  // a (value, position) pair
}

std::string regionPointer(size_t j, const std::string& type) {
    return fmt::format("reinterpret_cast<{}*>(cwb_workspace + {}LL * cwb_pieces * reduce_count * {})", type, j, kSlotBytes);
}

}  // namespace

bool OuterPartials::covers(const KernelPass& pass) const {
    return std::any_of(pass.reductions.begin(), pass.reductions.end(), [](const Reduction& r) { return r.overOuterRange; });
}

OuterPartials planOuterPartials(const Kernel& kernel, const std::string& indexType, int bx, int by, int width, bool registers) {
    OuterPartials plan;
    for (const KernelPass& pass : kernel.passes)
        for (const Reduction& r : pass.reductions)
            if (r.overOuterRange) plan.reductions.push_back(&r);
    plan.idx = indexType;
    plan.bx = bx;
    plan.by = by;
    plan.width = width;
    const std::optional<int64_t> count = constantValue(product(kernel.reductionRanges));
    if (registers && count && *count % width == 0) {
        const int64_t vectors = *count / width;
        plan.iters = static_cast<int>((vectors + bx - 1) / bx);
        plan.exact = vectors % bx == 0;
        // At most 64 registers of partials a thread (a double or a 64-bit integer takes two).
        int64_t words = 0;
        for (const Reduction* r : plan.reductions)
            words += int64_t{plan.iters} * width * (tensor::itemSize(r->value->dtype) > 4 || !tensor::isFloating(r->value->dtype) ? 2 : 1);
        plan.registers = plan.iters >= 1 && words <= 64;
        // Several rows of threads a block: combined in the block, the pieces' partials (written, then read by the
        // finish) shrink by the rows of threads a block (GPT-2's layer-norm backward, rows of 768: 4).
        int bytes = 0;
        for (const Reduction* r : plan.reductions) bytes = std::max(bytes, accumulatorBytes(accumulatorFor(*r, "", "", "").type));
        plan.combineInBlock = plan.registers && by > 1 && int64_t{bx} * by * width * bytes <= kCombineBytes;
    }
    return plan;
}

const char* outerPartialsParameters() { return ", unsigned char* __restrict__ cwb_workspace, int cwb_pieces"; }

std::string OuterPartials::declarations(const Kernel& kernel) const {
    std::string out = fmt::format("  // Column partials of this piece (block row of threads): the reductions over the outer range.\n"
                                  "  const int cwb_piece = {};\n",
                                  combineInBlock ? std::string("blockIdx.x") : fmt::format("blockIdx.x * {} + threadIdx.y", by));
    for (size_t j = 0; j < reductions.size(); ++j) {
        const Reduction& r = *reductions[j];
        const Accumulator a = accumulatorFor(r, "", "", "");
        out += fmt::format("  {0}* const cwb_part{1} = {2} + (long long)cwb_piece * reduce_count;\n", a.type, r.id, regionPointer(j, a.type));
        if (registers) {
            out += fmt::format("  {0} cwb_col{1}[{2}];\n#pragma unroll\n  for (int i = 0; i < {2}; ++i) cwb_col{1}[i] = {3};\n", a.type, r.id,
                               iters * width, a.identity);
        } else {
            out += fmt::format("  for ({0} c = threadIdx.x; c < reduce_count; c += {1}) cwb_part{2}[c] = {3};\n", idx, bx, r.id, a.identity);
        }
    }
    (void)kernel;
    // Threads own other columns while reading rows than while setting them (vectors of `width` columns).
    if (!registers) out += "  __syncthreads();\n";
    return out;
}

std::string OuterPartials::slot(const Reduction& r) const {
    return registers ? fmt::format("cwb_col{}[it * {} + k]", r.id, width) : fmt::format("cwb_part{}[rindex]", r.id);
}

// The block's rows of threads combine their partials of each vector step in shared memory, row 0 first, then
// row 1, ... (a fixed order: the same bits every call), and the block's threads write the step's columns.
std::string OuterPartials::combineInBlockWriteBack() const {
    const int columns = bx * width;  // a vector step's columns
    int bytes = 0;
    for (const Reduction* r : reductions) bytes = std::max(bytes, accumulatorBytes(accumulatorFor(*r, "", "", "").type));
    std::string out = fmt::format("  // The block's {} rows of threads combine their column partials in shared memory in row order; the block\n"
                                  "  // writes one piece ({} x fewer partials to write and for the finish to read).\n"
                                  "  alignas(16) __shared__ unsigned char cwb_combine[{}];\n#pragma unroll\n  for (int it = 0; it < {}; ++it) {{\n",
                                  by, by, by * columns * bytes, iters);
    for (const Reduction* r : reductions) {
        const Accumulator a = accumulatorFor(*r, "", "", "");
        out += fmt::format("    {{\n      {0}* const cwb_sh = reinterpret_cast<{0}*>(cwb_combine);\n"
                           "      __syncthreads();  // the previous combine's reads are done\n"
                           "#pragma unroll\n      for (int k = 0; k < {1}; ++k) cwb_sh[threadIdx.y * {2} + threadIdx.x * {1} + k] = cwb_col{3}[it * {1} + k];\n"
                           "      __syncthreads();\n"
                           "      for (int c = threadIdx.y * {4} + threadIdx.x; c < {2}; c += {5}) {{\n"
                           "        const {6} col = ({6})it * {2} + c;\n"
                           "        {7}{{\n          {0} acc = cwb_sh[c];\n"
                           "#pragma unroll\n          for (int y = 1; y < {8}; ++y) acc = {9}(acc, cwb_sh[y * {2} + c]);\n"
                           "          cwb_part{3}[col] = acc;\n        }}\n      }}\n    }}\n",
                           a.type, width, columns, r->id, bx, bx * by, idx, exact ? "" : "if (col < reduce_count) ", by, a.combine);
    }
    return out + "  }\n";
}

std::string OuterPartials::writeBack() const {
    if (!registers) return {};
    if (combineInBlock) return combineInBlockWriteBack();
    std::string out = fmt::format("  // This piece's column partials to its workspace row, 16 bytes a store where the type allows.\n"
                                  "#pragma unroll\n  for (int it = 0; it < {}; ++it) {{\n    const {} rvec = threadIdx.x + it * {};\n    {}{{\n",
                                  iters, idx, bx, exact ? "" : fmt::format("if (rvec < reduce_count / {}) ", width));
    for (const Reduction* r : reductions) {
        const Accumulator a = accumulatorFor(*r, "", "", "");
        const int bytes = a.type == "float" ? 4 : a.type == "double" || a.type == "cwb_u64" ? 8 : 0;
        const int lanes = bytes > 0 && 16 / bytes <= width ? 16 / bytes : 1;
        for (int k = 0; k < width; k += lanes) {
            if (lanes == 1) {
                out += fmt::format("      cwb_part{0}[rvec * {1} + {2}] = cwb_col{0}[it * {1} + {2}];\n", r->id, width, k);
                continue;
            }
            std::string values;
            for (int lane = 0; lane < lanes; ++lane) values += fmt::format("{}cwb_col{}[it * {} + {}]", lane ? ", " : "", r->id, width, k + lane);
            out += fmt::format("      *reinterpret_cast<cwb_vec<{0}, {1}>*>(cwb_part{2} + rvec * {3} + {4}) = cwb_vec<{0}, {1}>{{{{{5}}}}};\n", a.type, lanes, r->id,
                               width, k, values);
        }
    }
    return out + "    }\n  }\n";
}

std::string outerPartialsFinish(const Kernel& kernel, const OuterPartials& partials, CudaKernelCode& code) {
    const unsigned fx = code.finishBlockX, fy = code.finishBlockY;
    const std::string& idx = partials.idx;
    int counter = 0;
    ExprEmitter sizes(kernel, idx, "  ", counter);
    std::string body;
    body += fmt::format("  const {} reduce_count = {};\n", idx, sizes.index(product(kernel.reductionRanges)));
    body += fmt::format("  const {0} rindex = ({0})blockIdx.x * {1} + threadIdx.x;\n", idx, fx);
    body += "  const bool active = rindex < reduce_count;\n";
    body += fmt::format("  // Thread row y combines pieces [y * chunk, (y + 1) * chunk) in order, then row 0 the {} rows in order.\n", fy);
    body += fmt::format("  const int chunk = (cwb_pieces + {0}) / {1};\n", fy - 1, fy);
    body += "  const int first = threadIdx.y * chunk, last = first + chunk < cwb_pieces ? first + chunk : cwb_pieces;\n";
    std::string finish;
    for (size_t j = 0; j < partials.reductions.size(); ++j) {
        const Reduction& r = *partials.reductions[j];
        const std::string acc = fmt::format("acc{}", r.id);
        const Accumulator a = accumulatorFor(r, acc, "", "");
        body += fmt::format("  __shared__ {} rows{}[{}][{}];\n", a.type, r.id, fy, fx);
        body += fmt::format("  {} {} = {};\n", a.type, acc, a.identity);
        body += fmt::format("  if (active) {{\n    const {}* const part = {};\n", a.type, regionPointer(j, a.type));
        body += fmt::format("#pragma unroll 4\n    for (int p = first; p < last; ++p) {0} = {1}({0}, part[(long long)p * reduce_count + rindex]);\n  }}\n", acc, a.combine);
        body += fmt::format("  rows{}[threadIdx.y][threadIdx.x] = {};\n", r.id, acc);
        finish += fmt::format("  {0} = rows{1}[0][threadIdx.x];\n  for (int y = 1; y < {2}; ++y) {0} = {3}({0}, rows{1}[y][threadIdx.x]);\n", acc, r.id, fy, a.combine);
        finish += fmt::format("  const {} red{} = {};\n", computeType(r.resultDtype()), r.id, a.finish);
    }
    body += "  __syncthreads();\n  if (!active || threadIdx.y != 0) return;\n" + finish;
    ExprEmitter emitter(kernel, idx, "  ", counter);
    body += decodeVars(kernel, kernel.reductionRanges, kernel.outerVarCount(), "rindex", idx, "  ", emitter);
    for (size_t i = 0; i < kernel.finalStores.size(); ++i) {
        emitter.store(kernel.finalStores[i]);
        if (laterStoreReads(kernel.finalStores, i, {})) emitter.forgetValues();
    }
    body += emitter.code();
    std::string head = signature(kernel, static_cast<int>(fx * fy));
    const std::string entry = kernel.name + "(";
    head.replace(head.find(entry), entry.size(), kernel.name + "_finish(");
    head.insert(head.size() - 1, outerPartialsParameters());
    return fmt::format("\n// Combines the pieces' column partials in piece order and writes what is computed from the results.\n{} {{\n{}}}\n", head,
                       body);
}

}  // namespace eng::inductor::cuda::detail
