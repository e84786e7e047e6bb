// NVRTC compiles CUDA C++ to an sm_90 CUBIN without a GPU, and the kernel cache serves repeats from memory,
// other processes (a fresh compiler) from disk, and never serves a different source, arch or damaged file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cuda/driver.h"
#include "cuda/nvrtc_compiler.h"

namespace {

namespace fs = std::filesystem;
using eng::cuda::CudaError;
using eng::cuda::KernelCompiler;
using eng::cuda::KernelSource;

const KernelSource kScale{"cwb_test_scale",
                          "extern \"C\" __global__ void cwb_test_scale(float* x, float s, int n) {\n"
                          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= s;\n}\n"};

class KernelCacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cwb_kernel_cache_test_" + std::to_string(std::random_device{}()));
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

bool isElf(const std::string& binary) { return binary.size() > 4 && binary.compare(0, 4, "\x7f" "ELF") == 0; }

TEST_F(KernelCacheTest, CompilesToCubinForSm90AndCachesInMemory) {
    KernelCompiler compiler(dir_);
    auto first = compiler.compile(kScale, "sm_90");
    EXPECT_TRUE(isElf(first->cubin));
    EXPECT_EQ(first->entry, "cwb_test_scale");
    EXPECT_EQ(first->arch, "sm_90");
    EXPECT_EQ(compiler.stats().compiles, 1);
    auto second = compiler.compile(kScale, "sm_90");
    EXPECT_EQ(second.get(), first.get());
    EXPECT_EQ(compiler.stats().memoryHits, 1);
    EXPECT_EQ(compiler.stats().compiles, 1);
}

TEST_F(KernelCacheTest, AFreshCompilerReadsTheDiskCache) {
    std::string cubin;
    {
        KernelCompiler writer(dir_);
        cubin = writer.compile(kScale, "sm_90")->cubin;
        EXPECT_TRUE(fs::exists(writer.diskCache().pathFor(writer.cacheKey(kScale, "sm_90"))));
    }
    KernelCompiler reader(dir_);
    auto loaded = reader.compile(kScale, "sm_90");
    EXPECT_EQ(reader.stats().diskHits, 1);
    EXPECT_EQ(reader.stats().compiles, 0);
    EXPECT_EQ(loaded->cubin, cubin);
    // The atomic write leaves only the final file behind.
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) {
        ++files;
        EXPECT_EQ(entry.path().extension(), ".cubin") << entry.path();
    }
    EXPECT_EQ(files, 1);
}

TEST_F(KernelCacheTest, KeyCoversSourceArchAndNvrtcVersion) {
    KernelCompiler compiler(dir_);
    const std::string key = compiler.cacheKey(kScale, "sm_90");
    EXPECT_NE(key.find("nvrtc " + eng::cuda::nvrtcVersionText()), std::string::npos);
    EXPECT_NE(key, compiler.cacheKey(kScale, "sm_80"));
    KernelSource changed = kScale;
    changed.code += "// changed\n";
    EXPECT_NE(key, compiler.cacheKey(changed, "sm_90"));
    compiler.compile(kScale, "sm_90");
    compiler.compile(kScale, "sm_80");
    compiler.compile(changed, "sm_90");
    EXPECT_EQ(compiler.stats().compiles, 3);
}

TEST_F(KernelCacheTest, DamagedOrForeignCacheFilesAreMisses) {
    KernelCompiler writer(dir_);
    const std::string key = writer.cacheKey(kScale, "sm_90");
    writer.compile(kScale, "sm_90");
    const fs::path file = writer.diskCache().pathFor(key);
    // Truncated: the header survives but the key does not.
    fs::resize_file(file, 40);
    KernelCompiler afterTruncation(dir_);
    EXPECT_TRUE(isElf(afterTruncation.compile(kScale, "sm_90")->cubin));
    EXPECT_EQ(afterTruncation.stats().diskHits, 0);
    EXPECT_EQ(afterTruncation.stats().compiles, 1);
    // Another key's entry under this file name (as a hash collision would leave) is not served either.
    const std::string otherKey = key + "x";
    writer.diskCache().store(otherKey, "not this kernel");
    fs::rename(writer.diskCache().pathFor(otherKey), file);
    EXPECT_FALSE(writer.diskCache().load(key).has_value());
}

TEST_F(KernelCacheTest, CompileErrorsCarryTheNvrtcLog) {
    KernelCompiler compiler(dir_);
    const KernelSource broken{"cwb_broken", "extern \"C\" __global__ void cwb_broken() { undeclared_name = 1; }\n"};
    try {
        compiler.compile(broken, "sm_90");
        FAIL() << "expected a CudaError";
    } catch (const CudaError& e) {
        EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos) << e.what();
    }
    EXPECT_THROW(compiler.compile(kScale, "compute_90"), CudaError);  // NVRTC gives no CUBIN for virtual archs
}

KernelSource scaleBy(int factor) {
    KernelSource source = kScale;
    source.entry = "cwb_test_scale_" + std::to_string(factor);
    source.code = "extern \"C\" __global__ void " + source.entry + "(float* x, int n) {\n  int i = threadIdx.x;\n  if (i < n) x[i] *= " +
                  std::to_string(factor) + ".0f;\n}\n";
    return source;
}

TEST_F(KernelCacheTest, CompileAllCompilesInParallelKeepingOrderAndTellsWhereEachCameFrom) {
    std::vector<KernelSource> sources;
    for (int factor = 2; factor < 7; ++factor) sources.push_back(scaleBy(factor));
    sources.push_back(sources[1]);  // a repeat inside one batch compiles once and shares the kernel
    KernelCompiler compiler(dir_);
    auto outcomes = compiler.compileAll(sources, "sm_90", 4);
    ASSERT_EQ(outcomes.size(), sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
        EXPECT_EQ(outcomes[i].kernel->entry, sources[i].entry);
        EXPECT_TRUE(isElf(outcomes[i].kernel->cubin));
    }
    EXPECT_EQ(outcomes[1].kernel.get(), outcomes[5].kernel.get());
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(outcomes[i].origin, eng::cuda::KernelOrigin::Nvrtc);
        EXPECT_GT(outcomes[i].seconds, 0.0);
    }
    EXPECT_EQ(outcomes[5].origin, eng::cuda::KernelOrigin::SameSource);
    EXPECT_EQ(compiler.stats().compiles, 5);
    EXPECT_EQ(compiler.stats().sameSource, 1);
    auto again = compiler.compileAll(sources, "sm_90");
    for (size_t i = 0; i < again.size(); ++i) {
        EXPECT_EQ(again[i].origin, i == 5 ? eng::cuda::KernelOrigin::SameSource : eng::cuda::KernelOrigin::MemoryCache);
        EXPECT_EQ(again[i].seconds, 0.0);
    }
    KernelCompiler reader(dir_);
    for (const auto& outcome : reader.compileAll(sources, "sm_90", 2)) EXPECT_NE(outcome.origin, eng::cuda::KernelOrigin::Nvrtc);
    EXPECT_EQ(reader.stats().diskHits, 5);
    EXPECT_EQ(reader.stats().compiles, 0);
}

TEST_F(KernelCacheTest, CompileAllFinishesTheOthersAndThenReportsAFailure) {
    KernelCompiler compiler(dir_);
    const KernelSource broken{"cwb_broken", "extern \"C\" __global__ void cwb_broken() { undeclared_name = 1; }\n"};
    try {
        compiler.compileAll({scaleBy(2), broken, scaleBy(3)}, "sm_90", 3);
        FAIL() << "expected a CudaError";
    } catch (const CudaError& e) {
        EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos) << e.what();
    }
    EXPECT_EQ(compiler.stats().compiles, 2);
}

TEST(KernelCacheDir, FollowsXdgCacheHome) {
    const char* saved = std::getenv("XDG_CACHE_HOME");
    const char* savedExplicit = std::getenv("CWB_KERNEL_CACHE_DIR");
    const std::string keepExplicit = savedExplicit ? savedExplicit : "";
    const std::string keep = saved ? saved : "";
    unsetenv("CWB_KERNEL_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/tmp/xdg-cache", 1);
    EXPECT_EQ(eng::kernel_cache::defaultKernelCacheDir(), fs::path("/tmp/xdg-cache/cwb/kernels"));
    setenv("CWB_KERNEL_CACHE_DIR", "/tmp/explicit-kernels", 1);
    EXPECT_EQ(eng::kernel_cache::defaultKernelCacheDir(), fs::path("/tmp/explicit-kernels"));
    if (saved) setenv("XDG_CACHE_HOME", keep.c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
    if (savedExplicit) setenv("CWB_KERNEL_CACHE_DIR", keepExplicit.c_str(), 1);
    else unsetenv("CWB_KERNEL_CACHE_DIR");
}

}  // namespace
