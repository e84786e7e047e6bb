// Fusion as users see it in the output code: which graph nodes share a kernel, what runs as an extern kernel,
// why two buffers did not fuse; compiled results equal eager ones throughout. The functions compiled are
// tests/data/engine/programs/inductor/fusion_cases.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "inductor_support.h"
#include "tensor/onednn_matmul.h"

namespace {

using eng::vm::Kind;
using eng::vm::Value;

/// Runs the case `name` of fusion_cases.py (a function of one tensor) compiled and eagerly and compares every output.
inductortest::InductorRun compileAndCompare(const std::string& name, bool interpreter = false) {
    inductortest::useInterpreter(interpreter);
    inductortest::InductorRun run =
        inductortest::runInductor(enginetest::testProgram("inductor/fusion_cases.py"), "main", {eng::vm::makeStr(name)});
    EXPECT_TRUE(run.ok) << run.error;
    if (!run.ok) return run;
    const auto& pair = run.returned.as<eng::vm::ListObject>().items;
    auto asList = [](const Value& v) {
        if (v.is(Kind::Tuple)) return v.as<eng::vm::TupleObject>().items;
        return eng::vm::ValueList{v};
    };
    auto got = asList(pair[0]), want = asList(pair[1]);
    EXPECT_EQ(got.size(), want.size());
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        Value close = eng::vm::callOp("torch.allclose", {eng::vm::callOp("Tensor.float", {got[i]}), eng::vm::callOp("Tensor.float", {want[i]})},
                                      {{"rtol", Value(1e-4)}, {"atol", Value(1e-5)}});
        EXPECT_TRUE(close.asInt()) << "output " << i << " differs from eager";
    }
    return run;
}

const traces::OutputCode& onlyCode(const inductortest::InductorRun& run) {
    EXPECT_EQ(run.events.code.size(), 1u);
    return run.events.code.at(0);
}

bool hasNode(const traces::Kernel& k, const std::string& node) {
    return std::find(k.sourceNodes.begin(), k.sourceNodes.end(), node) != k.sourceNodes.end();
}

TEST(InductorFusion, PointwiseChainIsOneKernel) {
    auto run = compileAndCompare("pointwise_chain");
    const auto& code = onlyCode(run);
    ASSERT_EQ(code.kernels.size(), 1u);
    EXPECT_EQ(code.kernels[0].name, "cwb_poi_fused_add_mul_relu_sigmoid_sin_0");
    for (const char* node : {"mul", "add", "relu", "sin", "sigmoid", "mul_1"}) EXPECT_TRUE(hasNode(code.kernels[0], node)) << node;
    EXPECT_EQ(code.kernels[0].language, "llvm_ir");
}

TEST(InductorFusion, SoftmaxRowIsOneKernelOfThreePasses) {
    auto run = compileAndCompare("softmax_row");
    const auto& code = onlyCode(run);
    ASSERT_EQ(code.kernels.size(), 1u);
    EXPECT_EQ(code.kernels[0].name.rfind("cwb_red_fused_softmax_", 0), 0u) << code.kernels[0].name;
}

// A classifier's loss tail: the full sums of a squared softmax and of a log_softmax (a kernel without outer ranges
// over [6, 10], reading the softmax kernel's per-row max and sum) added to cross_entropy's 0-d result, whose rows
// are reduced in the softmax's kernel (cross_entropy lowers into row reductions: the one extern call left checks
// the targets, which no kernel waits for).
TEST(InductorFusion, FullSumsOverRowReductionsBesideALoweredLoss) {
    auto run = compileAndCompare("loss_tail");
    const auto& code = onlyCode(run);
    const size_t firstExtern = code.source.find("extern_kernels.");
    EXPECT_NE(code.source.find("extern_kernels.check_class_targets"), std::string::npos) << code.source;
    EXPECT_EQ(code.source.find("extern_kernels.", firstExtern + 1), std::string::npos) << code.source;
    bool rows = false, tail = false;
    for (const auto& k : code.kernels) {
        rows = rows || k.name.rfind("cwb_red_fused_cross_entropy_log_softmax_softmax_", 0) == 0;
        tail = tail || k.name.rfind("cwb_red_fused_add_cross_entropy_log_softmax_mean_mul_sub_sum_", 0) == 0;
    }
    EXPECT_TRUE(rows && tail) << code.source;
}

// softmax and log_softmax of one row reduce the same values: one max and one sum of exp serve both.
TEST(InductorFusion, SameReductionOfTheSameValuesIsComputedOnce) {
    auto run = compileAndCompare("softmax_and_log_softmax", true);
    const auto& code = onlyCode(run);
    ASSERT_EQ(code.kernels.size(), 1u) << code.source;
    auto count = [&](const std::string& what) {
        size_t n = 0;
        for (size_t at = code.kernels[0].source.find(what); at != std::string::npos; at = code.kernels[0].source.find(what, at + 1)) ++n;
        return n;
    };
    EXPECT_EQ(count(" = max("), 1u) << code.kernels[0].source;
    EXPECT_EQ(count(" = sum("), 1u) << code.kernels[0].source;
}

TEST(InductorFusion, LayerNormWithAffineIsOneKernel) {
    auto run = compileAndCompare("layer_norm_with_affine");
    ASSERT_EQ(onlyCode(run).kernels.size(), 1u) << onlyCode(run).source;
}

TEST(InductorFusion, LinearBiasFusesWithTheActivation) {
    auto run = compileAndCompare("linear_gelu_linear");
    const auto& code = onlyCode(run);
    // mm (extern), bias + gelu (one kernel), mm (extern), bias (one kernel)
    ASSERT_EQ(code.kernels.size(), 2u) << code.source;
    EXPECT_NE(code.kernels[0].name.find("gelu"), std::string::npos) << code.kernels[0].name;
    EXPECT_NE(code.source.find("extern_kernels.torch.matmul"), std::string::npos) << code.source;
}

TEST(InductorFusion, CpuLinearBiasInTheOneDnnProduct) {
    // A product oneDNN takes adds the bias in its matmul: one extern call, no bias kernel, equal to eager (which
    // fuses it too). The small float32 linears above keep OpenBLAS and the bias kernel.
    for (const char* name : {"linear_bias_bf16", "linear_bias_large"}) {
        SCOPED_TRACE(name);
        auto run = compileAndCompare(name);
        if (!eng::tensor::onednn::available()) GTEST_SKIP() << "libdnnl.so.2 not found";
        const auto& code = onlyCode(run);
        EXPECT_EQ(code.kernels.size(), 0u) << code.source;
        EXPECT_NE(code.source.find("bias fused into the oneDNN matmul"), std::string::npos) << code.source;
    }
}

TEST(InductorFusion, CpuLinearActivationInTheOneDnnProduct) {
    // ... and its only reader's GELU or relu is the matmul's eltwise post-op: no kernel, equal to eager (float32:
    // the GELU's own rounding), the output code naming what was fused. (bfloat16 and the tanh form:
    // tests/scripts/inductor/externs/cpu_linear_activations_fuse_into_the_onednn_matmul.py.)
    for (const auto& [name, fused] : {std::pair{"linear_gelu_large", "bias and gelu fused into the oneDNN matmul"},
                                      std::pair{"linear_relu_large", "bias and relu fused into the oneDNN matmul"}}) {
        SCOPED_TRACE(name);
        auto run = compileAndCompare(name);
        if (!eng::tensor::onednn::available()) GTEST_SKIP() << "libdnnl.so.2 not found";
        const auto& code = onlyCode(run);
        EXPECT_EQ(code.kernels.size(), 0u) << code.source;
        EXPECT_NE(code.source.find(fused), std::string::npos) << code.source;
    }
}

TEST(InductorFusion, AttentionIsTwoMatmulsAroundOneMaskedSoftmaxKernel) {
    for (const char* name : {"causal_attention", "masked_attention", "scaled_attention"}) {
        SCOPED_TRACE(name);
        auto run = compileAndCompare(name);
        const auto& code = onlyCode(run);
        ASSERT_EQ(code.kernels.size(), 1u) << code.source;
        EXPECT_EQ(code.kernels[0].name.rfind("cwb_red_fused_", 0), 0u);
        EXPECT_NE(code.source.find("extern_kernels.torch.matmul"), std::string::npos);
    }
}

TEST(InductorFusion, DifferentReductionsStaySeparateWithTheReasonRecorded) {
    auto run = compileAndCompare("sum_and_amax");
    const auto& code = onlyCode(run);
    EXPECT_EQ(code.kernels.size(), 2u);
    EXPECT_NE(code.source.find("reductions over different ranges: dims {0, 1} of [40, 24] vs dims {1} of [40, 24]"), std::string::npos)
        << code.source;
}

TEST(InductorFusion, RowAndColumnReductionsOfOneInputReadItInOnePass) {
    for (bool interpreter : {true, false}) {
        SCOPED_TRACE(interpreter ? "interpreter" : "LLVM");
        // 300 x 517 is enough work to split the rows over threads: each piece's column partials are combined.
        for (const char* name : {"row_sum_and_column_mean", "row_sum_and_column_mean_large"}) {
            auto run = compileAndCompare(name, interpreter);
            const auto& code = onlyCode(run);
            ASSERT_EQ(code.kernels.size(), 1u) << code.source;
            EXPECT_TRUE(hasNode(code.kernels[0], "sum_1") && hasNode(code.kernels[0], "mean")) << code.source;
            EXPECT_NE(code.source.find("reduction over the other dims of the same input, in the same pass (one read for both)"), std::string::npos)
                << code.source;
        }
    }
    // keepdim, max/min, three dims, a pointwise op on the column results: still one kernel each
    for (const char* name : {"column_amax_and_row_sum_keepdim", "column_sums_with_pointwise_ops", "three_dim_reductions"}) {
        SCOPED_TRACE(name);
        auto run = compileAndCompare(name);
        EXPECT_EQ(onlyCode(run).kernels.size(), 1u) << onlyCode(run).source;
    }
}

TEST(InductorFusion, APointwiseOpOverTheColumnSizesThatReadsNoColumnResultGetsAKernelOfItsOwn) {
    auto run = compileAndCompare("pointwise_over_the_column_sizes");
    EXPECT_EQ(onlyCode(run).kernels.size(), 2u) << onlyCode(run).source;
}

TEST(InductorFusion, WhatNeedsTheColumnResultsBeforeTheLastRowGetsAKernelOfItsOwn) {
    // var(dim=0) reads mean(dim=0) at every element; x - c reads the column sums at every element
    for (const char* name : {"row_sum_and_column_var", "row_sum_and_centered_by_column_sums"}) {
        SCOPED_TRACE(name);
        auto run = compileAndCompare(name);
        const auto& code = onlyCode(run);
        EXPECT_GE(code.kernels.size(), 2u) << code.source;
        EXPECT_NE(code.source.find("which is finished only after every outer point"), std::string::npos) << code.source;
    }
}

TEST(InductorFusion, EachKernelRecordsItsOwnCompileTimeAndTheCompileItsPhases) {
    auto run = compileAndCompare("sum_and_amax");
    const auto& code = onlyCode(run);
    ASSERT_EQ(code.kernels.size(), 2u);
    double kernelSum = 0;
    for (const traces::Kernel& k : code.kernels) {
        ASSERT_TRUE(k.compileSeconds.has_value()) << k.name;
        EXPECT_GT(*k.compileSeconds, 0.0) << k.name;
        kernelSum += *k.compileSeconds;
    }
    // (compiled, or loaded from the kernel cache when an earlier run compiled the same kernels)
    EXPECT_TRUE(code.source.find("# code from LLVM in ") != std::string::npos || code.source.find("# code from the disk cache in ") != std::string::npos)
        << code.source;
    ASSERT_EQ(run.events.finished.size(), 1u);
    std::map<std::string, double> phases;
    for (const traces::PhaseTime& p : run.events.finished[0].phases) phases[p.phase] = p.seconds;
    for (const char* phase : {"entire_frame_compile", "backend_compile", "inductor_compile", "inductor_lowering", "inductor_scheduling", "code_gen"})
        EXPECT_TRUE(phases.count(phase)) << phase;
    // Kernels compile one after another on the CPU: together they fit in the code-generation phase, which
    // fits in the backend's.
    EXPECT_LE(kernelSum, phases["code_gen"]);
    EXPECT_LE(phases["code_gen"], phases["inductor_compile"]);
    EXPECT_LE(phases["inductor_compile"], phases["backend_compile"]);
}

TEST(InductorFusion, AViewReadBySeveralNodesStaysAView) {
    // y is read three times: computing it into a buffer would only copy x; the readers index x directly.
    auto run = compileAndCompare("view_read_three_times");
    const auto& code = onlyCode(run);
    ASSERT_EQ(code.kernels.size(), 1u) << code.source;
    // Three computed buffers (the two pointwise results and the sum), none for y itself.
    EXPECT_NE(code.source.find("#   buf2 fused into"), std::string::npos) << code.source;
    EXPECT_EQ(code.source.find("#   buf3"), std::string::npos) << code.source;
}

TEST(InductorFusion, TrainingGraphsRunEagerlyAndSayWhy) {
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(enginetest::testProgram("inductor/training_graph_without_aot_autograd.py"), "main", {});
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_EQ(run.events.code.size(), 1u);
    EXPECT_NE(run.events.code[0].source.find("no compiled backward graphs yet"), std::string::npos);
    Value grad = eng::vm::callOp("Tensor.tolist", {run.returned});
    EXPECT_EQ(grad.as<eng::vm::ListObject>().items[3].asFloat(), 3.0);
}

}  // namespace

TEST(InductorFusion, ExternCallsTakeViewsOfComputedBuffersInPlace) {
    // q, k and v are a reshape/permute/select of the projection's buffer: the matmuls read them through
    // reinterpret_tensor views, and the split of 96 into (3, 2, 16) is index arithmetic without div/mod.
    auto run = compileAndCompare("attention_over_a_projection");
    const auto& code = onlyCode(run);
    // The softmax and the final transposed copy; nothing copies q, k or v.
    ASSERT_EQ(code.kernels.size(), 2u) << code.source;
    for (const auto& kernel : code.kernels) EXPECT_FALSE(hasNode(kernel, "getitem")) << code.source;
    EXPECT_NE(code.source.find("reinterpret_tensor(buf0, (2, 2, 5, 16), (480, 16, 96, 1), 0)"), std::string::npos) << code.source;
    EXPECT_NE(code.source.find("reinterpret_tensor(buf0, (2, 2, 16, 5), (480, 16, 1, 96), 32)"), std::string::npos) << code.source;
    EXPECT_NE(code.source.find("reinterpret_tensor(buf0, (2, 2, 5, 16), (480, 16, 96, 1), 64)"), std::string::npos) << code.source;
}
