// The kernel bytecode (the GPU interpreter tier's program) against the reference interpreter on the host: the same
// loop the device runs, over the sample kernels, every element op on every dtype it takes, random expression DAGs
// with shared subexpressions, masks and casts, and row and outer-range reductions.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cpu_test_support.h"
#include "../sample_kernels.h"
#include "inductor/ir/kernel_bytecode_encoder.h"

namespace eng::inductor {
namespace {

using cpu::testing::Buffers;
using cpu::testing::Tolerance;
using samples::c;
using samples::x;

// Runs `k` through interpretKernel and through its bytecode on copies of the same random buffers; equal bits
// expected (tolerance for pieces > 1 or groups of threads a row, whose sums combine per piece and thread). False when
// the reference raises (an integer division by zero, max of an empty range), where the bytecode's defined value is not
// compared. `large` draws 1% of the floats 10^4 times larger.
bool checkKernel(const Kernel& k, const SymbolValues& symbols, uint32_t seed, int64_t pieces = 1, Tolerance tol = {}, int64_t groupSize = 1,
                 bool large = true) {
    std::string why;
    auto program = encodeKernelBytecode(k, &why);
    EXPECT_TRUE(program) << k.name << ": " << why;
    if (!program) return false;
    Buffers inputs = cpu::testing::randomBuffers(k, symbols, seed, 4, true, true, large);
    Buffers expected = inputs, actual = inputs;
    try {
        interpretKernel(k, expected.pointers(), symbols);
    } catch (const std::runtime_error&) {
        return false;
    }
    runBytecodeOnHost(k, *program, actual.pointers(), symbols, pieces, groupSize);
    cpu::testing::expectSame(k, expected, actual, tol, k.name + " (pieces " + std::to_string(pieces) + ", group " + std::to_string(groupSize) + ")");
    return true;
}

TEST(KernelBytecode, SampleKernelsGiveTheInterpretersBits) {
    for (const Kernel& k : samples::all()) {
        if (k.isCombo()) {
            std::string why;
            EXPECT_FALSE(encodeKernelBytecode(k, &why));
            EXPECT_EQ(why, "the bytecode holds no combo kernels");
            continue;
        }
        for (int64_t s0 : {1, 8, 45}) EXPECT_TRUE(checkKernel(k, {{"s0", s0}}, 7)) << k.name;
    }
}

Kernel pointwise(const std::string& name, const std::vector<DType>& inputs, const std::function<ExprPtr(std::vector<ExprPtr>)>& body, int64_t n) {
    Kernel k;
    k.name = name;
    std::vector<ExprPtr> loads;
    for (size_t i = 0; i < inputs.size(); ++i) {
        k.buffers.push_back(samples::buffer("in" + std::to_string(i), inputs[i], true, false));
        loads.push_back(load(static_cast<int>(i), x(0), inputs[i]));
    }
    ExprPtr value = body(loads);
    k.buffers.push_back(samples::buffer("out", value->dtype, false, true));
    k.outerRanges = {c(n)};
    k.passes = {KernelPass{false, {}, {Store{static_cast<int>(inputs.size()), x(0), value}}}};
    return k;
}

TEST(KernelBytecode, EveryElementOpOnEveryDtypeItTakes) {
    const DType dtypes[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int64, DType::Int32, DType::Int8, DType::UInt8, DType::Bool};
    int checked = 0;
    for (const auto& [name, op] : elementOpsByName()) {
        if (elementOpName(op) != name) continue;  // aliases
        const ElementTyping typing = elementTyping(op);
        const bool keepsIntegers = op == ElementOp::Floor || op == ElementOp::Ceil || op == ElementOp::Trunc;
        for (DType d : dtypes) {
            const bool isFloat = tensor::isFloating(d);
            if (isFloat && typing == ElementTyping::Integral) continue;
            if (!isFloat && (typing == ElementTyping::Floating || (typing == ElementTyping::Promote && !keepsIntegers))) continue;
            if (!isFloat && op == ElementOp::Pow) continue;  // exponents of 10^10 (the random integers) loop that often
            // 16-bit floats compute in float32 and round after the op, as lowering writes them.
            const bool reduced = tensor::isReducedFloat(d);
            const DType math = reduced ? DType::Float32 : d;
            auto lift = [&](const ExprPtr& e) { return reduced ? cast(e, math) : e; };
            auto lower = [&](const ExprPtr& e) { return reduced && e->dtype == math ? cast(e, d) : e; };
            const bool binaryOp = !isUnary(op);
            Kernel k = pointwise(std::string(name) + "_" + std::string(tensor::dtypeName(d)), binaryOp ? std::vector<DType>{d, d} : std::vector<DType>{d},
                                 [&](std::vector<ExprPtr> in) {
                                     return lower(binaryOp ? binary(op, lift(in[0]), lift(in[1])) : unary(op, lift(in[0])));
                                 },
                                 97);
            checked += checkKernel(k, {}, 11) ? 1 : 0;
        }
    }
    EXPECT_GT(checked, 150);
}

// A random float32 expression over loads of three inputs at `at`, at // 3 and (at * 7) % 13, constants and index
// values, reusing earlier nodes (shared subexpressions), with where(), casts through 16-bit floats and integers,
// and comparisons.
ExprPtr randomExpr(std::mt19937& rng, int nodes, const Index& at) {
    std::vector<ExprPtr> pool = {load(0, at, DType::Float32), load(1, floorDiv(at, c(3)), DType::Float32),
                                 cast(load(2, modulo(at * c(7), c(13)), DType::BFloat16), DType::Float32),
                                 constantFloat(0.5, DType::Float32), cast(indexValue(at, DType::Int64), DType::Float32)};
    const ElementOp unaries[] = {ElementOp::Exp, ElementOp::Sin, ElementOp::Tanh, ElementOp::Sigmoid, ElementOp::Abs, ElementOp::Relu,
                                 ElementOp::Gelu, ElementOp::Sqrt, ElementOp::Neg, ElementOp::Erf, ElementOp::Rsqrt};
    const ElementOp binaries[] = {ElementOp::Add, ElementOp::Sub, ElementOp::Mul, ElementOp::Div, ElementOp::Maximum, ElementOp::Minimum,
                                  ElementOp::Pow, ElementOp::Atan2, ElementOp::Mod};
    auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    for (int k = 0; k < nodes; ++k) {
        const ExprPtr a = pool[pick(pool.size())], b = pool[pick(pool.size())];
        switch (pick(6)) {
            case 0: pool.push_back(unary(unaries[pick(std::size(unaries))], a)); break;
            case 1:
            case 2: pool.push_back(binary(binaries[pick(std::size(binaries))], a, b)); break;
            case 3: pool.push_back(where(binary(ElementOp::Lt, a, b), a, unary(ElementOp::Cos, b))); break;
            case 4: pool.push_back(cast(cast(a, pick(2) ? DType::Float16 : DType::Int32), DType::Float32)); break;
            default: pool.push_back(cast(binary(ElementOp::Ge, a, constantFloat(0.25, DType::Float32)), DType::Float32)); break;
        }
    }
    return binary(ElementOp::Add, pool.back(), pool[pool.size() / 2]);
}

TEST(KernelBytecode, RandomExpressionsWithSharedSubexpressions) {
    std::mt19937 rng(2026);
    for (int trial = 0; trial < 60; ++trial) {
        Kernel k;
        k.name = "random_" + std::to_string(trial);
        k.buffers = {samples::buffer("a", DType::Float32, true, false), samples::buffer("b", DType::Float32, true, false),
                     samples::buffer("c", DType::BFloat16, true, false), samples::buffer("out", DType::Float32, false, true),
                     samples::buffer("half", DType::Float16, false, true)};
        k.outerRanges = {c(61)};
        const ExprPtr value = randomExpr(rng, 4 + trial % 20, x(0));
        k.passes = {KernelPass{false, {}, {Store{3, x(0), value}, Store{4, x(0), cast(value, DType::Float16)}}}};
        EXPECT_TRUE(checkKernel(k, {}, static_cast<uint32_t>(trial))) << kernelText(k);
    }
}

TEST(KernelBytecode, RowReductionsOfRandomExpressions) {
    std::mt19937 rng(17);
    const ReductionOp ops[] = {ReductionOp::Sum, ReductionOp::Max, ReductionOp::Min, ReductionOp::ArgMax, ReductionOp::ArgMin, ReductionOp::Prod};
    for (int trial = 0; trial < 30; ++trial) {
        Kernel k;
        k.name = "rows_" + std::to_string(trial);
        k.buffers = {samples::buffer("a", DType::Float32, true, false), samples::buffer("b", DType::Float32, true, false),
                     samples::buffer("c", DType::BFloat16, true, false), samples::buffer("out", DType::Float32, false, true),
                     samples::buffer("red", DType::Float32, false, true), samples::buffer("arg", DType::Int64, false, true)};
        k.symbols = {"s0"};
        k.outerRanges = {c(5)};
        k.reductionRanges = {indexSymbol("s0")};
        const ExprPtr value = randomExpr(rng, 3 + trial % 10, x(0) * indexSymbol("s0") + x(1));
        const ReductionOp op = ops[static_cast<size_t>(trial) % std::size(ops)];
        const bool arg = op == ReductionOp::ArgMax || op == ReductionOp::ArgMin;
        const DType resultType = reductionResultDtype(op, DType::Float32);
        KernelPass reduce{true, {Reduction{0, op, value}}, {}};
        auto finished = reductionValue(0, resultType);
        KernelPass write{true, {}, {Store{3, x(0) * indexSymbol("s0") + x(1), binary(ElementOp::Sub, load(0, x(1), DType::Float32), arg ? cast(finished, DType::Float32) : finished)}}};
        KernelPass rowOut{false, {}, {Store{arg ? 5 : 4, x(0), finished}}};
        k.passes = {reduce, write, rowOut};
        for (int64_t s0 : {1, 9, 40}) checkKernel(k, {{"s0", s0}}, static_cast<uint32_t>(trial), 1, Tolerance{});
    }
}

// out[j] = sum over i of a[i, j] and max over i, as reductions over the outer range (B6's column partials), with
// finalStores scaling them; per-row sums in the same pass.
Kernel columnPartials(int64_t rows, int64_t cols) {
    Kernel k;
    k.name = "cwb_red_fused_mean_sum_0";
    k.buffers = {samples::buffer("a", DType::Float32, true, false), samples::buffer("rows", DType::Float32, false, true),
                 samples::buffer("cols", DType::Float32, false, true), samples::buffer("colmax", DType::Float32, false, true)};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {c(cols)};
    auto in = load(0, x(0) * c(cols) + x(1), DType::Float32);
    Reduction rowSum{0, ReductionOp::Sum, in};
    Reduction colSum{1, ReductionOp::Sum, in, true};
    Reduction colMax{2, ReductionOp::Max, in, true};
    k.passes = {KernelPass{true, {rowSum, colSum, colMax}, {}}, KernelPass{false, {}, {Store{1, x(0), reductionValue(0, DType::Float32)}}}};
    k.finalStores = {Store{2, x(1), binary(ElementOp::Div, reductionValue(1, DType::Float32), constantFloat(static_cast<double>(rows), DType::Float32))},
                     Store{3, x(1), reductionValue(2, DType::Float32)}};
    return k;
}

TEST(KernelBytecode, OuterRangeReductionsInPieces) {
    const Kernel k = columnPartials(37, 6);
    EXPECT_TRUE(checkKernel(k, {}, 3, 1));                           // one piece: the reference's order, its bits
    EXPECT_TRUE(checkKernel(k, {}, 3, 5, Tolerance{8, 1e-5}));       // pieces combined in order
    EXPECT_TRUE(checkKernel(columnPartials(2, 6), {}, 3, 16, Tolerance{8, 1e-5}));  // more pieces than rows
}

TEST(KernelBytecode, OuterRangeReductionsInPiecesByGroupsOfThreads) {
    // The GPU's form: a block of threads a piece, each row's points dealt over the threads, row sums combined across
    // them and the column partials kept by the thread that reads the column.
    for (int64_t group : {32, 64, 256}) {
        SCOPED_TRACE(group);
        EXPECT_TRUE(checkKernel(columnPartials(37, 6), {}, 3, 5, Tolerance{8, 1e-4}, group, false));  // threads without columns
        EXPECT_TRUE(checkKernel(columnPartials(300, 700), {}, 4, 7, Tolerance{64, 1e-3}, group, false));
        EXPECT_TRUE(checkKernel(columnPartials(5, 1000), {}, 5, 16, Tolerance{64, 1e-3}, group, false));  // more pieces than rows
    }
}

// The reduction ops over rows of [rows, s0] of float32 and of small integers (many ties for the arg reductions),
// with NaN, infinities and -0 among the floats; a pass over the row after them uses the max (every thread of a
// group must hold the combined value), an outer pass writes the rest.
Kernel everyRowReduction(int64_t rows) {
    Kernel k;
    k.name = "cwb_red_every_row";
    k.buffers = {samples::buffer("a", DType::Float32, true, false), samples::buffer("small", DType::Int8, true, false),
                 samples::buffer("shifted", DType::Float32, false, true)};
    k.symbols = {"s0"};
    k.outerRanges = {c(rows)};
    k.reductionRanges = {indexSymbol("s0")};
    const Index at = x(0) * indexSymbol("s0") + x(1);
    auto a = load(0, at, DType::Float32);
    auto small = cast(load(1, at, DType::Int8), DType::Float32);
    auto scaled = binary(ElementOp::Add, constantFloat(1, DType::Float32), binary(ElementOp::Mul, a, constantFloat(0.01, DType::Float32)));
    std::vector<Reduction> reductions = {Reduction{0, ReductionOp::Sum, a},        Reduction{1, ReductionOp::Prod, scaled},
                                         Reduction{2, ReductionOp::Max, a},        Reduction{3, ReductionOp::ArgMax, a},
                                         Reduction{4, ReductionOp::ArgMax, small}, Reduction{5, ReductionOp::ArgMin, small}};
    KernelPass write{false, {}, {}};
    for (const Reduction& r : reductions) {
        k.buffers.push_back(samples::buffer("out" + std::to_string(r.id), r.resultDtype(), false, true));
        write.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), reductionValue(r.id, r.resultDtype())});
    }
    KernelPass shift{true, {}, {Store{2, at, binary(ElementOp::Sub, a, reductionValue(2, DType::Float32))}}};
    // Any/All in a second reduction pass (a pass's combine after an earlier pass's).
    auto positive = binary(ElementOp::Gt, small, constantFloat(50, DType::Float32));
    auto aboveMin = binary(ElementOp::Ge, small, constantFloat(-100, DType::Float32));
    KernelPass logic{true, {Reduction{6, ReductionOp::Any, positive}, Reduction{7, ReductionOp::All, aboveMin}}, {}};
    for (int id : {6, 7}) {
        k.buffers.push_back(samples::buffer("out" + std::to_string(id), DType::Bool, false, true));
        write.stores.push_back(Store{static_cast<int>(k.buffers.size()) - 1, x(0), reductionValue(id, DType::Bool)});
    }
    k.passes = {KernelPass{true, reductions, {}}, shift, logic, write};
    return k;
}

TEST(KernelBytecode, RowsByGroupsOfThreadsCombineAsTheReference) {
    const Kernel k = everyRowReduction(6);
    for (int64_t group : {32, 96, 256}) {
        for (int64_t s0 : {1, 31, 40, 300, 1000}) {
            SCOPED_TRACE("group " + std::to_string(group) + ", s0 " + std::to_string(s0));
            // Sums and products reassociated over the threads; maxima, positions (the first of ties, the first NaN)
            // and booleans exact.
            EXPECT_TRUE(checkKernel(k, {{"s0", s0}}, static_cast<uint32_t>(s0 + group), 1, Tolerance{4096, 1e-3}, group, false));
        }
    }
    // The reference's own bits from a group of one.
    EXPECT_TRUE(checkKernel(k, {{"s0", 300}}, 9, 1, Tolerance{}, 1, true));
}

TEST(KernelBytecode, WhereRunsOnlyTheChosenSide) {
    // where(x0 == 0, a[x0 * 2^40], 1): the load's offset is far out of range for every point but the first, so
    // evaluating both sides would read wild memory.
    Kernel k = pointwise("masked", {DType::Float32}, [](std::vector<ExprPtr>) {
        return where(binary(ElementOp::Eq, indexValue(x(0), DType::Int64), constantInt(0, DType::Int64)),
                     load(0, x(0) * c(int64_t{1} << 40), DType::Float32), constantFloat(1, DType::Float32));
    }, 50);
    auto program = encodeKernelBytecode(k);
    ASSERT_TRUE(program);
    std::vector<float> in(1, 3.5f), out(50, 0);
    std::vector<void*> buffers = {in.data(), out.data()};
    runBytecodeOnHost(k, *program, buffers, {});
    EXPECT_EQ(out[0], 3.5f);
    EXPECT_EQ(out[49], 1.0f);
}

TEST(KernelBytecode, KernelsPastTheProgramsLimitsAreRefused) {
    // A chain of 2000 distinct adds needs more instructions than a program holds.
    Kernel k = pointwise("long_chain", {DType::Float32}, [](std::vector<ExprPtr> in) {
        ExprPtr value = in[0];
        for (int i = 0; i < 2000; ++i) value = binary(ElementOp::Add, value, constantFloat(1, DType::Float32));
        return value;
    }, 4);
    std::string why;
    EXPECT_FALSE(encodeKernelBytecode(k, &why));
    EXPECT_EQ(why, "the bytecode holds no instructions");
}

}  // namespace
}  // namespace eng::inductor
