// The reduction strategies. Every pass of a kernel runs in the same block for a group of outer indices, so
// later passes re-read rows from L2 and see the finished values of earlier ones. Row reductions (reduced
// variable contiguous): BX threads per row stride over it, warp shuffles then shared memory combine. Column
// reductions (outer variable contiguous): threads along x take consecutive outer indices for coalescing,
// BY threads along y split the reduction range and combine through shared memory.
#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

namespace {

using tensor::isFloating;

int pow2AtLeast(int64_t n) {
    int p = 1;
    while (p < n && p < (1 << 20)) p <<= 1;
    return p;
}


std::string extremeLiteral(DType dtype, bool largest) {
    if (isFloating(dtype)) return floatLiteral(largest ? INFINITY : -INFINITY, dtype == DType::Float64 ? DType::Float64 : DType::Float32);
    switch (dtype) {
        case DType::Bool: return largest ? "true" : "false";
        case DType::UInt8: return largest ? "(cwb_u8)255" : "(cwb_u8)0";
        case DType::Int8: return largest ? "(cwb_i8)127" : "(cwb_i8)-128";
        case DType::Int16: return largest ? "(cwb_i16)32767" : "(cwb_i16)-32768";
        case DType::Int32: return largest ? "2147483647" : "(-2147483647 - 1)";
        default: return largest ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
    }
}

}  // namespace

// Loads favour the row form when the innermost reduction variable has stride 1, the column form when the
// innermost outer variable has stride 1 and the reduction variable does not.
bool preferColumns(const Kernel& kernel) {
    const int r = kernel.outerVarCount() + static_cast<int>(kernel.reductionRanges.size()) - 1;
    const int x = kernel.outerVarCount() - 1;
    int rowVotes = 0, columnVotes = 0;
    auto vote = [&](const Index& index) {
        auto rStride = linearCoefficient(index, r);
        if (rStride == 0) return;  // constant over the reduction range: no say
        if (rStride == 1) ++rowVotes;
        else if (x >= 0 && linearCoefficient(index, x) == 1) ++columnVotes;
    };
    for (const KernelPass& pass : kernel.passes) {
        if (!pass.overReductionRange) continue;
        auto visit = [&](const Expr& e) {
            if (e.kind == Expr::Kind::Load) vote(e.index);
        };
        for (const Reduction& red : pass.reductions) forEachExpr(red.value, visit);
        for (const Store& s : pass.stores) {
            forEachExpr(s.value, visit);
            vote(s.index);
        }
    }
    return columnVotes > rowVotes;
}

Accumulator accumulatorFor(const Reduction& r, const std::string& acc, const std::string& v, const std::string& position) {
    const DType dtype = r.value->dtype;
    const std::string f = computeType(dtype);
    const bool isFloat = isFloating(dtype);
    auto rounded = [&](const std::string& text) {
        if (dtype == DType::Float16) return "cwb_round_half(" + text + ")";
        if (dtype == DType::BFloat16) return "cwb_round_bf16(" + text + ")";
        return text;
    };
    auto wrapped = [&](const std::string& text) {
        return dtype == DType::Bool ? "(" + text + " != 0)" : "(" + storageType(dtype) + ")" + text;
    };
    switch (r.op) {
        case ReductionOp::Sum:
        case ReductionOp::Prod: {
            const bool sum = r.op == ReductionOp::Sum;
            const char* symbol = sum ? "+" : "*";
            const char* combine = sum ? "cwb_sum()" : "cwb_prod()";
            // Integers wrap modulo 2^64 in any order, then to their dtype: the interpreter's per-step wrap.
            if (!isFloat) return {"cwb_u64", sum ? "0ULL" : "1ULL", combine, fmt::format("{0} = {0} {1} (cwb_u64)(cwb_i64){2};", acc, symbol, v), wrapped(acc)};
            return {f, floatLiteral(sum ? 0 : 1, dtype == DType::Float64 ? dtype : DType::Float32), combine,
                    fmt::format("{0} = {0} {1} {2};", acc, symbol, v), rounded(acc)};
        }
        case ReductionOp::Max:
        case ReductionOp::Min: {
            const bool max = r.op == ReductionOp::Max;
            return {f, extremeLiteral(dtype, !max), max ? "cwb_max()" : "cwb_min()",
                    fmt::format("{0} = {1}({0}, {2});", acc, max ? "cwb_maximum" : "cwb_minimum", v), acc};
        }
        case ReductionOp::ArgMax:
        case ReductionOp::ArgMin: {
            const std::string type = fmt::format("cwb_arg<{}>", f);
            const char* combine = r.op == ReductionOp::ArgMax ? "cwb_argmax()" : "cwb_argmin()";
            return {type, type + "{" + (isFloat ? floatLiteral(0, dtype == DType::Float64 ? dtype : DType::Float32) : std::string("0")) + ", -1}", combine,
                    fmt::format("{0} = {1}({0}, {2}{{{3}, (cwb_i64){4}}});", acc, combine, type, v, position), acc + ".index"};
        }
        case ReductionOp::Any: return {"bool", "false", "cwb_any()", fmt::format("{0} = {0} || {1};", acc, v), acc};
        case ReductionOp::All: return {"bool", "true", "cwb_all()", fmt::format("{0} = {0} && {1};", acc, v), acc};
    }
    return {};
}

namespace {

// A max(v) pass merged with the sum(exp(v - max)) pass after it: one (max, sum) accumulator fed v.
Accumulator onlineAccumulator(const Reduction& max, const std::string& acc, const std::string& v) {
    const std::string f = computeType(max.value->dtype);
    return {fmt::format("cwb_online<{}>", f), fmt::format("cwb_online<{}>{{{}, {}}}", f, extremeLiteral(max.value->dtype, false), floatLiteral(0, max.value->dtype)),
            "cwb_online_combine()", fmt::format("{0} = cwb_online_add({0}, {1});", acc, v), acc + ".max"};
}

bool passLoadsWritten(const KernelPass& pass, const std::vector<int>& written) {
    bool reads = false;
    auto visit = [&](const Expr& e) {
        if (e.kind == Expr::Kind::Load && std::find(written.begin(), written.end(), e.buffer) != written.end()) reads = true;
    };
    for (const Reduction& r : pass.reductions) forEachExpr(r.value, visit);
    for (const Store& s : pass.stores) forEachExpr(s.value, visit);
    return reads;
}

}  // namespace

CudaKernelCode generateReduction(const Kernel& kernel, const CudaTuning& requested) {
    CudaKernelCode code;
    code.index64 = needsIndex64(kernel);
    const std::string idx = code.index64 ? "long long" : "int";
    // Reductions over the outer range keep per-column partials of the rows a thread reads (cuda_outer_partials.cpp):
    // row strategy, rows re-read from L2 in each pass, and no online softmax.
    const bool outer = kernel.hasOuterRangeReductions();
    CudaTuning tuning = requested;
    if (outer) tuning.persistentRows = tuning.onlineSoftmax = false;
    const bool columns = !outer && preferColumns(kernel);
    code.strategy = columns ? CudaStrategy::ColumnReduction : CudaStrategy::RowReduction;
    const std::optional<int64_t> reduceCount = constantValue(product(kernel.reductionRanges));
    // 16 elements per thread measured best on the H100 (softmax over 8192 columns: 4 -> 1.71, 8 -> 1.72,
    // 16 -> 2.70, 32 -> 2.16, 64 -> 1.45 TB/s): fewer threads per row make the block-wide combines cheaper.
    const int perThread = tuning.elementsPerThread > 0 ? tuning.elementsPerThread : 16;
    int bx = 32, by = 1;
    if (!columns) {
        // Threads per row: enough that each handles about perThread elements; a warp for short rows.
        bx = reduceCount ? std::clamp(pow2AtLeast((*reduceCount + perThread - 1) / perThread), 32, 1024) : 512;
        const int threads = std::max(bx, tuning.blockSize > 0 ? pow2AtLeast(tuning.blockSize) : 256);
        by = std::clamp(threads / bx, 1, 32);
        if (auto outerCount = constantValue(product(kernel.outerRanges))) by = std::min(by, pow2AtLeast(std::max<int64_t>(*outerCount, 1)));
    } else {
        by = tuning.blockSize > 0 ? std::clamp(pow2AtLeast(tuning.blockSize) / 32, 1, 32)
                                  : (reduceCount ? std::clamp(pow2AtLeast((*reduceCount + perThread - 1) / perThread), 1, 32) : 16);
    }
    code.blockX = static_cast<unsigned>(bx);
    code.blockY = static_cast<unsigned>(by);
    code.itemsPerBlock = columns ? bx : by;
    const std::string lane = columns ? "threadIdx.x" : "threadIdx.y";      // which outer index a thread serves
    const std::string splitter = columns ? "threadIdx.y" : "threadIdx.x";  // where it starts in the reduction range
    const int step = columns ? by : bx;
    const bool needsScratch = columns ? by > 1 : bx > 32;

    int counter = 0;
    ExprEmitter sizes(kernel, idx, "  ", counter);
    std::string body;
    // Slots of up to 16 bytes: one per thread for column combines, one per warp for row combines.
    const int slots = columns ? bx * by : by * 32;
    if (needsScratch && kernel.reductionCount() > 0) {
        if (columns) {
            body += fmt::format("  // Cross-thread partials: {} slots of up to 16 bytes (a (value, position) pair).\n", slots);
            body += fmt::format("  alignas(16) __shared__ unsigned char scratch[{}];\n", slots * 16);
        } else {
            body += fmt::format("  // Cross-warp partials: two areas (reductions alternate between them) of {} slots of up to 16 bytes.\n", slots);
            body += fmt::format("  alignas(16) __shared__ unsigned char scratch[{}];\n", slots * 16 * 2);
        }
    }
    body += fmt::format("  const {} outer_count = {};\n", idx, sizes.index(product(kernel.outerRanges)));
    body += fmt::format("  const {} reduce_count = {};\n", idx, sizes.index(product(kernel.reductionRanges)));
    const size_t groupLoopAt = body.size();
    body += fmt::format("  for ({0} group = ({0})blockIdx.x * {1}; group < outer_count; group += ({0})gridDim.x * {1}) {{\n", idx,
                        code.itemsPerBlock);
    body += fmt::format("    const {} outer = group + {};\n", idx, lane);
    body += "    // Threads past the end still take part in the block's reductions (with identities).\n";
    body += "    const bool active = outer < outer_count;\n";
    ExprEmitter outerVars(kernel, idx, "    ", counter);
    body += decodeVars(kernel, kernel.outerRanges, 0, "outer", idx, "    ", outerVars);
    RowVectorPlan vectors = columns ? RowVectorPlan{} : planRowVectors(kernel, tuning);
    const int width = vectors.width;
    if (vectors.any()) code.vectorWidth = width;
    // Whether rows are aligned is known here when buffers are (CudaTuning::assumeAligned) and every row start
    // is a multiple of the vector width for all outer indices; then there is no run-time check and no copy of the
    // passes for unaligned rows.
    bool rowsAligned = false;
    if (vectors.any()) {
        code.assumesAligned = tuning.assumeAligned;
        std::string checks;
        if (!tuning.assumeAligned)
            for (int b : vectors.buffers)
                checks += fmt::format(" | (reinterpret_cast<unsigned long long>({}) & {})", bufferName(kernel, b),
                                      width * itemBytes(kernel.buffers[static_cast<size_t>(b)].dtype) - 1);
        std::vector<std::string> bases;
        for (const Index& base : vectors.bases) {
            std::string text = outerVars.index(base);
            if (dividesEveryTerm(width, base) || std::find(bases.begin(), bases.end(), text) != bases.end()) continue;
            bases.push_back(text);
        }
        for (const std::string& base : bases) checks += fmt::format(" | (({}) % {})", base, width);
        rowsAligned = checks.empty();
        if (outer && !rowsAligned) {
            // A thread must read the same columns of every row, so rows whose alignment varies take the scalar loop.
            vectors.passOk.assign(kernel.passes.size(), false);
            code.vectorWidth = 1;
            code.assumesAligned = false;
        } else if (rowsAligned) {
            body += fmt::format("    // Every row starts on a vector of {} elements (buffers are 16-byte aligned; the launcher checks).\n", width);
        } else {
            body += fmt::format("    // Rows move as vectors of {} elements when every row start and buffer is aligned to them.\n", width);
            body += fmt::format("    const bool row_vectors = ({}) == 0;\n", checks.substr(3));
        }
    }

    // Persistent rows: each thread keeps its `iters` vectors of a row in registers from the pass that first
    // loads them to the last pass that reads them (a store to the buffer in between forces a reload).
    const int64_t rowVectors = reduceCount ? *reduceCount / width : 0;
    const int iters = static_cast<int>((rowVectors + bx - 1) / bx);
    // Aligned rows of whole vector steps (every thread the same number): the steps unrolled with no bounds check, so
    // that each thread's loads of a pass are issued back to back instead of one per loop trip.
    const bool exactSteps = !columns && rowsAligned && reduceCount && *reduceCount % width == 0 && rowVectors % bx == 0 && iters <= 16;
    // Up to 4 vectors a thread always; with tuning.rowRegisters over 16, more while all the row arrays fit it
    // (rowArrays), and a length that is not whole vectors on rows known to be aligned: its tail is a scalar loop.
    const bool tail = reduceCount && *reduceCount % width != 0;
    const bool longRows = tuning.rowRegisters > 16;
    bool persistentOk = !columns && tuning.persistentRows && vectors.any() && reduceCount && iters >= 1 && (!tail || (rowsAligned && longRows)) &&
                        (iters <= 4 || (longRows && iters * 4 * rowArrays(kernel) <= tuning.rowRegisters));
    for (size_t p = 0; persistentOk && p < kernel.passes.size(); ++p)
        if (kernel.passes[p].overReductionRange && !vectors.passOk[p]) persistentOk = false;
    // Reductions over the outer range: per-column partials in registers when every pass that has them moves
    // aligned vectors over a row of constant length (no scalar tail), else in the piece's workspace row.
    OuterPartials partials;
    if (outer) {
        bool inRegisters = rowsAligned;
        for (size_t p = 0; p < kernel.passes.size(); ++p)
            if (partials.covers(kernel.passes[p]) && !vectors.passOk[p]) inRegisters = false;
        partials = planOuterPartials(kernel, idx, bx, by, width, inRegisters);
        if (!tuning.blockPartials) partials.combineInBlock = false;  // a piece a row of threads
        code.partialsInRegisters = partials.registers;
    }
    // Per pass, the pass merged into it as online softmax (-1: none).
    const std::vector<int> online = tuning.onlineSoftmax ? onlineSoftmaxPairs(kernel) : std::vector<int>(kernel.passes.size(), -1);
    // The lanes of one vector step (persistent or streaming): each lane's point with its loads read from `laneLoad`,
    // its stores gathered into one vector per buffer and written as one 16-byte access at `rowAddress`.
    auto emitLanes = [&](const std::string& indent, const KernelPass& pass, const auto& emitPoint, const auto& vecType,
                         const auto& rowAddress, const std::function<std::optional<std::string>(const Expr&)>& laneLoad) {
        const int rvar = kernel.outerVarCount();
        std::string out;
        for (const Store& st : pass.stores) out += fmt::format("{}{} {}_out;\n", indent, vecType(st.buffer), bufferName(kernel, st.buffer));
        // An online pair takes a vector's values at once: one max, then exps that do not wait on each other.
        const Reduction* onlineMax = online[static_cast<size_t>(&pass - kernel.passes.data())] >= 0 ? &pass.reductions[0] : nullptr;
        if (onlineMax) out += fmt::format("{}{} acc{}_lanes[{}];\n", indent, computeType(onlineMax->value->dtype), onlineMax->id, width);
        out += fmt::format("#pragma unroll\n{}for (int k = 0; k < {}; ++k) {{\n", indent, width);
        out += fmt::format("{}  const {} rindex = rbase + k;\n", indent, idx);
        ExprEmitter emitter(kernel, idx, indent + "  ", counter);
        emitter.loadOverride = laneLoad;
        out += decodeVars(kernel, kernel.reductionRanges, rvar, "rindex", idx, indent + "  ", emitter);
        emitPoint(emitter, [&](const Store& st) { return bufferName(kernel, st.buffer) + "_out.v[k]"; });
        out += emitter.code() + indent + "}\n";
        if (onlineMax) out += fmt::format("{0}acc{1} = cwb_online_add(acc{1}, acc{1}_lanes);\n", indent, onlineMax->id);
        for (const Store& st : pass.stores)
            out += fmt::format("{}*reinterpret_cast<{}*>({} + {}) = {}_out;\n", indent, vecType(st.buffer), bufferName(kernel, st.buffer),
                               rowAddress(st.index), bufferName(kernel, st.buffer));
        return out;
    };
    std::vector<std::pair<std::string, std::string>> cached;  // "buffer[index]" -> register array, valid in this branch
    auto persistentPass = [&](const KernelPass& pass, size_t, const auto& emitPoint, const auto& vecType) {
        std::string out;
        const int rvar = kernel.outerVarCount();
        ExprEmitter addresses(kernel, idx, "          ", counter);
        auto rowAddress = [&](const Index& index) {
            const Index base = substituteVar(index, rvar, indexConstant(0));
            return constantValue(base) == 0 ? std::string("rbase") : addresses.index(base) + " + rbase";
        };
        std::string loads;
        auto arrayOf = [&](const Expr& e) -> std::optional<std::string> {
            if (linearCoefficient(e.index, rvar) != 1) return std::nullopt;
            const std::string key = bufferName(kernel, e.buffer) + "[" + addresses.index(e.index) + "]";
            for (const auto& [k, name] : cached)
                if (k == key) return name;
            const std::string name = fmt::format("{}_row{}", bufferName(kernel, e.buffer), counter++);
            cached.emplace_back(key, name);
            out += fmt::format("    {} {}[{}];\n", vecType(e.buffer), name, iters);
            loads += fmt::format("          {}[it] = *reinterpret_cast<const {}*>({} + {});\n", name, vecType(e.buffer), bufferName(kernel, e.buffer),
                                 rowAddress(e.index));
            return name;
        };
        auto visit = [&](const Expr& e) {
            if (e.kind == Expr::Kind::Load) arrayOf(e);
        };
        for (const Reduction& r : pass.reductions) forEachExpr(r.value, visit);
        for (const Store& st : pass.stores) forEachExpr(st.value, visit);
        out += fmt::format("    if (active) {{\n#pragma unroll\n      for (int it = 0; it < {}; ++it) {{\n", iters);
        out += fmt::format("        const int rvec = threadIdx.x + it * {};\n", bx);
        out += exactSteps ? "        {\n" : fmt::format("        if (rvec < {}) {{\n", rowVectors);
        out += fmt::format("          const {0} rbase = ({0})rvec * {1};\n", idx, width);
        out += loads;
        out += emitLanes("          ", pass, emitPoint, vecType, rowAddress, [&](const Expr& e) -> std::optional<std::string> {
            if (auto name = arrayOf(e)) return "cwb_load(" + *name + "[it].v[k])";
            return std::nullopt;
        });
        out += "        }\n      }\n    }\n";
        for (const Store& st : pass.stores)
            std::erase_if(cached, [&](const auto& entry) { return entry.first.rfind(bufferName(kernel, st.buffer) + "[", 0) == 0; });
        return out;
    };
    // Every pass of one row group, as statements of the group loop; persistent: rows read once into registers.
    // Row reductions through scratch alternate between its two areas (cwb_reduce_x has no closing barrier).
    const int areaBytes = slots * 16;
    // With an odd number of combines a row group the areas swap roles from one group to the next (cwb_area), so the
    // group loop needs no closing barrier.
    int combines = 0;
    for (size_t p = 0; p < kernel.passes.size(); ++p)
        if (kernel.passes[p].overReductionRange && !(p > 0 && online[p - 1] == static_cast<int>(p)))
            combines += static_cast<int>(std::count_if(kernel.passes[p].reductions.begin(), kernel.passes[p].reductions.end(), [](const Reduction& r) { return !r.overOuterRange; }));
    const bool flipAreas = needsScratch && !columns && combines % 2 == 1;
    auto emitPasses = [&](bool persistent) {
    std::string out;
    std::vector<int> written;
    int rowReductions = 0;
    for (size_t p = 0; p < kernel.passes.size(); ++p) {
        const KernelPass& pass = kernel.passes[p];
        if (p > 0 && online[p - 1] == static_cast<int>(p)) continue;  // computed with the pass before it
        const Reduction* onlineSum = online[p] >= 0 ? &kernel.passes[static_cast<size_t>(online[p])].reductions[0] : nullptr;
        auto accumulator = [&](const Reduction& r, const std::string& v, const std::string& position) {
            const std::string acc = fmt::format("acc{}", r.id);
            return onlineSum ? onlineAccumulator(r, acc, v) : accumulatorFor(r, acc, v, position);
        };
        if (p > 0 && passLoadsWritten(pass, written)) out += "    __syncthreads();  // a later pass reads what other threads stored\n";
        for (const Store& s : pass.stores) written.push_back(s.buffer);
        std::string what;
        for (const Reduction& r : pass.reductions) what += fmt::format("{}red{} = {}", what.empty() ? "" : ", ", r.id, reductionOpName(r.op));
        for (const Store& s : pass.stores) what += fmt::format("{}store {}", what.empty() ? "" : ", ", kernel.buffers[static_cast<size_t>(s.buffer)].name);
        if (onlineSum) what += fmt::format(", red{} = sum of exp(x - red{}) in the same read (online softmax)", onlineSum->id, pass.reductions[0].id);
        if (!pass.overReductionRange) {
            out += fmt::format("    // pass {}, once per outer index: {}\n", p, what);
            out += fmt::format("    if (active && {} == 0) {{\n", splitter);
            ExprEmitter emitter(kernel, idx, "      ", counter);
            for (size_t i = 0; i < pass.stores.size(); ++i) {
                emitter.store(pass.stores[i]);
                if (laterStoreReads(pass.stores, i, {})) emitter.forgetValues();
            }
            out += emitter.code() + "    }\n";
            continue;
        }
        out += fmt::format("    // pass {} over the reduction range: {}\n", p, what);
        std::vector<Accumulator> accs;
        for (const Reduction& r : pass.reductions) {
            accs.push_back(accumulator(r, "", ""));
            if (!r.overOuterRange) out += fmt::format("    {} acc{} = {};\n", accs.back().type, r.id, accs.back().identity);
        }
        // The interpreter runs a point's stores before evaluating its reductions.
        auto emitPoint = [&](ExprEmitter& emitter, const std::function<std::string(const Store&)>& target) {
            for (size_t i = 0; i < pass.stores.size(); ++i) {
                emitter.store(pass.stores[i], target ? target(pass.stores[i]) : std::string());
                if (laterStoreReads(pass.stores, i, pass.reductions)) emitter.forgetValues();
            }
            for (const Reduction& r : pass.reductions) {
                const std::string v = emitter.value(r.value);
                if (onlineSum && target) emitter.line(fmt::format("acc{}_lanes[k] = {};", r.id, v));  // vector lanes
                else if (r.overOuterRange) emitter.line(accumulatorFor(r, partials.slot(r), v, "").update);
                else emitter.line(accumulator(r, v, "rindex").update);
            }
        };
        const int rvar = kernel.outerVarCount();
        auto vecType = [&](int b) { return fmt::format("cwb_vec<{}, {}>", storageType(kernel.buffers[static_cast<size_t>(b)].dtype), width); };
        if (persistent) {
            out += persistentPass(pass, p, emitPoint, vecType);
            if (*reduceCount % width != 0) {  // the row's last elements, past its whole vectors, from memory
                out += fmt::format("    if (active) {{\n      for ({0} rindex = {1} + {2}; rindex < reduce_count; rindex += {3}) {{\n", idx,
                                   rowVectors * width, splitter, bx);
                ExprEmitter emitter(kernel, idx, "        ", counter);
                out += decodeVars(kernel, kernel.reductionRanges, kernel.outerVarCount(), "rindex", idx, "        ", emitter);
                emitPoint(emitter, nullptr);
                out += emitter.code() + "      }\n    }\n";
            }
        } else {
            out += "    if (active) {\n";
            std::string scalarStart = splitter;
            const bool vectorPass = p < vectors.passOk.size() && vectors.passOk[p];
            // A pass that only reads rows not known to be aligned, its loads along the row at one base: vectors from
            // the aligned one at or before the row's start, lanes outside the row doing nothing (CudaTuning::shiftedRows),
            // instead of the scalar loop for every misaligned row. A pass that stores keeps its vector stores on
            // aligned rows and the scalar loop on the others.
            const std::optional<Index> shiftBase = vectorPass && !rowsAligned && pass.stores.empty() && tuning.assumeAligned && tuning.shiftedRows &&
                                                           online[p] < 0 ? commonRowBase(kernel, pass) : std::nullopt;
            if (vectorPass) {
                ExprEmitter bases(kernel, idx, "      ", counter);
                out += shiftBase ? fmt::format("      const {0} shift = ({1}) % {2};\n      const {0} rvectors = (reduce_count + shift + {3}) / {2};\n", idx,
                                               bases.index(*shiftBase), width, width - 1)
                       : rowsAligned ? fmt::format("      const {} rvectors = reduce_count / {};\n", idx, width)
                                   : fmt::format("      const {} rvectors = row_vectors ? reduce_count / {} : 0;\n", idx, width);
                // Column partials in registers: the thread's vector steps unrolled, so that each names its registers.
                const bool unrolled = exactSteps || (partials.registers && partials.covers(pass));
                if (unrolled)
                    out += fmt::format("#pragma unroll\n      for (int it = 0; it < {0}; ++it) {{\n        const {1} rvec = {2} + it * {3};\n        {4}{{\n",
                                       exactSteps ? iters : partials.iters, idx, splitter, step, exactSteps ? "" : "if (rvec < rvectors) ");
                else out += fmt::format("      for ({0} rvec = {1}; rvec < rvectors; rvec += {2}) {{\n", idx, splitter, step);
                out += fmt::format("        const {} rbase = rvec * {}{};\n", idx, width, shiftBase ? " - shift" : "");
                ExprEmitter addresses(kernel, idx, "        ", counter);
                // base + rbase: where the vector of an access index (base + r0) starts.
                auto rowAddress = [&](const Index& index) {
                    const Index base = substituteVar(index, rvar, indexConstant(0));
                    return constantValue(base) == 0 ? std::string("rbase") : addresses.index(base) + " + rbase";
                };
                // One vector per distinct (buffer, index) loaded along the row.
                std::vector<std::pair<std::string, std::string>> loaded;  // "buffer[index]" -> vector name
                auto vectorOf = [&](const Expr& e) -> std::optional<std::string> {
                    if (linearCoefficient(e.index, rvar) != 1) return std::nullopt;
                    const std::string key = bufferName(kernel, e.buffer) + "[" + addresses.index(e.index) + "]";
                    for (const auto& [k, name] : loaded)
                        if (k == key) return name;
                    const std::string name = fmt::format("{}_v{}", bufferName(kernel, e.buffer), loaded.size());
                    loaded.emplace_back(key, name);
                    out += fmt::format("        const {0} {1} = *reinterpret_cast<const {0}*>({2} + {3});\n", vecType(e.buffer), name,
                                        bufferName(kernel, e.buffer), rowAddress(e.index));
                    return name;
                };
                auto visit = [&](const Expr& e) {
                    if (e.kind == Expr::Kind::Load) vectorOf(e);
                };
                for (const Reduction& r : pass.reductions) forEachExpr(r.value, visit);
                for (const Store& st : pass.stores) forEachExpr(st.value, visit);
                auto laneLoad = [&](const Expr& e) -> std::optional<std::string> {
                    if (auto name = vectorOf(e)) return "cwb_load(" + *name + ".v[k])";
                    return std::nullopt;
                };
                if (shiftBase) {
                    out += fmt::format("#pragma unroll\n        for (int k = 0; k < {}; ++k) {{\n          const {} rindex = rbase + k;\n"
                                       "          if (rindex >= 0 && rindex < reduce_count) {{\n", width, idx);
                    ExprEmitter emitter(kernel, idx, "            ", counter);
                    emitter.loadOverride = laneLoad;
                    out += decodeVars(kernel, kernel.reductionRanges, rvar, "rindex", idx, "            ", emitter);
                    emitPoint(emitter, nullptr);
                    out += emitter.code() + "          }\n        }\n";
                } else {
                    out += emitLanes("        ", pass, emitPoint, vecType, rowAddress, laneLoad);
                }
                out += unrolled ? "        }\n      }\n" : "      }\n";
                scalarStart = fmt::format("rvectors * {} + {}", width, splitter);
            }
            // Aligned rows whose length is a multiple of the width leave no scalar tail.
            if (!shiftBase && !(vectorPass && rowsAligned && reduceCount && *reduceCount % width == 0)) {
                out += fmt::format("      for ({0} rindex = {1}; rindex < reduce_count; rindex += {2}) {{\n", idx, scalarStart, step);
                ExprEmitter emitter(kernel, idx, "        ", counter);
                out += decodeVars(kernel, kernel.reductionRanges, kernel.outerVarCount(), "rindex", idx, "        ", emitter);
                emitPoint(emitter, nullptr);
                out += emitter.code() + "      }\n";
            }
            out += "    }\n";
        }
        for (size_t k = 0; k < pass.reductions.size(); ++k) {
            const Reduction& r = pass.reductions[k];
            if (r.overOuterRange) continue;  // combined across pieces by the finish entry
            const Accumulator& a = accs[k];
            const std::string combined = columns ? fmt::format("cwb_reduce_y<{}, {}>(acc{}, {}, reinterpret_cast<{}*>(scratch))", bx, by, r.id, a.combine, a.type)
                                                 : fmt::format("cwb_reduce_x<{}>(acc{}, {}, reinterpret_cast<{}*>(scratch{}))", bx, r.id, a.combine, a.type,
                                                               flipAreas ? " + cwb_area" : rowReductions % 2 == 0 ? "" : fmt::format(" + {}", areaBytes));
            ++rowReductions;
            if (needsScratch) out += fmt::format("    acc{} = {};\n{}", r.id, combined, flipAreas ? fmt::format("    cwb_area ^= {};\n", areaBytes) : "");
            else if (!columns) out += fmt::format("    acc{} = cwb_reduce_x<{}>(acc{}, {}, ({}*)nullptr);\n", r.id, bx, r.id, a.combine, a.type);
            out += fmt::format("    const {} red{} = {};\n", computeType(r.resultDtype()), r.id, a.finish);
            if (onlineSum) out += fmt::format("    const {} red{} = cwb_online_sum(acc{}, reduce_count);\n", computeType(onlineSum->resultDtype()), onlineSum->id, r.id);
        }
    }
    return out;
    };
    if (persistentOk) {
        code.persistent = true;
        auto indented = [](const std::string& text) {
            std::string result, line;
            std::istringstream lines(text);
            while (std::getline(lines, line)) result += (line.rfind("#", 0) == 0 ? "" : "  ") + line + "\n";
            return result;
        };
        if (rowsAligned) {
            body += "    // Rows stay in registers across passes.\n" + emitPasses(true);
        } else {
            body += "    // Rows stay in registers across passes when every row of the block is aligned; otherwise rows are re-read.\n";
            const std::string inRegisters = indented(emitPasses(true));
            const std::string reread = indented(emitPasses(false));
            body += "    if (__syncthreads_and(row_vectors || !active)) {\n" + inRegisters + "    } else {\n" + reread + "    }\n";
        }
    } else {
        body += emitPasses(false);
    }
    body += "  }\n";
    if (flipAreas) body.insert(groupLoopAt, fmt::format("  int cwb_area = 0;  // which scratch area (0 or {}) the next combine uses\n", areaBytes));
    std::string parameters, finish;
    if (outer) {
        body.insert(groupLoopAt, partials.declarations(kernel));
        body += partials.writeBack();
        parameters = outerPartialsParameters();
        code.outerPartials = static_cast<int>(partials.reductions.size());
        code.piecePerBlock = partials.combineInBlock;
        if (tuning.partialThreadsPerSm > 0) code.partialThreadsPerSm = tuning.partialThreadsPerSm;
        finish = outerPartialsFinish(kernel, partials, code);
    }

    code.source = prelude() + "\n" + irComment(kernel) +
                  fmt::format("// strategy: {} with blocks of {} x {} threads ({} per {}), {}-bit indexing\n", strategyName(code.strategy), bx,
                              by, columns ? by : bx, columns ? "column" : "row", code.index64 ? 64 : 32) +
                  signature(kernel, bx * by).insert(signature(kernel, bx * by).size() - 1, parameters) + " {\n" + body + "}\n" + finish;
    return code;
}

}  // namespace eng::inductor::cuda::detail
