// Device parsing and the backend table, with the built-in CPU backend (64-byte aligned host memory) and the
// CUDA backend registered lazily where a device exists.
#include "tensor/device.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include <fmt/format.h>

#include "cuda/driver.h"
#include "tensor/autograd/inference_mode.h"
#include "tensor/cpu_large_blocks.h"
#include "tensor/cuda_kernels.h"
#include "tensor/deferred_fill.h"
#include "tensor/error.h"

namespace eng::tensor {

namespace {

class CpuBackend final : public DeviceBackend {
public:
    DeviceType type() const override { return DeviceType::CPU; }
    int deviceCount() const override { return 1; }
    void* allocate(size_t bytes, int) override {
        // Large blocks: mappings of our own, huge-page advised and reused when freed (cpu_large_blocks.h). Others:
        // aligned for vector loads; aligned_alloc wants a size that is a multiple of the alignment.
        void* data = nullptr;
        if (cpublocks::takes(bytes)) {
            data = cpublocks::allocate(bytes);
        } else {
            const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
            data = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
        }
        if (!data) throw AllocationError(fmt::format("DefaultCPUAllocator: can't allocate memory: you tried to allocate {} bytes.", bytes));
        return data;
    }
    void deallocate(void* data, int) override {
        // Large blocks start on a 2 MiB boundary, which few malloc'd blocks do: only those are looked up.
        if (reinterpret_cast<uintptr_t>(data) % cpublocks::kHugePage == 0 && cpublocks::release(data)) return;
        std::free(data);
    }
    void copyFromHost(void* dst, const void* src, size_t bytes, int) override { std::memcpy(dst, src, bytes); }
    void copyToHost(void* dst, const void* src, size_t bytes, int) override { std::memcpy(dst, src, bytes); }

private:
    static constexpr size_t kAlignment = 64;
};

std::array<std::unique_ptr<DeviceBackend>, kDeviceTypeCount>& backends() {
    static std::array<std::unique_ptr<DeviceBackend>, kDeviceTypeCount> table = [] {
        std::array<std::unique_ptr<DeviceBackend>, kDeviceTypeCount> t;
        t[static_cast<size_t>(DeviceType::CPU)] = std::make_unique<CpuBackend>();
        return t;
    }();
    return table;
}

// The backend slot of `type`. The CUDA backend is registered on the first question about cuda (loading the
// driver runs cuInit, which CPU-only work should not pay for), and only where a driver reports a device.
std::unique_ptr<DeviceBackend>& slotFor(DeviceType type) {
    auto& table = backends();
    if (type == DeviceType::CUDA) {
        static std::once_flag probed;
        std::call_once(probed, [&] {
            auto& cuda = table[static_cast<size_t>(DeviceType::CUDA)];
            if (!cuda) cuda = cudaops::makeCudaBackendIfPresent();
        });
    }
    return table[static_cast<size_t>(type)];
}

std::string_view typeName(DeviceType type) { return type == DeviceType::CPU ? "cpu" : "cuda"; }

}  // namespace

Device Device::parse(std::string_view text) {
    std::string_view typePart = text;
    int index = -1;
    if (size_t colon = text.find(':'); colon != std::string_view::npos) {
        typePart = text.substr(0, colon);
        std::string_view indexPart = text.substr(colon + 1);
        auto [end, ec] = std::from_chars(indexPart.data(), indexPart.data() + indexPart.size(), index);
        if (ec != std::errc() || end != indexPart.data() + indexPart.size() || index < 0)
            fail(ErrorKind::Runtime, fmt::format("Invalid device string: '{}'", text));
    }
    if (typePart == "cpu") {
        if (index > 0) fail(ErrorKind::Runtime, fmt::format("CPU device index must be -1 or zero, got {}", index));
        return Device(DeviceType::CPU, -1);
    }
    if (typePart == "cuda") return Device(DeviceType::CUDA, index);
    fail(ErrorKind::Runtime,
         fmt::format("Expected one of cpu, cuda device type at start of device string: {}", text));
}

std::string Device::str() const {
    if (type_ == DeviceType::CPU || index_ < 0) return std::string(typeName(type_));
    return fmt::format("{}:{}", typeName(type_), index_);
}

void registerBackend(std::unique_ptr<DeviceBackend> backend) {
    auto& slot = slotFor(backend->type());
    slot = std::move(backend);
}

bool isDeviceAvailable(DeviceType type) { return deviceCount(type) > 0; }

int deviceCount(DeviceType type) {
    const auto& backend = slotFor(type);
    return backend ? backend->deviceCount() : 0;
}

Device normalizeDevice(Device device) {
    if (device.type() == DeviceType::CUDA && device.index() < 0) return Device(DeviceType::CUDA, 0);
    return device;
}

DeviceBackend& backendFor(Device device) {
    auto& backend = slotFor(device.type());
    if ((!backend || backend->deviceCount() == 0) && device.type() == DeviceType::CUDA)
        fail(ErrorKind::Runtime, fmt::format("cuda unavailable: {}", cuda::driverStatus().reason));
    if (!backend || backend->deviceCount() == 0)
        fail(ErrorKind::Runtime, fmt::format("{} unavailable: this build has no {} backend or no {} device is present",
                                             typeName(device.type()), typeName(device.type()),
                                             typeName(device.type())));
    if (device.index() >= backend->deviceCount())
        fail(ErrorKind::Runtime, fmt::format("{} unavailable: device index {} is out of range ({} devices)",
                                             typeName(device.type()), device.index(), backend->deviceCount()));
    return *backend;
}

Storage::Storage(size_t bytes, Device device) : bytes_(bytes), device_(normalizeDevice(device)) {
    backend_ = &backendFor(device_);
    data_ = backend_->allocate(bytes, device_.index());
    autograd::noteStorageCreated(this);
}

Storage::~Storage() {
    autograd::noteStorageReleased(this);
    if (g_deferredStorages.load(std::memory_order_acquire) != 0) forgetDeferred(this);
    backend_->deallocate(data_, device_.index());
}

}  // namespace eng::tensor
