// Every generated CUDA kernel template compiles with NVRTC for sm_90 (no GPU needed): each unary and binary
// op for each kind of dtype it supports, casts between every pair of dtypes, fills, where/clamp/masked fill, every
// row reduction for every input dtype it accepts, and softmax/log_softmax. Each family compiles as one
// translation unit (the shared prelude once, then every kernel), which keeps NVRTC's fixed cost to a few calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "cuda/nvrtc_compiler.h"
#include "tensor/cuda_codegen.h"
#include "tensor/error.h"

namespace {

namespace fs = std::filesystem;
using namespace eng::tensor;
using cudagen::PointwiseSpec;

// One dtype of each kind the generated code treats differently (bool, unsigned, signed, 16-bit float stored
// as bits, float, double); the cast test covers every pair of the ten dtypes.
constexpr DType kRepresentativeTypes[] = {DType::Bool, DType::UInt8, DType::Int32, DType::Float16, DType::Float32, DType::Float64};
constexpr DType kAllTypes[] = {DType::Bool,    DType::UInt8,    DType::Int8,    DType::Int16,   DType::Int32,
                               DType::Int64,   DType::Float16,  DType::BFloat16, DType::Float32, DType::Float64};

class KernelTemplates : public ::testing::Test {
protected:
    // A private cache directory: the test must compile, not read what an earlier run left behind.
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cwb_kernel_templates_test_" + std::to_string(std::random_device{}()));
        compiler_ = new eng::cuda::KernelCompiler(dir_);
    }
    static void TearDownTestSuite() {
        delete compiler_;
        fs::remove_all(dir_);
    }
    static void expectCompiles(const std::vector<cudagen::GeneratedKernel>& kernels) {
        const eng::cuda::KernelSource unit = cudagen::translationUnit(kernels);
        try {
            const auto kernel = compiler_->compile(unit, "sm_90");
            EXPECT_GT(kernel->cubin.size(), 0u);
            // Every entry point is in the CUBIN's symbol table.
            for (const auto& k : kernels) EXPECT_NE(kernel->cubin.find(k.entry), std::string::npos) << k.entry;
        } catch (const std::exception& e) {
            ADD_FAILURE() << e.what();
        }
    }
    static inline fs::path dir_;
    static inline eng::cuda::KernelCompiler* compiler_ = nullptr;
};

TEST_F(KernelTemplates, EveryUnaryOpCompilesForEachKindOfDType) {
    std::vector<cudagen::GeneratedKernel> kernels;
    for (int op = 0; op <= static_cast<int>(UnaryOp::IsFinite); ++op)
        for (DType t : kRepresentativeTypes) {
            cudagen::OpExpression e{"", t};
            try {
                e = cudagen::unaryExpression(static_cast<UnaryOp>(op), t);
            } catch (const TensorError&) {
                continue;  // no kernel for this dtype on the CPU either
            }
            kernels.push_back(cudagen::pointwiseKernel({"unary" + std::to_string(op), e.type == DType::Bool ? DType::Bool : t, {t}, t,
                                                        e.text, e.type}));
        }
    EXPECT_GT(kernels.size(), 150u);
    expectCompiles(kernels);
}

TEST_F(KernelTemplates, EveryBinaryOpCompilesForEachKindOfDType) {
    std::vector<cudagen::GeneratedKernel> kernels;
    for (int op = 0; op <= static_cast<int>(BinaryOp::ShiftRight); ++op)
        for (DType t : kRepresentativeTypes) {
            cudagen::OpExpression e{"", t};
            try {
                e = cudagen::binaryExpression(static_cast<BinaryOp>(op), t);
            } catch (const TensorError&) {
                continue;
            }
            kernels.push_back(cudagen::pointwiseKernel({"binary" + std::to_string(op), e.type == DType::Bool ? DType::Bool : t, {t, t},
                                                        t, e.text, e.type}));
        }
    EXPECT_GT(kernels.size(), 120u);
    expectCompiles(kernels);
}

TEST_F(KernelTemplates, CastsBetweenEveryPairOfDTypesCompile) {
    std::vector<cudagen::GeneratedKernel> kernels;
    for (DType to : kAllTypes)
        for (DType from : kAllTypes) kernels.push_back(cudagen::pointwiseKernel({"copy", to, {from}, from, "a", from}));
    expectCompiles(kernels);
}

TEST_F(KernelTemplates, SelectionTemplatesCompile) {
    std::vector<cudagen::GeneratedKernel> kernels;
    for (DType t : kAllTypes) {
        const std::string fill = isFloating(t) ? "(T)s0" : "(T)i0";
        kernels.push_back(cudagen::pointwiseKernel({"fill", t, {}, t, fill, t}));
        kernels.push_back(cudagen::pointwiseKernel({"where", t, {DType::Bool, t, t}, t, "(a != T(0) ? bb : cc)", t}));
        kernels.push_back(cudagen::pointwiseKernel({"masked_fill", t, {t, DType::Bool}, t, "(bb != T(0) ? " + fill + " : a)", t}));
        if (t != DType::Bool)
            kernels.push_back(cudagen::pointwiseKernel(
                {"clamp_lo_hi", t, {t, t, t}, t, "(a != a ? a : cwb_clamp_hi(cwb_clamp_lo(a, bb), cc))", t}));
        if (isFloating(t)) kernels.push_back(cudagen::pointwiseKernel({"leaky_relu", t, {t}, t, "(a > T(0) ? a : a * (T)s0)", t}));
    }
    expectCompiles(kernels);
}

TEST_F(KernelTemplates, EveryRowReductionAndSoftmaxCompiles) {
    using cudagen::RowReduction;
    std::vector<cudagen::GeneratedKernel> kernels;
    auto collect = [&](cudagen::GeneratedKernel k) { kernels.push_back(std::move(k)); };
    for (DType t : kAllTypes) {
        const DType sumType = isIntegral(t, true) ? DType::Int64 : t;
        if (t == sumType) {
            collect(cudagen::rowReductionKernel(RowReduction::Sum, t, t));
            collect(cudagen::rowReductionKernel(RowReduction::Prod, t, t));
        }
        if (isFloating(t)) {
            for (RowReduction kind : {RowReduction::Mean, RowReduction::Var, RowReduction::Std})
                collect(cudagen::rowReductionKernel(kind, t, t));
            collect(cudagen::rowSoftmaxKernel(t, false));
            collect(cudagen::rowSoftmaxKernel(t, true));
        }
        collect(cudagen::rowReductionKernel(RowReduction::Max, t, t));
        collect(cudagen::rowReductionKernel(RowReduction::Min, t, t));
        collect(cudagen::rowReductionKernel(RowReduction::All, t, DType::Bool));
        collect(cudagen::rowReductionKernel(RowReduction::Any, t, DType::Bool));
    }
    expectCompiles(kernels);
}

TEST(KernelTemplateErrors, OpsWithoutAKernelRaiseLikeTheCpu) {
    // -x and x - y of bool tensors raise PyTorch's own messages before any kernel (tensor::unary, tensor::binary).
    EXPECT_THROW(cudagen::unaryExpression(UnaryOp::Frac, DType::Int64), TensorError);
    EXPECT_THROW(cudagen::unaryExpression(UnaryOp::Sin, DType::Int64), TensorError);
    EXPECT_THROW(cudagen::binaryExpression(BinaryOp::FloorDiv, DType::Bool), TensorError);
    EXPECT_THROW(cudagen::binaryExpression(BinaryOp::BitAnd, DType::Float32), TensorError);
    EXPECT_THROW(cudagen::rowSoftmaxKernel(DType::Int32, false), TensorError);
}

}  // namespace
