// Kernels whose source differs only in their names (the entry and the renamable parameter names, as the layers of a
// model give) compile once, in a batch and across processes, and share one module under the first kernel's entry name;
// any other difference, or a name that is not declared renamable, still compiles separately.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "cuda/nvrtc_compiler.h"
#include "kernel_cache/disk_cache.h"

namespace {

namespace fs = std::filesystem;
using eng::cuda::KernelCompiler;
using eng::cuda::KernelOrigin;
using eng::cuda::KernelSource;
using eng::kernel_cache::maskNames;

// A layer's kernel: entry `name`, parameters `in` and `out`, a second entry `<name>_finish`.
KernelSource layerKernel(const std::string& name, const std::string& in, const std::string& out, const std::string& factor = "2.0f") {
    KernelSource source;
    source.entry = name;
    source.code = "// kernel " + name + "(" + in + ", " + out + ")\n"
                  "extern \"C\" __global__ void " + name + "(const float* __restrict__ " + in + ", float* __restrict__ " + out +
                  ", int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) " + out + "[i] = " + in + "[i] * " + factor +
                  ";\n}\nextern \"C\" __global__ void " + name + "_finish(float* " + out + ") { " + out + "[0] = 0.0f; }\n";
    source.renamable = {in, out};
    return source;
}

class KernelDedupTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cwb_kernel_dedup_test_" + std::to_string(std::random_device{}()));
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST(MaskNames, MasksIdentifiersAndWhatIsNamedAfterThemSkippingNumbers) {
    const std::string masked = maskNames("x1f + 0x1f + 1e5f + x1f_finish + ax1f + x1fv + x1f_a_v + x1f_a_b", {"x1f", "x1f_a"});
    EXPECT_EQ(masked, "\x01" "0\x01 + 0x1f + 1e5f + \x01" "0\x01_finish + ax1f + x1fv + \x01" "1\x01_v + \x01" "1\x01_b");
    EXPECT_EQ(maskNames("a + b", {"a", "b"}), maskNames("c + d", {"c", "d"}));
    EXPECT_NE(maskNames("a + b", {"a", "b"}), maskNames("d + c", {"c", "d"}));  // not the same renaming
    EXPECT_NE(maskNames("a + b", {"a", "b"}), maskNames("a + b", {"a"}));
    EXPECT_EQ(maskNames("a + a", {"a", "a"}), maskNames("b + b", {"b", "c"}));  // a repeated name is its first index
}

TEST_F(KernelDedupTest, KernelsDifferingOnlyInNamesCompileOnceAndShareTheFirstEntry) {
    KernelCompiler compiler(dir_);
    const std::vector<KernelSource> layers = {layerKernel("cwb_layer0", "buf0", "buf1"), layerKernel("cwb_layer1", "buf7", "buf9"),
                                              layerKernel("cwb_layer2", "primals_3", "buf12"),
                                              layerKernel("cwb_layer3", "buf0", "buf1", "3.0f")};
    EXPECT_EQ(compiler.cacheKey(layers[0], "sm_90"), compiler.cacheKey(layers[1], "sm_90"));
    EXPECT_NE(compiler.cacheKey(layers[0], "sm_90"), compiler.cacheKey(layers[3], "sm_90"));
    auto outcomes = compiler.compileAll(layers, "sm_90", 4);
    EXPECT_EQ(compiler.stats().compiles, 2);
    EXPECT_EQ(compiler.stats().sameSource, 2);
    EXPECT_EQ(outcomes[0].origin, KernelOrigin::Nvrtc);
    EXPECT_EQ(outcomes[1].origin, KernelOrigin::SameSource);
    EXPECT_EQ(outcomes[2].origin, KernelOrigin::SameSource);
    EXPECT_EQ(outcomes[3].origin, KernelOrigin::Nvrtc);
    EXPECT_EQ(outcomes[1].kernel.get(), outcomes[0].kernel.get());
    EXPECT_EQ(outcomes[2].kernel->entry, "cwb_layer0");  // launch the shared module's entry by this name
    EXPECT_EQ(outcomes[3].kernel->entry, "cwb_layer3");
    // Another batch (a later graph) with another name hits the memory cache under the first entry's name.
    auto later = compiler.compile(layerKernel("cwb_layer9", "in9", "out9"), "sm_90");
    EXPECT_EQ(later->entry, "cwb_layer0");
    EXPECT_EQ(compiler.stats().memoryHits, 1);
    // A parameter named like another identifier of the source (`x`, as in threadIdx.x) masks that one too: the
    // texts differ, so it compiles on its own.
    EXPECT_EQ(compiler.compile(layerKernel("cwb_layer8", "x", "out8"), "sm_90")->entry, "cwb_layer8");
    EXPECT_EQ(compiler.stats().compiles, 3);
    // Another process reads it from disk, with the entry name stored beside the binary.
    KernelCompiler reader(dir_);
    auto loaded = reader.compileTimed(layerKernel("cwb_layer5", "buf2", "buf3"), "sm_90");
    EXPECT_EQ(loaded.origin, KernelOrigin::DiskCache);
    EXPECT_EQ(loaded.kernel->entry, "cwb_layer0");
    EXPECT_EQ(loaded.kernel->cubin, outcomes[0].kernel->cubin);
}

TEST_F(KernelDedupTest, NamesNotDeclaredRenamableStillDecideTheKey) {
    KernelCompiler compiler(dir_);
    KernelSource first = layerKernel("cwb_a", "in", "out"), second = layerKernel("cwb_b", "in2", "out2");
    second.renamable = {};  // its parameter names are not masked: the sources differ
    EXPECT_NE(compiler.cacheKey(first, "sm_90"), compiler.cacheKey(second, "sm_90"));
    compiler.compileAll({first, second}, "sm_90", 2);
    EXPECT_EQ(compiler.stats().compiles, 2);
    EXPECT_EQ(compiler.stats().sameSource, 0);
}

}  // namespace
