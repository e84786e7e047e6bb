// CPU-only (runs in CI): the LLVM NVPTX path (CWB_CUDA_CODEGEN=llvm) lowers every pointwise test kernel to PTX
// for sm_90 with its entry point, moves 16-byte vectors where the CUDA plan does, keeps reductions and combo kernels
// with NVRTC, and keeps its PTX in the kernel cache. The GPU run tests (cuda_codegen_run_test.cpp) run them.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>

#include "cuda_test_kernels.h"
#include "inductor/cuda/cuda_kernel_codegen.h"

namespace eng::inductor::cuda {
namespace {

using namespace samples;

class CudaNvptx : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("cwb_inductor_nvptx_test_" + std::to_string(std::random_device{}()));
        compiler_ = std::make_unique<eng::cuda::KernelCompiler>(dir_);
    }
    void TearDown() override {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    eng::cuda::KernelCompileOutcome lower(const Kernel& kernel, const CudaTuning& tuning = {}) {
        const CudaKernelCode code = generateCudaKernel(kernel, tuning);
        return compileCudaKernels({kernel}, {code}, "sm_90", CudaCodegenPath::Llvm, *compiler_).at(0);
    }
    static bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

    std::filesystem::path dir_;
    std::unique_ptr<eng::cuda::KernelCompiler> compiler_;
};

TEST_F(CudaNvptx, EveryPointwiseTestKernelLowersToPtx) {
    using namespace cudatest;
    std::vector<Kernel> kernels = {
        allUnaryFloat(100, DType::Float32), allUnaryFloat(100, DType::Float64), allUnaryFloat(100, DType::Float16),
        allBinaryFloat(100, DType::Float32), allBinaryFloat(100, DType::Float64), allBinaryFloat(100, DType::BFloat16),
        allIntegerOps(100, DType::Int8), allIntegerOps(100, DType::Int32), allIntegerOps(100, DType::Int64),
        allIntegerOps(100, DType::UInt8), boolOps(100), casts(100), halfMath(100), indexValues3d(3, 5, 7), inPlaceSymbolic(),
        fillScalar(), pointwiseChain(1003), broadcastAddTransposed(7, 13)};
    int lowered = 0;
    for (const Kernel& kernel : kernels) {
        SCOPED_TRACE(kernel.name);
        ASSERT_TRUE(llvmGenerates(kernel, generateCudaKernel(kernel), "sm_90"));
        const eng::cuda::KernelCompileOutcome outcome = lower(kernel);
        ASSERT_TRUE(outcome.kernel);
        EXPECT_EQ(outcome.origin, eng::cuda::KernelOrigin::Llvm);
        EXPECT_TRUE(outcome.kernel->ptx);
        const std::string& ptx = outcome.kernel->cubin;
        EXPECT_TRUE(has(ptx, ".target sm_90")) << ptx.substr(0, 400);
        EXPECT_TRUE(has(ptx, ".visible .entry " + kernel.name + "(")) << ptx.substr(0, 400);
        EXPECT_TRUE(has(ptx, ".maxntid 256, 1, 1"));
        // libdevice is linked and inlined: no call leaves the module.
        EXPECT_FALSE(has(ptx, ".extern .func")) << ptx;
        ++lowered;
    }
    EXPECT_EQ(lowered, static_cast<int>(kernels.size()));
}

TEST_F(CudaNvptx, AlignedPointwiseKernelsMoveSixteenByteVectors) {
    const auto started = std::chrono::steady_clock::now();
    const eng::cuda::KernelCompileOutcome outcome = lower(pointwiseChain(int64_t{1} << 26));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    RecordProperty("lower_ms", std::to_string(ms));
    const std::string& ptx = outcome.kernel->cubin;
    EXPECT_TRUE(has(ptx, "ld.global.nc.v4.f32")) << ptx;
    EXPECT_TRUE(has(ptx, "st.global.v4.f32")) << ptx;
    // 2^26 is a multiple of the vector width: no scalar tail, so no scalar load of the input.
    EXPECT_FALSE(has(ptx, "ld.global.nc.f32")) << ptx;
    // The kernel for unaligned buffers (offset views) takes the scalar loop.
    CudaTuning unaligned;
    unaligned.assumeAligned = false;
    const std::string scalar = lower(pointwiseChain(int64_t{1} << 26), unaligned).kernel->cubin;
    EXPECT_FALSE(has(scalar, ".v4.f32")) << scalar;
    EXPECT_TRUE(has(scalar, "ld.global.nc.f32")) << scalar;
}

TEST_F(CudaNvptx, ReductionsAndComboKernelsStayWithNvrtc) {
    using namespace cudatest;
    for (const Kernel& kernel : {everyReduction(10, true, true), fullSum(100), comboOfThreeSizes()}) {
        SCOPED_TRACE(kernel.name);
        EXPECT_FALSE(llvmGenerates(kernel, generateCudaKernel(kernel), "sm_90"));
        const eng::cuda::KernelCompileOutcome outcome = lower(kernel);
        EXPECT_EQ(outcome.origin, eng::cuda::KernelOrigin::Nvrtc);
        EXPECT_FALSE(outcome.kernel->ptx);
    }
    // Architectures LLVM 19 does not know keep NVRTC too.
    EXPECT_FALSE(llvmGenerates(pointwiseChain(16), generateCudaKernel(pointwiseChain(16)), "sm_100"));
}

TEST_F(CudaNvptx, PtxIsKeptInTheDiskCache) {
    const Kernel kernel = pointwiseChain(4099);
    const eng::cuda::KernelCompileOutcome first = lower(kernel);
    EXPECT_EQ(first.origin, eng::cuda::KernelOrigin::Llvm);
    EXPECT_EQ(lower(kernel).origin, eng::cuda::KernelOrigin::MemoryCache);
    compiler_ = std::make_unique<eng::cuda::KernelCompiler>(dir_);  // a new process
    const eng::cuda::KernelCompileOutcome again = lower(kernel);
    EXPECT_EQ(again.origin, eng::cuda::KernelOrigin::DiskCache);
    EXPECT_TRUE(again.kernel->ptx);
    EXPECT_EQ(again.kernel->cubin, first.kernel->cubin);
    // Another launch plan is another entry.
    CudaTuning tuning;
    tuning.blockSize = 128;
    EXPECT_EQ(lower(kernel, tuning).origin, eng::cuda::KernelOrigin::Llvm);
}

}  // namespace
}  // namespace eng::inductor::cuda
