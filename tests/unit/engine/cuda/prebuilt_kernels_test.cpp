// The flash kernels embedded at build time (cuda/prebuilt_kernels.h): the image format; that the embedded set holds
// every kernel the run time asks for, for each architecture, from the same source (a new variant or an edited
// source cannot fall back to NVRTC unnoticed); and on a GPU that each embedded kernel is NVRTC's own compile of its
// source, and the forward's embedded and NVRTC-compiled kernels write the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/prebuilt_kernels.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_attention.h"
#include "tensor/random.h"

namespace {

namespace fs = std::filesystem;
using namespace eng;
using namespace eng::tensor;

bool defaultFlashSettings() {
    return !std::getenv("CWB_FLASH_TUNING") && !std::getenv("CWB_FLASH_BACKWARD_FUSED") && !std::getenv("CWB_FLASH_BACKWARD_WGMMA") &&
           !std::getenv("CWB_PREBUILT_KERNELS");
}

// What the run time asks for: the forward in its default shape for a device's shared memory (48 KiB or the H100's
// 227), every backward pass it launches; for each dtype, head dim and causal flag.
std::vector<cuda::KernelSource> kernelsTheRunTimeAsksFor() {
    std::vector<cuda::KernelSource> sources;
    for (DType dtype : {DType::Float16, DType::BFloat16})
        for (int headDim : {16, 32, 64, 128})
            for (bool causal : {false, true}) {
                for (int limit : {48 * 1024, 227 * 1024})
                    sources.push_back(cudagen::flashAttentionKernel(dtype, headDim, causal, cudagen::flashForwardShape(headDim, causal, limit)));
                for (int pass : cudagen::flashBackwardPasses(headDim)) sources.push_back(cudagen::flashAttentionBackwardKernel(dtype, headDim, causal, pass));
            }
    return sources;
}

// CWB_FLASH_KERNEL_ARCHS, the build's list ("80,90,100,120").
std::vector<int> embeddedArchs() {
    std::vector<int> archs;
    std::string list = CWB_FLASH_KERNEL_ARCHS;
    for (size_t at = 0; at < list.size();) {
        const size_t end = std::min(list.find(',', at), list.size());
        archs.push_back(std::stoi(list.substr(at, end - at)));
        at = end + 1;
    }
    return archs;
}

fs::path privateDir(const char* what) { return fs::temp_directory_path() / (std::string(what) + std::to_string(std::random_device{}())); }

TEST(PrebuiltKernels, ImageFormatRoundTrips) {
    const std::string cubin("\x7f" "ELF\0\n binary\n", 14), ptx = "// ptx\n.version 9.0\n";
    const std::string image = cuda::packPrebuiltKernels({{"k_one", "sm_90", 0x0123456789abcdefull, cubin}, {"k_two", "compute_120", 7, ptx}});
    const std::vector<cuda::PrebuiltKernel> kernels = cuda::unpackPrebuiltKernels(image);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[0].entry, "k_one");
    EXPECT_EQ(kernels[0].arch, "sm_90");
    EXPECT_EQ(kernels[0].digest, 0x0123456789abcdefull);
    EXPECT_EQ(kernels[0].image, cubin);
    EXPECT_FALSE(kernels[0].ptx());
    EXPECT_EQ(kernels[1].image, ptx);
    EXPECT_TRUE(kernels[1].ptx());
    EXPECT_THROW(cuda::unpackPrebuiltKernels("not an image"), cuda::CudaError);
    EXPECT_THROW(cuda::unpackPrebuiltKernels(image.substr(0, image.size() - 1)), cuda::CudaError) << "a truncated record";
    EXPECT_NE(cuda::sourceDigest("a"), cuda::sourceDigest("b"));
}

TEST(PrebuiltKernels, CoverEveryFlashKernelTheRunTimeAsksFor) {
    if (!defaultFlashSettings()) GTEST_SKIP() << "a flash or prebuilt setting changes what the run time asks for";
    const std::vector<cuda::KernelSource> sources = kernelsTheRunTimeAsksFor();
    std::set<std::string> asked;
    for (const cuda::KernelSource& source : sources) {
        SCOPED_TRACE(source.entry);
        asked.insert(source.entry);
        // Machine code for each architecture the build names, and for a later minor of its major (the same code);
        // PTX past the newest.
        int newest = 0;
        const std::vector<int> archs = embeddedArchs();
        for (int arch : archs) {
            newest = std::max(newest, arch);
            for (int device : {arch, arch + 1}) {
                if (device != arch && std::count(archs.begin(), archs.end(), device)) continue;  // (its own code)
                const cuda::PrebuiltKernel* kernel = cuda::findPrebuilt(source, "sm_" + std::to_string(device));
                ASSERT_NE(kernel, nullptr) << device;
                EXPECT_EQ(kernel->arch, "sm_" + std::to_string(arch)) << device;
            }
        }
        const cuda::PrebuiltKernel* later = cuda::findPrebuilt(source, "sm_" + std::to_string(newest / 10 * 10 + 10));
        ASSERT_NE(later, nullptr);
        EXPECT_EQ(later->arch, "compute_" + std::to_string(newest));
        EXPECT_EQ(cuda::findPrebuilt(source, "sm_75"), nullptr) << "no flash kernel before sm_80 (mma.sync m16n8k16 bf16)";
        // Another source under the same entry point (an edit the build has not seen) is not served.
        cuda::KernelSource edited = source;
        edited.code += "\n";
        EXPECT_EQ(cuda::findPrebuilt(edited, "sm_" + std::to_string(archs.front())), nullptr);
    }
    // ... and nothing else: every embedded kernel is one of them.
    for (const cuda::PrebuiltKernel& kernel : cuda::prebuiltKernels()) EXPECT_TRUE(asked.count(kernel.entry)) << kernel.entry << " is embedded but never asked for";
}

// KernelCompiler serves the embedded kernel before any cache, and it is NVRTC's own compile of the same source.
TEST(PrebuiltKernels, CompilerServesTheEmbeddedCubinThatNvrtcWouldMake) {
    if (!defaultFlashSettings() || std::getenv("CWB_NVRTC_OPTIONS")) GTEST_SKIP() << "settings change the kernels or NVRTC's options";
    const fs::path dir = privateDir("cwb_prebuilt_test_");
    {
        const cuda::KernelSource forward = cudagen::flashAttentionKernel(DType::BFloat16, 64, true, cudagen::flashForwardShape(64, true, 227 * 1024));
        const cuda::KernelSource backward = cudagen::flashAttentionBackwardKernel(DType::Float16, 128, false, 1);
        for (const cuda::KernelSource& source : {forward, backward}) {
            SCOPED_TRACE(source.entry);
            cuda::KernelCompiler withImage(dir), nvrtcOnly(dir / "nvrtc", false);
            const cuda::KernelCompileOutcome served = withImage.compileTimed(source, "sm_90");
            EXPECT_EQ(served.origin, cuda::KernelOrigin::Prebuilt);
            EXPECT_EQ(withImage.stats().prebuilt, 1);
            EXPECT_EQ(served.kernel->entry, source.entry);
            const cuda::KernelCompileOutcome compiled = nvrtcOnly.compileTimed(source, "sm_90");
            EXPECT_EQ(compiled.origin, cuda::KernelOrigin::Nvrtc);
            EXPECT_TRUE(served.kernel->cubin == compiled.kernel->cubin) << "the embedded CUBIN differs from NVRTC's";
        }
    }
    fs::remove_all(dir);
}

class PrebuiltKernelsOnGpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (!cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << cuda::driverStatus().reason;
        if (!defaultFlashSettings() || std::getenv("CWB_NVRTC_OPTIONS")) GTEST_SKIP() << "settings change the kernels or NVRTC's options";
    }
};

// On this device's architecture: each embedded kernel that is machine code for it is byte for byte what NVRTC makes.
TEST_F(PrebuiltKernelsOnGpu, EmbeddedCubinsAreNvrtcsCompiles) {
    cuda::DeviceContext& context = cuda::DeviceContext::get(0);
    const std::vector<cuda::KernelSource> sources = cudagen::flashLibraryKernels();
    const fs::path dir = privateDir("cwb_prebuilt_gpu_test_");
    {
        cuda::KernelCompiler nvrtcOnly(dir, false);
        const std::vector<cuda::KernelCompileOutcome> compiled = nvrtcOnly.compileAll(sources, context.arch());
        int compared = 0;
        for (size_t i = 0; i < sources.size(); ++i) {
            const cuda::PrebuiltKernel* kernel = cuda::findPrebuilt(sources[i], context.arch());
            ASSERT_NE(kernel, nullptr) << sources[i].entry << " on " << context.arch();
            if (kernel->arch != context.arch()) continue;  // (another minor's machine code, or PTX)
            EXPECT_TRUE(kernel->image == compiled[i].kernel->cubin) << sources[i].entry;
            ++compared;
        }
        if (compared == 0) std::printf("(no machine code embedded for %s itself: compared none)\n", context.arch().c_str());
    }
    fs::remove_all(dir);
}

// The forward, every dtype, head dim and causal flag: the embedded kernel (whatever this device takes: its CUBIN,
// another minor's or PTX) and NVRTC's compile of the same source write the same output and log-sum-exp bits.
TEST_F(PrebuiltKernelsOnGpu, ForwardMatchesNvrtcBitForBit) {
    cuda::DeviceContext& context = cuda::DeviceContext::get(0);
    const Device device = Device::parse("cuda:0");
    manualSeed(31);
    const fs::path dir = privateDir("cwb_prebuilt_forward_test_");
    {
        cuda::KernelCompiler withImage(dir), nvrtcOnly(dir / "nvrtc", false);
        const int64_t batch = 2, heads = 3, l = 131, s = 97;
        for (DType dtype : {DType::Float16, DType::BFloat16})
            for (int e : {16, 32, 64, 128})
                for (bool causal : {false, true}) {
                    SCOPED_TRACE(std::string(dtypeName(dtype)) + " d" + std::to_string(e) + (causal ? " causal" : ""));
                    const cudagen::FlashForwardShape shape = cudagen::flashForwardShape(e, causal, context.sharedPerBlockOptin());
                    const cuda::KernelSource source = cudagen::flashAttentionKernel(dtype, e, causal, shape);
                    const cuda::KernelCompileOutcome embedded = withImage.compileTimed(source, context.arch());
                    ASSERT_EQ(embedded.origin, cuda::KernelOrigin::Prebuilt);
                    const auto compiled = nvrtcOnly.compile(source, context.arch());
                    const Tensor q = to(randn({batch, heads, l, e}), dtype, device), k = to(randn({batch, heads, s, e}), dtype, device),
                                 v = to(randn({batch, heads, s, e}), dtype, device);
                    std::vector<std::vector<double>> outputs, lses;
                    for (const cuda::CompiledKernel* kernel : {embedded.kernel.get(), compiled.get()}) {
                        const Tensor o = empty({batch, heads, l, e}, dtype, device), lse = empty({batch, heads, l}, DType::Float32, device);
                        cudagen::FlashForwardLaunch launch(q, k, v, o, lse, 1.0 / std::sqrt(static_cast<double>(e)), shape);
                        context.launch(*kernel, launch.shape(), launch.args());
                        outputs.push_back(toDoubles(to(o, DType::Float32, kCpu)));
                        lses.push_back(toDoubles(to(lse, std::nullopt, kCpu)));
                    }
                    EXPECT_EQ(outputs[0], outputs[1]);
                    EXPECT_EQ(lses[0], lses[1]);
                    double largest = 0;
                    for (double x : outputs[0]) largest = std::max(largest, std::abs(x));
                    EXPECT_GT(largest, 0.0) << "the kernels wrote nothing";
                }
    }
    fs::remove_all(dir);
}

}  // namespace
