// The on-disk cache of generated CPU kernels: a kernel compiled once is loaded, not compiled, by the next compile
// of the same kernel IR (another process, or here another function with the same body), with the same results;
// CWB_KERNEL_CACHE=0 turns it off.
#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

#include "inductor_support.h"

namespace {

namespace ev = eng::vm;

// Runs one_softmax_compiled_twice.py with the cache in a fresh folder; returns the two compiles' output code.
std::vector<std::string> compileTwice(bool cacheOn) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("cwb_cpu_kernel_cache_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    setenv("CWB_KERNEL_CACHE_DIR", dir.c_str(), 1);
    if (cacheOn) unsetenv("CWB_KERNEL_CACHE");
    else setenv("CWB_KERNEL_CACHE", "0", 1);
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(enginetest::testProgram("inductor/one_softmax_compiled_twice.py"), "main", {});
    unsetenv("CWB_KERNEL_CACHE_DIR");
    unsetenv("CWB_KERNEL_CACHE");
    std::filesystem::remove_all(dir);
    EXPECT_TRUE(run.ok) << run.error;
    if (!run.ok) return {};
    EXPECT_LT(run.returned.asFloat(), 1e-5);
    std::vector<std::string> sources;
    for (const auto& code : run.events.code) sources.push_back(code.source);
    return sources;
}

TEST(CpuKernelCache, SecondCompileOfTheSameKernelsLoadsThemFromDisk) {
    auto sources = compileTwice(true);
    ASSERT_EQ(sources.size(), 2u);
    EXPECT_NE(sources[0].find("# code from LLVM in "), std::string::npos) << sources[0];
    EXPECT_EQ(sources[0].find("# code from the disk cache in "), std::string::npos) << sources[0];
    EXPECT_NE(sources[1].find("# code from the disk cache in "), std::string::npos) << sources[1];
    EXPECT_EQ(sources[1].find("# code from LLVM in "), std::string::npos) << sources[1];
}

TEST(CpuKernelCache, OffWithCwbKernelCacheZero) {
    auto sources = compileTwice(false);
    ASSERT_EQ(sources.size(), 2u);
    for (const std::string& source : sources) EXPECT_EQ(source.find("# code from the disk cache in "), std::string::npos) << source;
}

}  // namespace
