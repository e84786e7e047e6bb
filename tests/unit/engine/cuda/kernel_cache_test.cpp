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

TEST(KernelCacheDir, FollowsXdgCacheHome) {
    const char* saved = std::getenv("XDG_CACHE_HOME");
    const char* savedExplicit = std::getenv("CWB_KERNEL_CACHE_DIR");
    const std::string keepExplicit = savedExplicit ? savedExplicit : "";
    const std::string keep = saved ? saved : "";
    unsetenv("CWB_KERNEL_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/tmp/xdg-cache", 1);
    EXPECT_EQ(eng::cuda::defaultKernelCacheDir(), fs::path("/tmp/xdg-cache/cwb/kernels"));
    setenv("CWB_KERNEL_CACHE_DIR", "/tmp/explicit-kernels", 1);
    EXPECT_EQ(eng::cuda::defaultKernelCacheDir(), fs::path("/tmp/explicit-kernels"));
    if (saved) setenv("XDG_CACHE_HOME", keep.c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
    if (savedExplicit) setenv("CWB_KERNEL_CACHE_DIR", keepExplicit.c_str(), 1);
    else unsetenv("CWB_KERNEL_CACHE_DIR");
}

}  // namespace
