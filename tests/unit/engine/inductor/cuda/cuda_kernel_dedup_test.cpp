// A graph's kernels that differ only in their names (a model's layers: kernel and buffer names) compile once, through
// NVRTC and the LLVM NVPTX path alike, and share the first kernel's module and entry names; a kernel that differs in
// anything else compiles on its own. On a GPU (skipped without one) the shared module, its `_finish` entry included,
// computes each renamed kernel's results.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "cuda_test_kernels.h"
#include "cuda_test_support.h"
#include "inductor/cuda/cuda_kernel_codegen.h"

namespace eng::inductor::cuda {
namespace {

using namespace samples;
using namespace cudatest;

// The kernel as another layer's: its name and every buffer's renamed.
Kernel asLayer(Kernel kernel, int layer) {
    kernel.name += "_layer" + std::to_string(layer);
    for (KernelBuffer& buffer : kernel.buffers) buffer.name = "buf" + std::to_string(100 * layer) + "_" + buffer.name;
    return kernel;
}

class CudaKernelDedup : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("cwb_inductor_dedup_test_" + std::to_string(std::random_device{}()));
        compiler_ = std::make_unique<eng::cuda::KernelCompiler>(dir_);
    }
    void TearDown() override {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    std::vector<eng::cuda::KernelCompileOutcome> compile(const std::vector<Kernel>& kernels, CudaCodegenPath path) {
        std::vector<CudaKernelCode> codes;
        for (const Kernel& kernel : kernels) codes.push_back(generateCudaKernel(kernel));
        return compileCudaKernels(kernels, codes, "sm_90", path, *compiler_);
    }
    std::filesystem::path dir_;
    std::unique_ptr<eng::cuda::KernelCompiler> compiler_;
};

TEST_F(CudaKernelDedup, LayersOfOneGraphCompileOnceOnEitherPath) {
    for (CudaCodegenPath path : {CudaCodegenPath::Nvrtc, CudaCodegenPath::Llvm}) {
        SCOPED_TRACE(path == CudaCodegenPath::Llvm ? "llvm" : "nvrtc");
        compiler_ = std::make_unique<eng::cuda::KernelCompiler>(dir_ / (path == CudaCodegenPath::Llvm ? "llvm" : "nvrtc"));
        const Kernel chain = pointwiseChain(4099), rows = rowAndColumnReductions(64, 256);
        // Two kinds of layer kernel, three layers, in a graph's order; then one with other sizes.
        std::vector<Kernel> graph;
        for (int layer = 0; layer < 3; ++layer) {
            graph.push_back(asLayer(chain, layer));
            graph.push_back(asLayer(rows, layer));
        }
        graph.push_back(asLayer(pointwiseChain(4101), 3));
        const auto outcomes = compile(graph, path);
        EXPECT_EQ(compiler_->stats().compiles, 3);
        EXPECT_EQ(compiler_->stats().sameSource, 4);
        for (size_t i = 2; i < 6; ++i) {
            EXPECT_EQ(outcomes[i].origin, eng::cuda::KernelOrigin::SameSource) << i;
            EXPECT_EQ(outcomes[i].kernel.get(), outcomes[i % 2].kernel.get()) << i;
        }
        EXPECT_EQ(outcomes[4].kernel->entry, graph[0].name);  // launched under layer 0's entry
        EXPECT_EQ(outcomes[5].kernel->entry, graph[1].name);
        EXPECT_NE(outcomes[6].origin, eng::cuda::KernelOrigin::SameSource);
        EXPECT_EQ(outcomes[6].kernel->entry, graph[6].name);
        // The pointwise layers take the LLVM path when asked; the row kernels stay with NVRTC.
        EXPECT_EQ(outcomes[0].kernel->ptx, path == CudaCodegenPath::Llvm);
        EXPECT_FALSE(outcomes[1].kernel->ptx);
    }
}

TEST_F(CudaKernelDedup, ALaterGraphOrProcessFindsTheMaskedKernelInTheCache) {
    const Kernel rows = rowAndColumnReductions(64, 256);
    compile({asLayer(rows, 0)}, CudaCodegenPath::Nvrtc);
    EXPECT_EQ(compile({asLayer(rows, 7)}, CudaCodegenPath::Nvrtc).at(0).origin, eng::cuda::KernelOrigin::MemoryCache);
    compiler_ = std::make_unique<eng::cuda::KernelCompiler>(dir_);  // a new process
    const auto again = compile({asLayer(rows, 9)}, CudaCodegenPath::Nvrtc).at(0);
    EXPECT_EQ(again.origin, eng::cuda::KernelOrigin::DiskCache);
    EXPECT_EQ(again.kernel->entry, asLayer(rows, 0).name);
    EXPECT_EQ(compiler_->stats().compiles, 0);
}

TEST(CudaKernelDedupRun, RenamedKernelsRunTheSharedModuleAndMatchTheInterpreter) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA: " << eng::cuda::driverStatus().reason;
    // The process-wide compiler: the second layer's kernel is the first's module, `_finish` entry included.
    cudatest::RunOptions options;
    options.tolerance.relative = 1e-4;
    options.tolerance.absolute = 2e-6 * 1024;  // sums reassociated across threads, as the run tests allow
    for (int layer = 0; layer < 2; ++layer) {
        cudatest::runAndCompare(asLayer(rowAndColumnReductions(300, 1024), layer), {}, options);
        cudatest::runAndCompare(asLayer(pointwiseChain(4099), layer), {});
    }
}

}  // namespace
}  // namespace eng::inductor::cuda
