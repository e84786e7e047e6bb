// Without a CUDA driver or device, the CUDA layer and cuda tensors fail cleanly with the reason; with one,
// the device reports an architecture NVRTC can target.
#include <gtest/gtest.h>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/registry.h"

namespace {

using eng::cuda::driverStatus;

TEST(CudaDriverStatus, NoDriverGivesACleanReason) {
    if (driverStatus().available) GTEST_SKIP() << "a CUDA device is present: the no-driver path does not apply";
    EXPECT_EQ(driverStatus().deviceCount, 0);
    const std::string& reason = driverStatus().reason;
    EXPECT_TRUE(reason.rfind("no CUDA driver", 0) == 0 || reason.rfind("no CUDA device", 0) == 0) << reason;
    EXPECT_EQ(eng::cuda::DeviceContext::deviceCount(), 0);
    try {
        eng::cuda::DeviceContext::get(0);
        FAIL() << "expected CudaError";
    } catch (const eng::cuda::CudaError& e) {
        EXPECT_EQ(std::string(e.what()), "cuda unavailable: " + reason);
    }
}

TEST(CudaDriverStatus, CudaTensorsRaiseCudaUnavailableWithTheReason) {
    if (driverStatus().available) GTEST_SKIP() << "a CUDA device is present: the no-driver path does not apply";
    using namespace eng::tensor;
    EXPECT_FALSE(isDeviceAvailable(DeviceType::CUDA));
    try {
        zeros({2, 3}, TensorOptions{std::nullopt, Device::parse("cuda"), false});
        FAIL() << "expected TensorError";
    } catch (const TensorError& e) {
        EXPECT_EQ(std::string(e.what()), "cuda unavailable: " + driverStatus().reason);
        EXPECT_EQ(e.pythonClass(), "RuntimeError");
    }
    EXPECT_FALSE(OpRegistry::instance().call("torch.cuda.is_available", {}).toBool());
}

TEST(CudaDriverStatus, DevicePresentReportsItsArchitecture) {
    if (!driverStatus().available) GTEST_SKIP() << "no CUDA device: " << driverStatus().reason;
    eng::cuda::DeviceContext& device = eng::cuda::DeviceContext::get(0);
    EXPECT_EQ(device.arch().rfind("sm_", 0), 0u) << device.arch();
    EXPECT_GT(device.multiprocessorCount(), 0);
    EXPECT_TRUE(eng::tensor::isDeviceAvailable(eng::tensor::DeviceType::CUDA));
    // A round trip through device memory, and the allocator's cache reusing a freed block.
    std::vector<float> host{1.5f, -2.0f, 3.25f}, back(3);
    void* block = device.allocate(host.size() * sizeof(float));
    device.copyHostToDevice(block, host.data(), host.size() * sizeof(float));
    device.copyDeviceToHost(back.data(), block, back.size() * sizeof(float));
    EXPECT_EQ(back, host);
    const size_t cachedBefore = device.cachedBytes();
    device.deallocate(block);
    EXPECT_EQ(device.cachedBytes(), cachedBefore + eng::cuda::roundedAllocationSize(3 * sizeof(float)));
    void* reused = device.allocate(8);  // same size class: served from the cache, no cuMemAlloc
    EXPECT_EQ(device.cachedBytes(), cachedBefore);
    device.deallocate(reused);
}

}  // namespace
