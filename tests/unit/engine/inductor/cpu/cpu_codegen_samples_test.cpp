// The CPU code generator against the reference interpreter on the shared sample kernels (whole range and split
// ranges, symbolic sizes, several sizes that are not multiples of the vector width), plus IR text and errors.
#include <gtest/gtest.h>

#include <thread>

#include "../sample_kernels.h"
#include "cpu_test_support.h"

namespace eng::inductor::cpu {
namespace {

using namespace testing;
namespace s = samples;

TEST(CpuCodegenSamples, AllSampleKernelsMatchTheInterpreter) {
    const std::vector<Kernel> kernels = s::all();
    auto module = compileCpuKernels(kernels);
    ASSERT_EQ(module->size(), kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i) {
        SymbolValues symbols;
        if (!kernels[i].symbols.empty()) symbols["s0"] = 37;
        // Sums reassociate (vectorised): allow rounding-order differences relative to the summed magnitudes.
        const Tolerance tol{4, kernels[i].isReduction() ? 1e-6 : 0};
        for (uint32_t seed : {1u, 2u}) {
            const bool special = kernels[i].name.find("layer_norm") == std::string::npos;  // inf/NaN poison whole rows there
            Buffers in = randomBuffers(kernels[i], symbols, seed, 4, special && kernels[i].name.find("softmax") == std::string::npos);
            for (int pieces : {1, 3, 7}) checkAgainstInterpreter(kernels[i], *module, i, symbols, in, tol, kernels[i].name, pieces);
        }
    }
}

TEST(CpuCodegenSamples, OddSizesAndSymbolicRowLengths) {
    // Sizes around vector widths (8/16 lanes, unrolled x4) to exercise remainders and tiny loops.
    std::vector<Kernel> kernels;
    for (int64_t n : {1, 7, 15, 17, 63, 129}) kernels.push_back(s::pointwiseChain(n));
    kernels.push_back(s::softmaxRows(3));
    kernels.push_back(s::broadcastAddTransposed(17, 33));
    kernels.push_back(s::layerNormBf16(5, 67));
    kernels.push_back(s::columnSumAndArgmax(33, 19));
    kernels.push_back(s::integerWhereAndAny(9, 31));
    kernels.push_back(s::sliceOfDynamicSize());
    auto module = compileCpuKernels(kernels);
    for (size_t i = 0; i < kernels.size(); ++i) {
        for (int64_t s0 : {1, 5, 16, 33, 130}) {
            SymbolValues symbols;
            if (!kernels[i].symbols.empty()) symbols["s0"] = s0;
            else if (s0 != 1) continue;
            Buffers in = randomBuffers(kernels[i], symbols, static_cast<uint32_t>(s0 + i), 4, kernels[i].name.find("layer_norm") == std::string::npos);
            for (int pieces : {1, 2, 5})
                checkAgainstInterpreter(kernels[i], *module, i, symbols, in, Tolerance{4, kernels[i].isReduction() ? 1e-6 : 0},
                                        kernels[i].name + " s0=" + std::to_string(s0), pieces);
        }
    }
}

TEST(CpuCodegenSamples, SoftmaxWithNaNAndInfRows) {
    Kernel k = s::softmaxRows(6);
    auto module = compileCpuKernels({k});
    SymbolValues symbols{{"s0", 45}};
    Buffers in = randomBuffers(k, symbols, 9);
    auto* data = reinterpret_cast<float*>(in.bytes[0].data());
    for (int j = 0; j < 45; ++j) data[j] = 1.0f;         // row 0: uniform
    data[45 + 3] = std::numeric_limits<float>::quiet_NaN();  // row 1: NaN everywhere in the output
    data[90 + 7] = std::numeric_limits<float>::infinity();   // row 2: inf - inf = NaN
    for (int j = 0; j < 45; ++j) data[135 + j] = -std::numeric_limits<float>::infinity();  // row 3: all -inf
    checkAgainstInterpreter(k, *module, 0, symbols, in, Tolerance{4, 1e-6}, "softmax specials");
}

TEST(CpuCodegenSamples, EmptyOuterRangeAndEmptyCallRange) {
    Kernel k = s::softmaxRows(4);
    auto module = compileCpuKernels({k});
    SymbolValues symbols{{"s0", 8}};
    Buffers in = randomBuffers(k, symbols, 3);
    Buffers out = in;
    auto p = out.pointers();
    int64_t s0 = 8;
    module->entry(0)(p.data(), &s0, 2, 2);  // nothing to do
    module->entry(0)(p.data(), &s0, 3, 1);
    EXPECT_EQ(in.bytes, out.bytes);
}

TEST(CpuCodegenSamples, LlvmIrTextIsProducedAndVectorised) {
    auto module = compileCpuKernels({s::pointwiseChain(1024), s::softmaxRows(8), s::columnSumAndArgmax(64, 256)});
    ASSERT_EQ(module->size(), 3u);
    EXPECT_NE(module->llvmIr(0).find("define void @cwb_poi_fused_add_mul_relu_sigmoid_sin_0"), std::string::npos);
    EXPECT_NE(module->llvmIr(1).find("define void @cwb_red_fused__softmax_0"), std::string::npos);
    // The innermost loops vectorise (vector types appear) and math goes to libmvec.
    EXPECT_NE(module->llvmIr(0).find("x float>"), std::string::npos) << module->llvmIr(0);
    EXPECT_NE(module->llvmIr(1).find("x float>"), std::string::npos) << module->llvmIr(1);
    EXPECT_NE(module->llvmIr(0).find("_ZGV"), std::string::npos) << module->llvmIr(0);
    // Column reductions vectorise across neighbouring outputs.
    EXPECT_NE(module->llvmIr(2).find("x float>"), std::string::npos) << module->llvmIr(2);
    EXPECT_GT(module->compileSeconds(), 0.0);
    EXPECT_LT(module->compileSeconds(), 5.0);
}

TEST(CpuCodegenSamples, EmptyGraphAndConcurrentCompiles) {
    EXPECT_EQ(compileCpuKernels({})->size(), 0u);
    // Each compile has its own context and JIT session, so graphs may compile on several threads at once.
    std::vector<std::shared_ptr<CpuKernelModule>> modules(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < modules.size(); ++t) threads.emplace_back([&, t] { modules[t] = compileCpuKernels(s::all()); });
    for (auto& t : threads) t.join();
    for (const auto& m : modules) {
        ASSERT_EQ(m->size(), s::all().size());
        Kernel k = s::integerWhereAndAny(4, 11);
        checkAgainstInterpreter(k, *m, 5, {}, randomBuffers(k, {}, 8), {}, "concurrent");
    }
}

TEST(CpuCodegenSamples, DuplicateKernelNamesGetDistinctFunctions) {
    auto module = compileCpuKernels({s::pointwiseChain(10), s::pointwiseChain(20)});
    EXPECT_NE(module->entry(0), module->entry(1));
}

TEST(CpuCodegenSamples, MalformedKernelsAreReported) {
    Kernel bad = s::pointwiseChain(4);
    bad.passes[0].stores[0].buffer = 5;  // no such buffer
    EXPECT_THROW(compileCpuKernels({bad}), std::runtime_error);

    Kernel wrongDtype = s::pointwiseChain(4);
    wrongDtype.buffers[1].dtype = DType::Int32;  // float value stored into an int buffer
    try {
        compileCpuKernels({s::softmaxRows(2), wrongDtype});
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cwb_poi_fused_add_mul_relu_sigmoid_sin_0"), std::string::npos) << e.what();
    }

    Kernel intSin;
    intSin.name = "int_sin";
    intSin.buffers = {s::buffer("a", DType::Int32, true, false), s::buffer("b", DType::Int32, false, true)};
    intSin.outerRanges = {s::c(4)};
    intSin.passes = {KernelPass{false, {}, {Store{1, s::x(0), unary(ElementOp::Sin, load(0, s::x(0), DType::Int32))}}}};
    EXPECT_THROW(compileCpuKernels({intSin}), std::runtime_error);
}

}  // namespace
}  // namespace eng::inductor::cpu
