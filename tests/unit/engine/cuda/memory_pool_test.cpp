// Private memory pools (what CUDA graph recordings allocate from): routing by scope, blocks freed into the
// pool rather than the shared cache, hand-over when the pool dies, and cuMemAlloc inside a stream capture.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/cuda_graph.h"
#include "cuda/device_context.h"
#include "cuda/driver.h"

namespace {

using eng::cuda::DeviceContext;
using eng::cuda::MemoryPool;
using eng::cuda::PrivatePoolScope;

TEST(MemoryPoolCuda, ScopedAllocationsStayInThePoolUntilItDies) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    DeviceContext& gpu = DeviceContext::get(0);
    gpu.synchronize();
    gpu.releaseCachedMemory();
    // An odd size nobody else uses, so that the shared free list has no block of it.
    const size_t bytes = 3 * 512 + 7, rounded = eng::cuda::roundedAllocationSize(bytes);
    auto pool = std::make_unique<MemoryPool>(gpu);
    void* pooled = nullptr;
    {
        PrivatePoolScope scope(*pool);
        pooled = gpu.allocate(bytes);
    }
    EXPECT_EQ(pool->reservedBytes(), rounded);
    gpu.deallocate(pooled);
    EXPECT_EQ(gpu.cachedBytes(), 0u) << "a pool block must not reach the shared free lists while the pool lives";
    void* shared = gpu.allocate(bytes);
    EXPECT_NE(shared, pooled) << "outside the scope, the pool's free block is not handed out";
    {
        PrivatePoolScope scope(*pool);
        EXPECT_EQ(gpu.allocate(bytes), pooled) << "inside the scope, the pool reuses its own block";
    }
    gpu.deallocate(pooled);
    pool.reset();
    EXPECT_EQ(gpu.cachedBytes(), rounded) << "a dead pool's blocks go to the shared cache";
    gpu.deallocate(shared);
}

TEST(MemoryPoolCuda, CaptureMayAllocateFromThePool) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    DeviceContext& gpu = DeviceContext::get(0);
    const size_t n = 1000, bytes = n * sizeof(float);
    std::vector<float> host(n);
    for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
    void* input = gpu.allocate(bytes);
    void* output = gpu.allocate(bytes);
    gpu.copyHostToDevice(input, host.data(), bytes);
    MemoryPool pool(gpu);
    auto graph = eng::cuda::CapturedGraph::capture(gpu, [&] {
        // A temporary allocated and freed inside the capture: cuMemAlloc under thread-local capture mode.
        void* temporary = gpu.allocate(bytes);
        gpu.copyDeviceToDevice(temporary, input, bytes);
        gpu.copyDeviceToDevice(output, temporary, bytes);
        gpu.deallocate(temporary);
    }, &pool);
    EXPECT_GT(pool.reservedBytes(), 0u);
    for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i * (round + 2));
        gpu.copyHostToDevice(input, host.data(), bytes);
        graph->replay();
        std::vector<float> back(n);
        gpu.copyDeviceToHost(back.data(), output, bytes);
        EXPECT_EQ(back, host);
    }
    graph.reset();
    gpu.deallocate(input);
    gpu.deallocate(output);
}

}  // namespace
