// Device-side assertions (engine/cuda/device_assertions.h): a kernel records bad input in an assertion word and the
// next synchronisation raises its error once. The word's host side and the check kernel's compile run without a GPU;
// on a GPU, nll_loss / cross_entropy with a target out of range return without waiting for the device and the next
// synchronisation (a copy to the host, torch.cuda.synchronize) raises the CPU's IndexError.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "cuda/events.h"
#include "cuda/nvrtc_compiler.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_indexing.h"
#include "tensor/cuda_kernels.h"
#include "tensor/indexing.h"
#include "tensor/pointwise.h"
#include "tensor/shape.h"
#include "tensor/nn_functional.h"
#include "tensor/random.h"

namespace {

namespace fs = std::filesystem;
using namespace eng::tensor;

struct Recorded : std::runtime_error {
    explicit Recorded(int64_t v) : std::runtime_error("recorded " + std::to_string(v)) {}
};
void raiseRecorded(int64_t value) { throw Recorded(value); }

TEST(DeviceAssertions, APendingAssertionRaisesOnceWithItsValue) {
    const uint64_t id = eng::cuda::registerDeviceAssertion(&raiseRecorded);
    ASSERT_NE(id, 0u);
    volatile uint64_t word[eng::cuda::kAssertionWords] = {};
    EXPECT_NO_THROW(eng::cuda::raisePendingAssertion(word));  // clean: nothing to raise
    // As the kernel writes it: the id, then the value (a negative target survives the round trip).
    word[0] = id;
    word[1] = static_cast<uint64_t>(int64_t{-3});
    try {
        eng::cuda::raisePendingAssertion(word);
        ADD_FAILURE() << "no error";
    } catch (const Recorded& e) {
        EXPECT_STREQ(e.what(), "recorded -3");
    }
    EXPECT_EQ(word[0], 0u);
    EXPECT_NO_THROW(eng::cuda::raisePendingAssertion(word));  // raised once
    word[0] = id + 1000;  // nobody registered it: CUDA's own wording
    try {
        eng::cuda::raisePendingAssertion(word);
        ADD_FAILURE() << "no error";
    } catch (const eng::cuda::CudaError& e) {
        EXPECT_STREQ(e.what(), "device-side assert triggered");
    }
}

struct Detailed : std::runtime_error {
    explicit Detailed(const std::string& text) : std::runtime_error(text) {}
};
void raiseDetailed(int64_t value, int64_t first, int64_t second) {
    throw Detailed(std::to_string(value) + " " + std::to_string(first) + " " + std::to_string(second));
}

TEST(DeviceAssertions, ADetailedAssertionGetsItsTwoMoreValuesAndClearsThem) {
    const uint64_t id = eng::cuda::registerDeviceAssertion(&raiseDetailed);
    volatile uint64_t word[eng::cuda::kAssertionWords] = {};
    // As the index table kernel writes it: the id, the value, the dimension and its size.
    word[0] = id;
    word[1] = static_cast<uint64_t>(int64_t{-7});
    word[2] = 1;
    word[3] = 6;
    try {
        eng::cuda::raisePendingAssertion(word);
        ADD_FAILURE() << "no error";
    } catch (const Detailed& e) {
        EXPECT_STREQ(e.what(), "-7 1 6");
    }
    for (int i = 0; i < eng::cuda::kAssertionWords; ++i) EXPECT_EQ(word[i], 0u) << "word " << i;
}

TEST(DeviceAssertions, TheIndexTableKernelCompiles) {
    const fs::path dir = fs::temp_directory_path() / ("cwb_device_assertions_test_" + std::to_string(std::random_device{}()));
    {
        eng::cuda::KernelCompiler compiler(dir);
        const auto kernel = compiler.compile(cudagen::translationUnit(cudaops::indexTableKernel()), "sm_90");
        EXPECT_NE(kernel->cubin.find("cwb_index_table"), std::string::npos);
    }
    fs::remove_all(dir);
}

TEST(DeviceAssertions, TheClassTargetCheckKernelCompiles) {
    const fs::path dir = fs::temp_directory_path() / ("cwb_device_assertions_test_" + std::to_string(std::random_device{}()));
    {
        eng::cuda::KernelCompiler compiler(dir);
        const auto kernel = compiler.compile(cudagen::translationUnit(cudaops::classTargetCheckKernel()), "sm_90");
        EXPECT_NE(kernel->cubin.find("cwb_check_class_targets"), std::string::npos);
    }
    fs::remove_all(dir);
}

class DeviceAssertionsOnGpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
        manualSeed(5);
    }
};

const Device kCuda = Device::parse("cuda:0");
Tensor onGpu(const Tensor& t) { return to(t, std::nullopt, kCuda); }

// What the synchronisation raised, or "no error".
std::string errorAtSync() {
    try {
        eng::cuda::synchronizeDevice(0);
    } catch (const TensorError& e) {
        return std::string(e.pythonClass()) + " " + e.what();
    }
    return "no error";
}

// What `f` and the synchronisation after it raised (the eager losses' own scalar operands are copied to the device,
// which synchronises: the error may come from there), or "no error".
std::string errorUntilSync(const std::function<void()>& f) {
    try {
        f();
    } catch (const TensorError& e) {
        return std::string(e.pythonClass()) + " " + e.what();
    }
    return errorAtSync();
}

TEST_F(DeviceAssertionsOnGpu, AnOutOfRangeTargetRaisesAtTheNextSynchronisation) {
    const Tensor logits = onGpu(randn({6, 50}));
    const Tensor bad = onGpu(fromInts({3, -100, 50, 7, 64, -2}, {6}));  // -100 ignored; 50 is the first bad one
    // The check itself (the compiled loss's extern) only queues a kernel: nothing waits, nothing raises yet.
    ASSERT_NO_THROW(checkClassTargets(bad, 50, -100));
    EXPECT_EQ(errorAtSync(), "IndexError Target 50 is out of bounds.");
    EXPECT_EQ(errorAtSync(), "no error");  // raised once
    EXPECT_EQ(errorUntilSync([&] { (void)crossEntropy(logits, bad); }), "IndexError Target 50 is out of bounds.");
    EXPECT_EQ(errorAtSync(), "no error");
    const Tensor logProbs = logSoftmax(logits, 1);
    EXPECT_EQ(errorUntilSync([&] { (void)nllLoss(logProbs, onGpu(fromInts({-1, 2, -3, 0, 6, 1}, {6})), "none", -1); }),
              "IndexError Target -3 is out of bounds.");
    // A copy to the host is a synchronisation point too.
    const Tensor loss = crossEntropy(logits, onGpu(fromInts({3, -100, 49, 7, 0, 2}, {6})));
    checkClassTargets(onGpu(fromInts({1, 2, 49, 70}, {4})), 50, -100);
    try {
        (void)toDoubles(loss);
        ADD_FAILURE() << "the copy to the host raised nothing";
    } catch (const TensorError& e) {
        EXPECT_STREQ(e.what(), "Target 70 is out of bounds.");
    }
    // Valid and ignored targets assert nothing, and the loss equals the CPU's.
    const Tensor good = fromInts({3, -100, 49, 7, 0, 2}, {6});
    const double want = toDoubles(crossEntropy(to(logits, std::nullopt, kCpu), good))[0];
    EXPECT_NEAR(toDoubles(crossEntropy(logits, onGpu(good)))[0], want, 1e-5);
    EXPECT_EQ(errorAtSync(), "no error");
}

TEST_F(DeviceAssertionsOnGpu, AnOutOfRangeIndexRaisesAtTheNextSynchronisationWithTheCpuMessage) {
    const Tensor x = onGpu(randn({6, 5}));
    const Tensor rows = onGpu(fromInts({0, 5, 9, -7, 2}, {5}));  // 9 is the first bad one
    const Tensor values = onGpu(randn({5, 5}));
    // Nothing waits for the device: the table kernel records the error, the next synchronisation raises it.
    ASSERT_NO_THROW(indexPut(x, {rows}, values, true));
    EXPECT_EQ(errorAtSync(), "IndexError index 9 is out of bounds for dimension 0 with size 6");
    EXPECT_EQ(errorAtSync(), "no error");  // raised once
    const Tensor before = clone(x);
    EXPECT_EQ(errorUntilSync([&] { (void)toDoubles(advancedIndex(x, {Tensor(), onGpu(fromInts({1, -6}, {2}))})); }),
              "IndexError index -6 is out of bounds for dimension 1 with size 5");
    EXPECT_EQ(errorUntilSync([&] { (void)toDoubles(gather(x, 1, onGpu(fromInts({0, 5, 1, 1, 2, 3}, {6, 1})))); }),
              "RuntimeError index 5 is out of bounds for dimension 1 with size 5");
    // A bad index writes nothing (its entry is left out), and the good ones are written.
    ASSERT_NO_THROW(indexPut(x, {onGpu(fromInts({1, 60}, {2}))}, onGpu(full({2, 5}, Scalar(2.0))), false));
    EXPECT_EQ(errorAtSync(), "IndexError index 60 is out of bounds for dimension 0 with size 6");
    const std::vector<double> want = toDoubles(before), got = toDoubles(x);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], i / 5 == 1 ? 2.0 : want[i]) << "element " << i;
    // In range (negatives wrapped), nothing is raised.
    EXPECT_EQ(errorUntilSync([&] { (void)toDoubles(advancedIndex(x, {onGpu(fromInts({-6, 5}, {2}))})); }), "no error");
}

TEST_F(DeviceAssertionsOnGpu, ScalarOperandsReachTheDeviceExactly) {
    // A Python number beside a CUDA tensor is filled on the device (no synchronising copy): exact in every dtype.
    const int64_t big = (int64_t{1} << 60) + 3;
    EXPECT_EQ(toInts(add(onGpu(fromInts({1, -2}, {2})), Scalar(big))), (std::vector<int64_t>{big + 1, big - 2}));
    const Tensor third = to(full({2}, Scalar(1.0), TensorOptions{DType::Float64}), std::nullopt, kCuda);
    EXPECT_EQ(toDoubles(mul(third, Scalar(1.0 / 3.0)))[0], 1.0 / 3.0);
    const Tensor half = onGpu(to(fromInts({1, 2}, {2}), DType::BFloat16));
    EXPECT_EQ(toDoubles(add(half, Scalar(0.5)))[1], 2.5);
    EXPECT_EQ(toDoubles(to(lt(onGpu(fromInts({-1, 0, 4}, {3})), Scalar(int64_t{0})), DType::Int64)), (std::vector<double>{1, 0, 0}));
    EXPECT_EQ(errorAtSync(), "no error");
}

}  // namespace
