// Devices and their memory backends. The CPU backend is built in; the CUDA backend (cuda_backend.cpp) is
// registered on first use where a CUDA driver reports a device, and elsewhere placing a tensor on cuda fails
// with "cuda unavailable: <reason>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace eng::tensor {

enum class DeviceType : uint8_t { CPU, CUDA };
constexpr int kDeviceTypeCount = 2;

class Device {
public:
    constexpr Device() = default;
    constexpr explicit Device(DeviceType type, int index = -1) : type_(type), index_(index) {}
    // "cpu", "cuda", "cuda:1" (as torch.device accepts them).
    static Device parse(std::string_view text);

    constexpr DeviceType type() const { return type_; }
    constexpr int index() const { return index_; }
    constexpr bool isCpu() const { return type_ == DeviceType::CPU; }
    // As str(torch.device): "cpu", "cuda:0".
    std::string str() const;
    constexpr bool operator==(const Device&) const = default;

private:
    DeviceType type_ = DeviceType::CPU;
    int index_ = -1;
};

constexpr Device kCpu{};

// Memory of one device type. Kernels stay per-device elsewhere; this is what storage and copies need.
class DeviceBackend {
public:
    virtual ~DeviceBackend() = default;
    virtual DeviceType type() const = 0;
    virtual int deviceCount() const = 0;
    virtual void* allocate(size_t bytes, int index) = 0;
    virtual void deallocate(void* data, int index) = 0;
    virtual void copyFromHost(void* deviceDst, const void* hostSrc, size_t bytes, int index) = 0;
    virtual void copyToHost(void* hostDst, const void* deviceSrc, size_t bytes, int index) = 0;
};

// Replaces the backend of backend->type(). Not thread-safe: register at start-up.
void registerBackend(std::unique_ptr<DeviceBackend> backend);
bool isDeviceAvailable(DeviceType type);
int deviceCount(DeviceType type);
// The backend for device; throws TensorError("cuda unavailable: ...") when none is registered or the index
// is out of range. Resolves index -1 to 0.
DeviceBackend& backendFor(Device device);
Device normalizeDevice(Device device);

// One allocation on one device, shared by every view of it.
class Storage {
public:
    Storage(size_t bytes, Device device);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }
    Device device() const { return device_; }

private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
    Device device_;
    DeviceBackend* backend_ = nullptr;
};

using StoragePtr = std::shared_ptr<Storage>;

}  // namespace eng::tensor
