// Large CPU blocks: 2 MiB aligned, a freed one handed out again for the same rounded size (and to the next tensor of
// that size, whose values are its own), the cache bounded by its setting, and both switches off giving malloc's.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/cpu_large_blocks.h"
#include "tensor/creation.h"
#include "tensor/pointwise.h"
#include "tensor/tensor.h"

namespace {

using namespace eng::tensor;  // NOLINT: test file
namespace blocks = eng::tensor::cpublocks;

constexpr size_t kMiB = size_t{1} << 20;

class CpuLargeBlocks : public ::testing::Test {
protected:
    void SetUp() override { saved_ = blocks::settings(); }
    void TearDown() override { blocks::configure(saved_); }
    blocks::Settings saved_;
};

TEST_F(CpuLargeBlocks, BlocksAreAlignedAndAFreedOneIsReusedForTheSameRoundedSize) {
    blocks::configure({true, 64 * kMiB});
    ASSERT_TRUE(blocks::takes(3 * kMiB));
    EXPECT_FALSE(blocks::takes(2 * kMiB - 1));
    void* a = blocks::allocate(3 * kMiB);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % blocks::kHugePage, 0u);
    std::memset(a, 0x5a, 3 * kMiB);  // the whole block is writable
    const size_t reusesBefore = blocks::reuses();
    ASSERT_TRUE(blocks::release(a));
    EXPECT_EQ(blocks::cachedBytes(), 4 * kMiB);  // rounded up to whole 2 MiB pages
    void* b = blocks::allocate(4 * kMiB);        // the same rounded size
    EXPECT_EQ(b, a);
    EXPECT_EQ(blocks::reuses(), reusesBefore + 1);
    EXPECT_EQ(blocks::cachedBytes(), 0u);
    void* c = blocks::allocate(6 * kMiB);  // another size: a new mapping
    EXPECT_NE(c, b);
    EXPECT_TRUE(blocks::release(b));
    EXPECT_TRUE(blocks::release(c));
    int onStack = 0;
    EXPECT_FALSE(blocks::release(&onStack));  // not ours: the caller frees it
    EXPECT_EQ(blocks::allocate(SIZE_MAX - 1), nullptr);  // no wrapped-around small block for an impossible size
}

TEST_F(CpuLargeBlocks, TheCacheKeepsAtMostItsSizeDroppingTheOldestBlocks) {
    blocks::configure({false, 8 * kMiB});
    std::vector<void*> held;
    for (int i = 0; i < 5; ++i) held.push_back(blocks::allocate(4 * kMiB));
    for (void* p : held) ASSERT_TRUE(blocks::release(p));
    EXPECT_EQ(blocks::cachedBytes(), 8 * kMiB);
    // The newest two are kept: the next two allocations get them back, newest first.
    EXPECT_EQ(blocks::allocate(4 * kMiB), held[4]);
    EXPECT_EQ(blocks::allocate(4 * kMiB), held[3]);
    EXPECT_TRUE(blocks::release(held[4]));
    EXPECT_TRUE(blocks::release(held[3]));
    // A block larger than the whole cache is unmapped at once.
    void* big = blocks::allocate(16 * kMiB);
    EXPECT_TRUE(blocks::release(big));
    EXPECT_EQ(blocks::cachedBytes(), 8 * kMiB);
}

TEST_F(CpuLargeBlocks, BothSwitchesOffLeaveLargeTensorsToMalloc) {
    blocks::configure({false, 0});
    EXPECT_FALSE(blocks::takes(64 * kMiB));
    const Tensor t = full({1024, 1024}, Scalar(2.0));  // 4 MiB
    EXPECT_EQ(static_cast<const float*>(t.data())[1024 * 1024 - 1], 2.0f);
}

TEST_F(CpuLargeBlocks, TheNextTensorOfAFreedOnesSizeGetsItsBlockAndItsOwnValues) {
    blocks::configure({true, 64 * kMiB});
    const void* first = nullptr;
    {
        const Tensor t = full({1024, 1024}, Scalar(1.0));
        first = t.data();
    }
    const Tensor x = full({1024, 1024}, Scalar(3.0));
    const Tensor y = add(x, x);  // a fresh result of the freed tensor's size
    EXPECT_TRUE(y.data() == first || x.data() == first);
    const auto* values = static_cast<const float*>(y.data());
    for (int64_t i = 0; i < 1024 * 1024; i += 4099) ASSERT_EQ(values[i], 6.0f) << i;
}

}  // namespace
