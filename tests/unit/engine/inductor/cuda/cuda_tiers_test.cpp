// Tiered compilation: the quick tier (inductor/nvptx/nvptx_quick.cpp) lowers pointwise kernels and rows of a constant
// length (also with column sums beside them) to PTX and leaves the rest to the optimised tier (CPU-only); on a GPU
// (skipped without one) a graph's first launch runs the quick tier, a later one the optimised kernel compiled in the
// background, both equal to the interpreter, and bit for bit equal to each other where the math is the same.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "cuda_test_kernels.h"
#include "cuda_test_support.h"
#include "inductor/cuda/bytecode_tier.h"
#include "inductor/cuda/cuda_launcher.h"
#include "inductor/cuda/cuda_tiers.h"
#include "inductor/ir/kernel_bytecode_encoder.h"
#include "inductor/ir/kernel_launcher.h"
#include "inductor/nvptx/nvptx_codegen.h"

namespace eng::inductor::cuda {
namespace {

using namespace samples;
using namespace cudatest;

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(CudaQuickTier, CoversPointwiseAndConstantRowsOnly) {
    for (const Kernel& kernel : {pointwiseChain(1003), layerNormBf16(7, 1024), softmaxConstant(5, 300), inPlaceSymbolic(), rowAndColumnReductions(8, 64)}) {
        SCOPED_TRACE(kernel.name);
        ASSERT_TRUE(nvptx::quickTierCovers(kernel, "sm_90"));
        const std::string ptx = nvptx::generateQuickPtx(kernel, "sm_90").ptx;
        EXPECT_TRUE(has(ptx, ".visible .entry " + kernel.name + "(")) << ptx.substr(0, 400);
        EXPECT_TRUE(has(ptx, ".maxntid 128, 1, 1")) << ptx.substr(0, 400);
        EXPECT_FALSE(has(ptx, ".extern .func")) << ptx;  // libdevice linked in
        // Column sums beside the rows' (B6): a second entry combines the pieces' partials, after the workspace
        // and the number of pieces.
        EXPECT_EQ(has(ptx, ".visible .entry " + nvptx::quickFinishEntry(kernel.name) + "("), kernel.hasOuterRangeReductions()) << ptx.substr(0, 400);
    }
    // A symbolic row length (also beside column sums), a full sum (one thread would read everything) and an
    // architecture LLVM does not know stay with the optimised tier.
    EXPECT_FALSE(nvptx::quickTierCovers(softmaxRows(5), "sm_90"));
    EXPECT_FALSE(nvptx::quickTierCovers(fullSum(1000), "sm_90"));
    EXPECT_FALSE(nvptx::quickTierCovers(rowAndColumnReductions(8, 64, true), "sm_90"));
    EXPECT_FALSE(nvptx::quickTierCovers(pointwiseChain(10), "sm_100"));
}

// The device's results of every written buffer after one launch of kernel `index`.
std::vector<std::vector<unsigned char>> launchOnce(KernelLauncher& launcher, size_t index, const Kernel& kernel,
                                                   const std::vector<std::vector<unsigned char>>& inputs) {
    auto& device = eng::cuda::DeviceContext::get(0);
    std::vector<void*> pointers;
    for (const auto& host : inputs) {
        pointers.push_back(device.allocate(host.size() + 16));
        device.copyHostToDevice(pointers.back(), host.data(), host.size());
    }
    launcher.launch(index, pointers, {});
    std::vector<std::vector<unsigned char>> results = inputs;
    for (size_t b = 0; b < kernel.buffers.size(); ++b) device.copyDeviceToHost(results[b].data(), pointers[b], results[b].size());
    for (void* pointer : pointers) device.deallocate(pointer);
    return results;
}

std::vector<const void*> pointersOf(const std::vector<std::vector<unsigned char>>& buffers) {
    std::vector<const void*> pointers;
    for (const auto& buffer : buffers) pointers.push_back(buffer.data());
    return pointers;
}

// One launch of kernel `index` on fresh random inputs, its written buffers against the reference interpreter's.
void expectLaunchMatchesReference(KernelLauncher& launcher, size_t index, const Kernel& kernel, const RunOptions& options, const std::string& context) {
    auto inputs = randomBuffers(kernel, {}, options);
    auto expected = inputs;
    std::vector<void*> hostPointers;
    for (auto& host : expected) hostPointers.push_back(host.data());
    interpretKernel(kernel, hostPointers, {});
    expectWrittenBuffersMatch(kernel, expected, pointersOf(launchOnce(launcher, index, kernel, inputs)), options.tolerance, context);
}

TEST(CudaTiers, QuickTierRunsFirstThenTheOptimisedKernelReplacesIt) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA: " << eng::cuda::driverStatus().reason;
    ::setenv("CWB_CUDA_TIERS", "1", 1);
    // Each kernel's second launch, not the first after the background compile finished (which may be before the
    // other kernels' first launches: the driver's JIT of the first quick kernel can outlast NVRTC), swaps.
    ::setenv("CWB_CUDA_QUICK_LAUNCHES", "1", 1);
    ::setenv("CWB_CUDA_TIER_SWAP", "launches", 1);
    ::setenv("CWB_CUDA_INTERPRETER", "0", 1);  // the quick tier, not the interpreter tier (the next test's)
    // Sizes no earlier run had, so the kernel cache misses and the quick tier is taken.
    const int64_t rows = 1000 + static_cast<int64_t>(std::random_device{}() % 1000);
    const std::vector<Kernel> kernels = {pointwiseChain(rows * 37 + 3), softmaxConstant(rows, 300), layerNormBf16(rows, 256),
                                         rowAndColumnReductions(rows, 96)};
    std::vector<RunOptions> options(4);
    options[1] = RunOptions{};
    options[1].tolerance.relative = 1e-4;
    options[1].tolerance.absolute = 1e-5;
    options[2].fill.specials = false;
    options[2].tolerance.absolute = 1e-3;
    options[3].tolerance.relative = 1e-4;  // column sums over the rows in pieces, combined in piece order
    options[3].tolerance.absolute = 2e-6 * static_cast<double>(rows);
    registerCudaLauncher();
    std::unique_ptr<KernelLauncher> launcher = makeLauncher(tensor::DeviceType::CUDA, kernels, 0, {});
    ::unsetenv("CWB_CUDA_QUICK_LAUNCHES");
    ::unsetenv("CWB_CUDA_TIER_SWAP");
    ::unsetenv("CWB_CUDA_INTERPRETER");
    std::vector<std::vector<std::vector<unsigned char>>> inputs, expected, quick;
    for (size_t i = 0; i < kernels.size(); ++i) {  // every kernel's first launch: the quick tier
        SCOPED_TRACE(kernels[i].name);
        EXPECT_TRUE(has(launcher->compileInfo(i).how, "quick tier")) << launcher->compileInfo(i).how;
        EXPECT_TRUE(has(launcher->artifact(i, {}).launchConfig, "quick tier"));
        inputs.push_back(randomBuffers(kernels[i], {}, options[i]));
        expected.push_back(inputs.back());
        std::vector<void*> hostPointers;
        for (auto& host : expected.back()) hostPointers.push_back(host.data());
        interpretKernel(kernels[i], hostPointers, {});
        quick.push_back(launchOnce(*launcher, i, kernels[i], inputs[i]));
        expectWrittenBuffersMatch(kernels[i], expected[i], pointersOf(quick[i]), options[i].tolerance, "quick tier");
    }
    for (size_t i = 0; i < kernels.size(); ++i) {  // the second: the optimised kernels
        SCOPED_TRACE(kernels[i].name);
        const auto optimised = launchOnce(*launcher, i, kernels[i], inputs[i]);
        EXPECT_TRUE(has(launcher->compileInfo(i).how, "in the background, after 1 launch(es) of the quick tier")) << launcher->compileInfo(i).how;
        EXPECT_FALSE(has(launcher->artifact(i, {}).launchConfig, "quick tier"));
        expectWrittenBuffersMatch(kernels[i], expected[i], pointersOf(optimised), options[i].tolerance, "optimised tier");
        if (!kernels[i].isReduction()) {
            EXPECT_EQ(quick[i], optimised) << "pointwise tiers differ";
        }
    }
}

TEST(CudaInterpreterTier, EmbeddedForTheListedArchitecturesAndNewer) {
    const std::string listed = bytecodeTierArchitectures();
    if (listed.empty()) GTEST_SKIP() << "built without nvcc: no interpreter tier";
    EXPECT_TRUE(bytecodeTierAvailable("sm_90")) << listed;
    EXPECT_TRUE(bytecodeTierAvailable("sm_80")) << listed;
    EXPECT_TRUE(bytecodeTierAvailable("sm_999")) << listed;  // the newest's PTX, JIT-compiled once
    EXPECT_FALSE(bytecodeTierAvailable("sm_75")) << listed;
}

TEST(CudaInterpreterTier, LeavesToTheQuickTierWhatItRunsSlowly) {
    EXPECT_FALSE(bytecodeSlowerThanQuickTier(pointwiseChain(1 << 20)));
    EXPECT_FALSE(bytecodeSlowerThanQuickTier(softmaxConstant(8192, 1024)));
    EXPECT_FALSE(bytecodeSlowerThanQuickTier(softmaxRows(8)));  // a symbolic row length: the quick tier does not cover it
    EXPECT_FALSE(bytecodeSlowerThanQuickTier(softmaxConstant(8192, 8192)));  // B2: a block a row
    EXPECT_FALSE(bytecodeSlowerThanQuickTier(rowAndColumnReductions(8192, 8192)));  // B6: a block a piece of rows
    EXPECT_TRUE(bytecodeSlowerThanQuickTier(fullSum(1 << 20)));  // one row of 2^20: one block
}

TEST(CudaInterpreterTier, LongRowsAndPiecesRunABlockARow) {
    EXPECT_EQ(bytecodeRowThreads(300, false) % 32, 0);
    EXPECT_GE(bytecodeRowThreads(300, false), 32);
    EXPECT_EQ(bytecodeRowThreads(8192, false), 256);  // B2's rows
    EXPECT_EQ(bytecodeRowThreads(8192, true), 256);   // B6's pieces
    EXPECT_EQ(bytecodeRowThreads(40, false), 1);      // short rows: a thread a row
    EXPECT_EQ(bytecodeRowThreads(6, true), 32);       // pieces: a block however short the row
}

TEST(CudaInterpreterTier, RunsFirstWithNothingCompiledThenTheOptimisedKernelReplacesIt) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA: " << eng::cuda::driverStatus().reason;
    if (!bytecodeTierAvailable(eng::cuda::DeviceContext::get(0).arch())) GTEST_SKIP() << "no interpreter tier for this device";
    ::setenv("CWB_CUDA_INTERPRETER", "1", 1);
    ::setenv("CWB_CUDA_QUICK_LAUNCHES", "1", 1);
    ::setenv("CWB_CUDA_TIER_SWAP", "launches", 1);
    const int64_t rows = 1000 + static_cast<int64_t>(std::random_device{}() % 1000);
    // Short rows a thread a row, long ones (300 and up) a block a row, B6's form (rowAndColumnReductions) a block a
    // piece of rows; storeThenReload reads in its second pass what other threads stored in its first.
    const std::vector<Kernel> kernels = {pointwiseChain(rows * 37 + 3), softmaxConstant(rows, 300), layerNormBf16(rows, 256),
                                         integerWhereAndAny(rows, 11), columnSumAndArgmax(rows, 40), softmaxConstant(rows / 16, 8192 + rows),
                                         rowAndColumnReductions(rows, 1000), rowAndColumnReductions(rows, 40), storeThenReload(rows / 8, 3000)};
    std::vector<RunOptions> options(kernels.size());
    for (RunOptions& o : options) {
        o.tolerance.relative = 1e-4;  // the optimised kernels' float math and order of sums
        o.tolerance.absolute = 2e-6 * static_cast<double>(rows);
    }
    options[2].fill.specials = false;
    options[2].tolerance.absolute = 1e-3;
    registerCudaLauncher();
    std::unique_ptr<KernelLauncher> launcher = makeLauncher(tensor::DeviceType::CUDA, kernels, 0, {});
    ::unsetenv("CWB_CUDA_QUICK_LAUNCHES");
    ::unsetenv("CWB_CUDA_TIER_SWAP");
    ::unsetenv("CWB_CUDA_INTERPRETER");
    for (int round = 0; round < 2; ++round) {  // the first launches on the interpreter, the second on the optimised kernels
        for (size_t i = 0; i < kernels.size(); ++i) {
            SCOPED_TRACE(kernels[i].name + (round == 0 ? " (interpreter tier)" : " (optimised)"));
            // Before the first launch it is the interpreter's; the optimised kernel takes over at a later launch
            // (the first of round 1 for kernel 0), so round 1 reads the tier after its launch.
            auto expectTier = [&] {
                const std::string how = launcher->compileInfo(i).how;
                EXPECT_EQ(has(how, "GPU interpreter tier"), round == 0) << how;
                EXPECT_EQ(has(launcher->artifact(i, {}).launchConfig, "interpreter tier"), round == 0);
            };
            if (round == 0) expectTier();
            expectLaunchMatchesReference(*launcher, i, kernels[i], options[i], round == 0 ? "interpreter tier" : "optimised");
            if (round == 1) {
                expectTier();
                EXPECT_TRUE(has(launcher->compileInfo(i).how, "after 1 launch(es) of the interpreter tier")) << launcher->compileInfo(i).how;
            }
        }
    }
}

// Every element op per dtype, casts, 16-bit math, index values and integer reductions on the interpreter tier.
TEST(CudaInterpreterTier, MatchesTheReferenceOnEveryOpAndDtype) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA: " << eng::cuda::driverStatus().reason;
    if (!bytecodeTierAvailable(eng::cuda::DeviceContext::get(0).arch())) GTEST_SKIP() << "no interpreter tier for this device";
    ::setenv("CWB_CUDA_INTERPRETER", "1", 1);
    ::setenv("CWB_CUDA_QUICK_LAUNCHES", "1000", 1);
    ::setenv("CWB_CUDA_TIER_SWAP", "launches", 1);
    // Sizes of this run: a kernel an earlier test of the process compiled is in the kernel cache and starts optimised.
    const int64_t r = static_cast<int64_t>(std::random_device{}() % 512);
    const std::vector<Kernel> kernels = {allUnaryFloat(1027 + r, DType::Float32), allUnaryFloat(1027 + r, DType::Float64),
                                         allBinaryFloat(2051 + r, DType::Float32), allBinaryFloat(2051 + r, DType::BFloat16),
                                         allIntegerOps(1031 + r, DType::Int32), allIntegerOps(1031 + r, DType::Int64), boolOps(1031 + r),
                                         casts(2053 + r), halfMath(4103 + r), indexValues3d(3, 5, 7 + r), integerReductions(6, 40 + r)};
    registerCudaLauncher();
    std::unique_ptr<KernelLauncher> launcher = makeLauncher(tensor::DeviceType::CUDA, kernels, 0, {});
    ::unsetenv("CWB_CUDA_QUICK_LAUNCHES");
    ::unsetenv("CWB_CUDA_TIER_SWAP");
    ::unsetenv("CWB_CUDA_INTERPRETER");
    for (size_t i = 0; i < kernels.size(); ++i) {
        SCOPED_TRACE(kernels[i].name);
        std::string whyNot;
        const bool encodable = encodeKernelBytecode(kernels[i], &whyNot) != nullptr;
        EXPECT_EQ(has(launcher->compileInfo(i).how, "GPU interpreter tier"), encodable) << launcher->compileInfo(i).how;
        // A kernel over the bytecode's limits (every float32 unary op has more outputs than kMaxBuffers) runs on the
        // quick tier, which its own tests check; this test is the interpreter's.
        if (!encodable) {
            EXPECT_FALSE(whyNot.empty());
            continue;
        }
        expectLaunchMatchesReference(*launcher, i, kernels[i], RunOptions{}, "interpreter tier");
    }
}

// The block forms (a block a long row, a block a piece of rows beside column partials) give the bits of their host
// emulation (runBytecodeOnHost with the same group size and pieces), every call: the threads' partials combine in one
// fixed order. Float inputs from a coarse grid tie often (argmax's first position).
TEST(CudaInterpreterTier, BlockFormsGiveTheirHostEmulationsBits) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA: " << eng::cuda::driverStatus().reason;
    if (!bytecodeTierAvailable(eng::cuda::DeviceContext::get(0).arch())) GTEST_SKIP() << "no interpreter tier for this device";
    ::setenv("CWB_CUDA_INTERPRETER", "1", 1);
    ::setenv("CWB_CUDA_QUICK_LAUNCHES", "1000", 1);
    ::setenv("CWB_CUDA_TIER_SWAP", "launches", 1);
    const int64_t rows = 100 + static_cast<int64_t>(std::random_device{}() % 100);
    const std::vector<Kernel> kernels = {integerReductions(rows, 3000), multiDimReduction(rows, 40, 75), rowAndColumnReductions(rows * 7, 1000)};
    registerCudaLauncher();
    std::unique_ptr<KernelLauncher> launcher = makeLauncher(tensor::DeviceType::CUDA, kernels, 0, {});
    ::unsetenv("CWB_CUDA_QUICK_LAUNCHES");
    ::unsetenv("CWB_CUDA_TIER_SWAP");
    ::unsetenv("CWB_CUDA_INTERPRETER");
    RunOptions options;
    options.fill.ties = true;
    for (size_t i = 0; i < kernels.size(); ++i) {
        const Kernel& kernel = kernels[i];
        SCOPED_TRACE(kernel.name);
        ASSERT_TRUE(has(launcher->compileInfo(i).how, "GPU interpreter tier")) << launcher->compileInfo(i).how;
        auto program = encodeKernelBytecode(kernel);
        ASSERT_TRUE(program);
        const bytecode::Launch l = bytecodeLaunch(kernel, program.get(), std::vector<void*>(kernel.buffers.size()), {});
        const bool inPieces = bytecodeRunsInPieces(kernel);
        const int64_t group = bytecodeRowThreads(l.reductionPoints, inPieces);
        ASSERT_GT(group, 1);
        auto inputs = randomBuffers(kernel, {}, options);
        auto emulated = inputs;
        std::vector<void*> hostPointers;
        for (auto& host : emulated) hostPointers.push_back(host.data());
        runBytecodeOnHost(kernel, *program, hostPointers, {}, inPieces ? bytecodePieces(*program, l.outerPoints, l.reductionPoints) : 1, group);
        for (int call = 0; call < 2; ++call) {
            const auto device = launchOnce(*launcher, i, kernel, inputs);
            // Equal values (a NaN's payload and sign differ: the GPU's arithmetic gives its canonical NaN).
            const Tolerance exact{0, 0, 0, 0};
            for (size_t b = 0; b < kernel.buffers.size(); ++b) {
                if (!kernel.buffers[b].written) continue;
                const DType dtype = kernel.buffers[b].dtype;
                EXPECT_TRUE(compareBuffers(kernel.buffers[b].name, dtype, emulated[b].data(), device[b].data(),
                                           static_cast<int64_t>(emulated[b].size() / tensor::itemSize(dtype)), exact))
                    << "call " << call;
            }
        }
        // ... and the reference's values, up to the order of sums.
        RunOptions reference = options;
        reference.tolerance.relative = 1e-4;
        reference.tolerance.absolute = 1e-3;
        expectLaunchMatchesReference(*launcher, i, kernel, reference, "interpreter tier");
    }
}

}  // namespace
}  // namespace eng::inductor::cuda
