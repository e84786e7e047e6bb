// Reductions through the CPU code generator against the interpreter: every ReductionOp over float, half and
// integer dtypes, 2-D outer and reduction ranges, ties and NaN for argmax/argmin, empty-range identities, and a
// full reduction to a scalar.
#include <gtest/gtest.h>

#include "../sample_kernels.h"
#include "cpu_test_support.h"

namespace eng::inductor::cpu {
namespace {

using namespace testing;
using samples::c;
using samples::x;

/// out[x0, x1] = op over (r0, r1) in [3, s0] of value(in[...]) with outer range [4, 3], then a second pass that
/// stores in - result (or in == result for Bool) at every point, reading the finished reduction inside a loop.
/// With `column`, the outer range is [2, s0] and the reduction range [3, 5] with the reduced variables strided and
/// the last outer one contiguous (sum over dim 0): the generator reduces blocks of outer points side by side.
Kernel reduction(ReductionOp op, DType d, bool quantise = false, bool column = false) {
    Kernel k;
    k.name = std::string("red_") + reductionOpName(op) + "_" + std::string(dtypeName(d)) + (quantise ? "_ties" : "") + (column ? "_col" : "");
    k.symbols = {"s0"};
    const Index s0 = indexSymbol("s0");
    k.outerRanges = column ? std::vector<Index>{c(2), s0} : std::vector<Index>{c(4), c(3)};
    k.reductionRanges = column ? std::vector<Index>{c(3), c(5)} : std::vector<Index>{c(3), s0};
    const Index at = column ? ((x(2) * c(5) + x(3)) * c(2) + x(0)) * s0 + x(1) : ((x(0) * c(3) + x(1)) * c(3) + x(2)) * s0 + x(3);
    const Index outAt = column ? x(0) * s0 + x(1) : x(0) * c(3) + x(1);
    Reduction r{7, op, load(0, at, d)};
    if (quantise) r.value = unary(ElementOp::Floor, r.value);
    const DType result = r.resultDtype();
    k.buffers = {samples::buffer("in", d, true, false), samples::buffer("out", result, false, true), samples::buffer("delta", d, false, true)};
    KernelPass reduce{true, {r}, {}};
    KernelPass write{false, {}, {Store{1, outAt, reductionValue(7, result)}}};
    k.passes = {reduce, write};
    if (result == d && d != DType::Bool) {
        KernelPass second{true, {}, {Store{2, at, binary(ElementOp::Sub, load(0, at, d), reductionValue(7, d))}}};
        k.passes.push_back(second);
    }
    return k;
}

Tolerance reductionTolerance(const Kernel& k) {
    // Vectorised float sums and products reassociate: allow their rounding-order differences.
    if (k.name.find("sum") != std::string::npos) return {8, 2e-4};
    if (k.name.find("prod") != std::string::npos) return {64, 0};
    return {1, 0};
}

void checkReductions(const std::vector<Kernel>& kernels, const std::vector<int64_t>& rowLengths) {
    auto module = compileCpuKernels(kernels);
    for (size_t i = 0; i < kernels.size(); ++i) {
        const bool prod = kernels[i].name.find("prod") != std::string::npos;
        const bool sum = kernels[i].name.find("sum") != std::string::npos;  // no 1e4-scale values: keeps the tolerance tight
        for (int64_t s0 : rowLengths) {
            SymbolValues symbols{{"s0", s0}};
            Buffers in = randomBuffers(kernels[i], symbols, static_cast<uint32_t>(100 + i * 7 + s0), prod ? 1.5 : 4, !prod, false, !sum);
            for (int pieces : {1, 5})
                checkAgainstInterpreter(kernels[i], *module, i, symbols, in, reductionTolerance(kernels[i]),
                                        kernels[i].name + " s0=" + std::to_string(s0), pieces);
        }
    }
}

const DType kValueTypes[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int8,
                             DType::UInt8,   DType::Int16,   DType::Int32,   DType::Int64};

TEST(CpuCodegenReduce, EveryOpAndDtype) {
    std::vector<Kernel> kernels;
    for (ReductionOp op : {ReductionOp::Sum, ReductionOp::Prod, ReductionOp::Max, ReductionOp::Min, ReductionOp::ArgMax, ReductionOp::ArgMin})
        for (DType d : kValueTypes) kernels.push_back(reduction(op, d));
    for (ReductionOp op : {ReductionOp::Any, ReductionOp::All, ReductionOp::Sum, ReductionOp::Max, ReductionOp::ArgMax, ReductionOp::ArgMin})
        kernels.push_back(reduction(op, DType::Bool));
    checkReductions(kernels, {1, 2, 17, 37});
}

TEST(CpuCodegenReduce, ColumnReductionsInBlocks) {
    // Row lengths below, at and across the 128-point block, split mid-row by the pieces.
    std::vector<Kernel> kernels;
    for (ReductionOp op : {ReductionOp::Sum, ReductionOp::Prod, ReductionOp::Max, ReductionOp::Min, ReductionOp::ArgMax, ReductionOp::ArgMin})
        for (DType d : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int64})
            kernels.push_back(reduction(op, d, false, true));
    for (ReductionOp op : {ReductionOp::ArgMax, ReductionOp::ArgMin}) kernels.push_back(reduction(op, DType::Float32, true, true));
    for (ReductionOp op : {ReductionOp::Any, ReductionOp::All}) kernels.push_back(reduction(op, DType::Bool, false, true));
    checkReductions(kernels, {1, 37, 128, 300});
}

TEST(CpuCodegenReduce, ArgmaxTiesAndNaNPickTheFirst) {
    std::vector<Kernel> kernels;
    for (ReductionOp op : {ReductionOp::ArgMax, ReductionOp::ArgMin, ReductionOp::Max, ReductionOp::Min})
        for (DType d : {DType::Float32, DType::BFloat16}) kernels.push_back(reduction(op, d, true));
    checkReductions(kernels, {5, 40});
    // Rows made only of NaN, only of -inf, or of one repeated value.
    Kernel k = reduction(ReductionOp::ArgMax, DType::Float32);
    Kernel m = reduction(ReductionOp::ArgMin, DType::Float32);
    auto module = compileCpuKernels({k, m});
    SymbolValues symbols{{"s0", 10}};
    Buffers in = randomBuffers(k, symbols, 4);
    auto* data = reinterpret_cast<float*>(in.bytes[0].data());
    for (int j = 0; j < 30; ++j) {
        data[j] = std::numeric_limits<float>::quiet_NaN();
        data[30 + j] = -std::numeric_limits<float>::infinity();
        data[60 + j] = std::numeric_limits<float>::infinity();
        data[90 + j] = 2.5f;
    }
    data[150 + 17] = std::numeric_limits<float>::quiet_NaN();
    data[180 + 29] = std::numeric_limits<float>::quiet_NaN();
    checkAgainstInterpreter(k, *module, 0, symbols, in, {}, "argmax specials");
    checkAgainstInterpreter(m, *module, 1, symbols, in, {}, "argmin specials");
}

TEST(CpuCodegenReduce, EmptyRangesGiveIdentities) {
    std::vector<Kernel> kernels;
    for (ReductionOp op : {ReductionOp::Sum, ReductionOp::Prod})
        for (DType d : {DType::Float32, DType::BFloat16, DType::Int32, DType::UInt8}) kernels.push_back(reduction(op, d));
    for (ReductionOp op : {ReductionOp::Any, ReductionOp::All}) kernels.push_back(reduction(op, DType::Bool));
    checkReductions(kernels, {0});
}

TEST(CpuCodegenReduce, FullReductionToAScalar) {
    // No outer range: one outer point; the reduction range is flattened from [s0, 3].
    Kernel k;
    k.name = "sum_all";
    k.symbols = {"s0"};
    k.reductionRanges = {indexSymbol("s0"), c(3)};
    k.buffers = {samples::buffer("in", DType::Float32, true, false), samples::buffer("out", DType::Float32, false, true),
                 samples::buffer("idx", DType::Int64, false, true)};
    auto in = unary(ElementOp::Abs, load(0, x(0) * c(3) + x(1), DType::Float32));
    k.passes = {KernelPass{true, {Reduction{0, ReductionOp::Sum, in}, Reduction{1, ReductionOp::ArgMin, in}}, {}},
                KernelPass{false, {}, {Store{1, c(0), reductionValue(0, DType::Float32)}, Store{2, c(0), reductionValue(1, DType::Int64)}}}};
    auto module = compileCpuKernels({k});
    for (int64_t s0 : {1, 100, 1000}) {
        SymbolValues symbols{{"s0", s0}};
        Buffers data = randomBuffers(k, symbols, 3, 4, false);
        checkAgainstInterpreter(k, *module, 0, symbols, data, {16, 0}, "sum_all");
    }
}

TEST(CpuCodegenReduce, ZeroSizedOuterRangeWritesNothing) {
    Kernel k = samples::columnSumAndArgmax(5, 0);
    auto module = compileCpuKernels({k});
    EXPECT_EQ(outerPointCount(k, {}), 0);
    Buffers in = randomBuffers(k, {}, 1);
    checkAgainstInterpreter(k, *module, 0, {}, in, {}, "empty outer");
}

}  // namespace
}  // namespace eng::inductor::cpu
