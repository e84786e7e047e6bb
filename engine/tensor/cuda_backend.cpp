// The CUDA DeviceBackend: tensor storage from each device's caching allocator and host<->device copies.
// Registered by device.cpp's backend table when the driver loads and reports at least one device.
#include "cuda/device_context.h"
#include "tensor/cuda_kernels.h"

namespace eng::tensor::cudaops {

namespace {

class CudaBackend final : public DeviceBackend {
public:
    explicit CudaBackend(int count) : count_(count) {}
    DeviceType type() const override { return DeviceType::CUDA; }
    int deviceCount() const override { return count_; }
    void* allocate(size_t bytes, int index) override { return cuda::DeviceContext::get(index).allocate(bytes); }
    void deallocate(void* data, int index) override { cuda::DeviceContext::get(index).deallocate(data); }
    void copyFromHost(void* deviceDst, const void* hostSrc, size_t bytes, int index) override {
        cuda::DeviceContext::get(index).copyHostToDevice(deviceDst, hostSrc, bytes);
    }
    void copyToHost(void* hostDst, const void* deviceSrc, size_t bytes, int index) override {
        cuda::DeviceContext::get(index).copyDeviceToHost(hostDst, deviceSrc, bytes);
    }

private:
    int count_;
};

}  // namespace

std::unique_ptr<DeviceBackend> makeCudaBackendIfPresent() {
    const int count = cuda::DeviceContext::deviceCount();
    if (count == 0) return nullptr;
    return std::make_unique<CudaBackend>(count);
}

}  // namespace eng::tensor::cudaops
