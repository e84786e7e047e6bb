// Micro-benchmark, not a timed test (disabled by default): pointwiseChain on 2^24 floats and softmaxRows on
// [2048, 2048] against the interpreter and memcpy. Run with --gtest_also_run_disabled_tests; CWB_DUMP_IR=1 prints IR.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../sample_kernels.h"
#include "cpu_test_support.h"

namespace eng::inductor::cpu {
namespace {

template <typename F>
double bestSeconds(int repeats, F&& f) {
    double best = 1e30;
    for (int i = 0; i < repeats; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

void report(const char* what, double bytes, double seconds) {
    std::printf("%-36s %9.3f ms %8.2f GB/s\n", what, seconds * 1e3, bytes / seconds / 1e9);
}

TEST(CpuCodegenBench, DISABLED_PointwiseChainAndSoftmax) {
    const int64_t n = int64_t{1} << 24, rows = 2048, cols = 2048;
    std::vector<Kernel> kernels = {samples::pointwiseChain(n), samples::softmaxRows(rows), samples::columnSumAndArgmax(rows, cols)};
    auto module = compileCpuKernels(kernels);
    std::printf("compile: %.1f ms for 2 kernels\n", module->compileSeconds() * 1e3);
    double bestCompile = 1e30;
    for (int i = 0; i < 8; ++i) bestCompile = std::min(bestCompile, compileCpuKernels(samples::all())->compileSeconds());
    std::printf("compile of the 6 sample kernels: %.1f ms (best of 8)\n", bestCompile * 1e3);
    if (std::getenv("CWB_DUMP_IR")) std::printf("%s\n%s\n%s\n", module->llvmIr(0).c_str(), module->llvmIr(1).c_str(), module->llvmIr(2).c_str());

    std::vector<float> in(static_cast<size_t>(n)), out(static_cast<size_t>(n)), ref(static_cast<size_t>(n));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uni(-4, 4);
    for (float& v : in) v = uni(rng);
    void* buffers[] = {in.data(), out.data()};
    void* refBuffers[] = {in.data(), ref.data()};
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);  // one read + one write per element

    report("memcpy 64 MiB", bytes, bestSeconds(5, [&] { std::memcpy(out.data(), in.data(), in.size() * sizeof(float)); }));
    report("pointwiseChain 2^24 (JIT, 1 thread)", bytes, bestSeconds(5, [&] { module->entry(0)(buffers, nullptr, 0, n); }));
    report("pointwiseChain 2^24 (interpreter)", bytes, bestSeconds(1, [&] { interpretKernel(kernels[0], refBuffers, {}); }));
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) worst = std::max(worst, static_cast<double>(std::fabs(out[static_cast<size_t>(i)] - ref[static_cast<size_t>(i)])));
    std::printf("  max |jit - interpreter| = %g\n", worst);

    int64_t s0 = cols;
    report("softmaxRows 2048x2048 (JIT, 1 thread)", bytes / 4, bestSeconds(5, [&] { module->entry(1)(buffers, &s0, 0, rows); }));
    report("softmaxRows 2048x2048 (interpreter)", bytes / 4, bestSeconds(1, [&] { interpretKernel(kernels[1], refBuffers, {{"s0", cols}}); }));
    worst = 0;
    for (int64_t i = 0; i < rows * cols; ++i) worst = std::max(worst, static_cast<double>(std::fabs(out[static_cast<size_t>(i)] - ref[static_cast<size_t>(i)])));
    std::printf("  max |jit - interpreter| = %g\n", worst);

    std::vector<float> sums(static_cast<size_t>(cols)), refSums(static_cast<size_t>(cols));
    std::vector<int64_t> idx(static_cast<size_t>(cols)), refIdx(static_cast<size_t>(cols));
    void* colBuffers[] = {in.data(), sums.data(), idx.data()};
    void* colRef[] = {in.data(), refSums.data(), refIdx.data()};
    report("columnSum+argmax 2048x2048 (JIT)", bytes / 8, bestSeconds(5, [&] { module->entry(2)(colBuffers, nullptr, 0, cols); }));
    report("columnSum+argmax 2048x2048 (interp.)", bytes / 8, bestSeconds(1, [&] { interpretKernel(kernels[2], colRef, {}); }));
    EXPECT_EQ(idx, refIdx);
}

}  // namespace
}  // namespace eng::inductor::cpu
