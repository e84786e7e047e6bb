// The kernel IR: index folding and strides, the verifier's rules, and the reference interpreter's results on
// the sample kernels against values computed here by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../sample_kernels.h"

namespace eng::inductor {
namespace {

using namespace samples;

TEST(KernelIndex, FoldsConstantsAndIdentities) {
    EXPECT_EQ(toString(x(0) * c(1) + c(0)), "x0");
    EXPECT_EQ(toString(c(3) + x(1) * c(4) + c(2)), "x1 * 4 + 5");
    EXPECT_EQ(constantValue(c(6) * c(7)), 42);
    EXPECT_EQ(constantValue(x(0) * c(0)), 0);
    EXPECT_EQ(toString(floorDiv(x(0), c(1))), "x0");
    EXPECT_EQ(constantValue(modulo(x(2), c(1))), 0);
    EXPECT_EQ(constantValue(floorDiv(c(-7), c(2))), -4);  // floor, as Python
}

TEST(KernelIndex, FoldsADimSplitAndMergedBack) {
    // A reshape merging two dims that an earlier split made: (e // 64) * 64 + e % 64 is e again.
    Index e = x(1) * c(768) + x(2);
    EXPECT_EQ(toString(floorDiv(e, c(64)) * c(64) + modulo(e, c(64))), toString(e));
    EXPECT_EQ(toString(x(0) * c(393216) + floorDiv(x(2), c(64)) * c(64) + modulo(x(2), c(64))), "x0 * 393216 + x2");
    // Different divisors, or a different expression, stay as they are.
    EXPECT_NE(toString(floorDiv(x(2), c(64)) * c(64) + modulo(x(2), c(32))), "x2");
    // Through a buffer's strides: [2, 64, 256] flattened to [128, 256] reads x0 // 64 * 16384 + x0 % 64 * 256.
    EXPECT_EQ(toString(floorDiv(x(0), c(64)) * c(16384) + modulo(x(0), c(64)) * c(256) + x(1)), "x0 * 256 + x1");
    EXPECT_EQ(toString(x(1) * c(7) + floorDiv(x(0), c(64)) * c(128) + modulo(x(0), c(64)) * c(2)), "x1 * 7 + x0 * 2");
    EXPECT_NE(toString(floorDiv(x(0), c(64)) * c(16384) + modulo(x(0), c(64)) * c(128)), "x0 * 128");
    EXPECT_NE(toString(floorDiv(x(1), c(64)) * c(64) + modulo(x(2), c(64))), "x2");
}

TEST(KernelIndex, EvaluatesWithSymbols) {
    Index i = floorDiv(x(0), indexSymbol("s0")) * c(100) + modulo(x(0), indexSymbol("s0"));
    std::vector<int64_t> vars{17};
    EXPECT_EQ(evaluate(i, vars, {{"s0", 5}}), 302);
    std::vector<std::string> symbols;
    collectSymbols(i, symbols);
    EXPECT_EQ(symbols, std::vector<std::string>{"s0"});
}

TEST(KernelIndex, StridesOfVariables) {
    Index rowMajor = x(0) * c(64) + x(1);
    EXPECT_EQ(constantStrideOf(rowMajor, 1), 1);
    EXPECT_EQ(constantStrideOf(rowMajor, 0), 64);
    EXPECT_EQ(constantStrideOf(rowMajor, 2), 0);
    EXPECT_EQ(constantStrideOf(x(0) * indexSymbol("s0") + x(1), 0), std::nullopt);
    EXPECT_EQ(constantStrideOf(x(0) * indexSymbol("s0") + x(1), 1), 1);
    EXPECT_EQ(constantStrideOf(modulo(x(0), c(8)), 0), std::nullopt);
}

TEST(KernelVerifier, AcceptsEverySample) {
    for (const Kernel& k : all()) EXPECT_NO_THROW(verifyKernel(k)) << kernelText(k);
}

TEST(KernelVerifier, RejectsComboKernelsThatAreNotPointwisePartsOverTheirSum) {
    Kernel combo = comboOfThreeSizes();
    EXPECT_NE(kernelText(combo).find("3 parts"), std::string::npos);
    Kernel withReduction = combo;
    withReduction.parts[1].kernel = softmaxRows(2);
    EXPECT_THROW(verifyKernel(withReduction), std::logic_error);
    Kernel wrongRange = combo;
    wrongRange.outerRanges = {c(1000)};
    EXPECT_THROW(verifyKernel(wrongRange), std::logic_error);
    Kernel unmapped = combo;
    unmapped.parts[0].buffers.pop_back();
    EXPECT_THROW(verifyKernel(unmapped), std::logic_error);
}

TEST(KernelVerifier, RejectsReadingAReductionInItsOwnPass) {
    Kernel k = softmaxRows(2);
    k.passes[1].reductions[0].value = reductionValue(1, DType::Float32);
    EXPECT_THROW(verifyKernel(k), std::logic_error);
}

TEST(KernelVerifier, RejectsReductionVariablesInAnOuterPass) {
    Kernel k = columnSumAndArgmax(3, 3);
    k.passes[1].stores[0].index = x(1);
    EXPECT_THROW(verifyKernel(k), std::logic_error);
}

TEST(KernelVerifier, RejectsStoresOfTheWrongDtype) {
    Kernel k = layerNormBf16(2, 4);
    k.passes[1].stores[0].value = cast(k.passes[1].stores[0].value, DType::Float32);
    EXPECT_THROW(verifyKernel(k), std::logic_error);
}

TEST(KernelInterpreter, PointwiseChain) {
    Kernel k = pointwiseChain(64);
    std::vector<float> in(64), out(64);
    for (int i = 0; i < 64; ++i) in[static_cast<size_t>(i)] = static_cast<float>(i - 32) * 0.1f;
    std::vector<void*> buffers{in.data(), out.data()};
    interpretKernel(k, buffers, {});
    for (size_t i = 0; i < in.size(); ++i) {
        float v = in[i];
        float expected = std::sin(std::max(v * 2 + 1, 0.0f)) * (1.0f / (1.0f + std::exp(-v)));
        EXPECT_NEAR(out[i], expected, 1e-6f);
    }
}

TEST(KernelInterpreter, SoftmaxRowsWithASymbolicLength) {
    Kernel k = softmaxRows(3);
    const int64_t cols = 7;
    std::vector<float> in(3 * cols), out(3 * cols);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 5) - 2.0f;
    std::vector<void*> buffers{in.data(), out.data()};
    interpretKernel(k, buffers, {{"s0", cols}});
    for (int r = 0; r < 3; ++r) {
        double sum = 0;
        for (int j = 0; j < cols; ++j) sum += out[static_cast<size_t>(r * cols + j)];
        EXPECT_NEAR(sum, 1.0, 1e-6);
    }
    EXPECT_GT(out[2], out[1]);
}

TEST(KernelInterpreter, ColumnSumAndFirstArgmax) {
    Kernel k = columnSumAndArgmax(3, 2);
    std::vector<float> in{1, 5, 4, 5, 4, 2};  // columns {1,4,4} and {5,5,2}
    std::vector<float> sum(2);
    std::vector<int64_t> idx(2);
    std::vector<void*> buffers{in.data(), sum.data(), idx.data()};
    interpretKernel(k, buffers, {});
    EXPECT_EQ(sum, (std::vector<float>{9, 12}));
    EXPECT_EQ(idx, (std::vector<int64_t>{1, 0}));  // first of the ties, as torch.argmax
}

TEST(KernelInterpreter, IntegerMathFollowsPython) {
    Kernel k = integerWhereAndAny(2, 3);
    std::vector<int32_t> in{-7, 0, 9, 1, 2, 3};
    std::vector<int64_t> out(6);
    std::vector<uint8_t> any(2);
    std::vector<void*> buffers{in.data(), out.data(), any.data()};
    interpretKernel(k, buffers, {});
    EXPECT_EQ(out, (std::vector<int64_t>{3, 0, 4, 1, 2, 3}));  // -7 % 5 == 3; 9 // 2 == 4
    EXPECT_EQ(any, (std::vector<uint8_t>{1, 0}));
}

TEST(ComboSharedBodies, PartsTheSameButForTheirExtentShareOneFlatBody) {
    const Kernel combo = comboOfSharedBodies();
    const ComboSharedBodies shared = comboSharedBodies(combo);
    EXPECT_EQ(shared.bodyOfPart, (std::vector<int>{0, 1, 1, 0, 1, -1})) << "counts, momentum steps of three sizes, the transposed add";
    ASSERT_EQ(shared.bodies.size(), 2u);
    const Kernel& momentum = shared.bodies[1];
    EXPECT_EQ(momentum.name, "cwb_for_fused_add_div_mul_pow_sub_0_body1");
    EXPECT_EQ(momentum.symbols, std::vector<std::string>{kSharedBodyExtent});
    ASSERT_EQ(momentum.outerRanges.size(), 1u);
    EXPECT_EQ(toString(momentum.outerRanges[0]), kSharedBodyExtent);
    for (const Store& s : momentum.passes[0].stores) EXPECT_EQ(toString(s.index), "x0") << "the 2-D part's x0 * 13 + x1 is its flat index";
    EXPECT_NO_THROW(verifyKernel(momentum)) << kernelText(momentum);
    // Another constant is another body.
    std::vector<Kernel> parts = {momentumUpdate({10}), momentumUpdate({10})};
    parts[1].passes[0].stores[0].value = binary(ElementOp::Mul, parts[1].passes[0].stores[0].value, constantFloat(2, DType::Float32));
    for (size_t p = 0; p < parts.size(); ++p)
        for (KernelBuffer& b : parts[p].buffers) b.name += std::to_string(p);
    const Kernel two = makeComboKernel("combo", std::move(parts), {{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}});
    EXPECT_EQ(comboSharedBodies(two).bodyOfPart, (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace eng::inductor
