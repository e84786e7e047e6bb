// Per-device state: primary context, stream, caching allocator, copies and kernel launches.
#include "cuda/device_context.h"

#include <fmt/format.h>

#include "cuda/driver_api.h"

namespace eng::cuda {

using detail::check;
using detail::driver;

namespace {

CUdeviceptr asDevicePtr(const void* pointer) { return reinterpret_cast<CUdeviceptr>(pointer); }

}  // namespace

size_t roundedAllocationSize(size_t bytes) {
    constexpr size_t kGranule = 512;
    constexpr size_t kLargeGranule = size_t{2} << 20;
    if (bytes == 0) return kGranule;
    if (bytes <= (size_t{1} << 20)) return (bytes + kGranule - 1) / kGranule * kGranule;
    return (bytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
}

int DeviceContext::deviceCount() {
    const DriverStatus& status = driverStatus();
    return status.available ? status.deviceCount : 0;
}

DeviceContext& DeviceContext::get(int index) {
    static std::mutex creation;
    // Leaked on purpose: tensors held by other statics may free device memory during exit.
    static auto& contexts = *new std::vector<std::unique_ptr<DeviceContext>>();
    (void)driver();  // throws with the reason when CUDA is unavailable
    const int count = deviceCount();
    if (index < 0 || index >= count)
        throw CudaError(fmt::format("cuda device index {} is out of range ({} devices)", index, count));
    std::lock_guard lock(creation);
    if (contexts.empty()) contexts.resize(static_cast<size_t>(count));
    auto& slot = contexts[static_cast<size_t>(index)];
    if (!slot) slot.reset(new DeviceContext(index));
    return *slot;
}

DeviceContext::DeviceContext(int index) : index_(index) {
    const auto& api = driver();
    CUdevice device = 0;
    check(api.deviceGet(&device, index), "cuDeviceGet");
    device_ = device;
    char name[256] = {};
    check(api.deviceGetName(name, sizeof name, device), "cuDeviceGetName");
    name_ = name;
    int major = 0, minor = 0;
    check(api.deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute");
    check(api.deviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute");
    check(api.deviceGetAttribute(&multiprocessors_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "cuDeviceGetAttribute");
    arch_ = fmt::format("sm_{}{}", major, minor);
    CUcontext context = nullptr;
    // The primary context is the one the CUDA runtime (and so cuBLAS) uses too; it is never released, as
    // the process may still free tensors during static destruction.
    check(api.primaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    context_ = context;
    check(api.ctxSetCurrent(context), "cuCtxSetCurrent");
    CUstream stream = nullptr;
    check(api.streamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
    stream_ = stream;
}

void DeviceContext::makeCurrent() const { check(driver().ctxSetCurrent(static_cast<CUcontext>(context_)), "cuCtxSetCurrent"); }

void* DeviceContext::allocate(size_t bytes) {
    const size_t size = roundedAllocationSize(bytes);
    {
        std::lock_guard lock(mutex_);
        if (auto it = freeBlocks_.find(size); it != freeBlocks_.end()) {
            void* block = it->second;
            freeBlocks_.erase(it);
            cachedBytes_ -= size;
            liveBlocks_.emplace(block, size);
            return block;
        }
    }
    makeCurrent();
    CUdeviceptr pointer = 0;
    CUresult result = driver().memAlloc(&pointer, size);
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
        // Cached blocks of other sizes may be what is missing: give them back and try once more.
        synchronize();
        releaseCachedMemory();
        result = driver().memAlloc(&pointer, size);
    }
    check(result, fmt::format("cuMemAlloc({} bytes) on cuda:{}", size, index_).c_str());
    void* block = reinterpret_cast<void*>(pointer);
    std::lock_guard lock(mutex_);
    liveBlocks_.emplace(block, size);
    return block;
}

void DeviceContext::deallocate(void* pointer) {
    if (!pointer) return;
    std::lock_guard lock(mutex_);
    auto it = liveBlocks_.find(pointer);
    if (it == liveBlocks_.end()) return;
    freeBlocks_.emplace(it->second, pointer);
    cachedBytes_ += it->second;
    liveBlocks_.erase(it);
}

void DeviceContext::releaseCachedMemory() {
    makeCurrent();
    std::lock_guard lock(mutex_);
    for (auto& [size, block] : freeBlocks_) check(driver().memFree(asDevicePtr(block)), "cuMemFree");
    freeBlocks_.clear();
    cachedBytes_ = 0;
}

size_t DeviceContext::cachedBytes() const {
    std::lock_guard lock(mutex_);
    return cachedBytes_;
}

void DeviceContext::copyHostToDevice(void* deviceDst, const void* hostSrc, size_t bytes) {
    if (bytes == 0) return;
    makeCurrent();
    check(driver().memcpyHtoDAsync(asDevicePtr(deviceDst), hostSrc, bytes, static_cast<CUstream>(stream_)), "cuMemcpyHtoDAsync");
    // The host buffer may be freed as soon as we return (pageable memory): wait for the copy.
    synchronize();
}

void DeviceContext::copyDeviceToHost(void* hostDst, const void* deviceSrc, size_t bytes) {
    if (bytes == 0) return;
    makeCurrent();
    check(driver().memcpyDtoHAsync(hostDst, asDevicePtr(deviceSrc), bytes, static_cast<CUstream>(stream_)), "cuMemcpyDtoHAsync");
    synchronize();
}

void DeviceContext::copyDeviceToDevice(void* deviceDst, const void* deviceSrc, size_t bytes) {
    if (bytes == 0) return;
    makeCurrent();
    check(driver().memcpyDtoDAsync(asDevicePtr(deviceDst), asDevicePtr(deviceSrc), bytes, static_cast<CUstream>(stream_)),
          "cuMemcpyDtoDAsync");
}

void DeviceContext::memsetZero(void* deviceDst, size_t bytes) {
    if (bytes == 0) return;
    makeCurrent();
    check(driver().memsetD8Async(asDevicePtr(deviceDst), 0, bytes, static_cast<CUstream>(stream_)), "cuMemsetD8Async");
}

void DeviceContext::synchronize() {
    makeCurrent();
    check(driver().streamSynchronize(static_cast<CUstream>(stream_)), fmt::format("cuda:{} stream synchronize", index_).c_str());
}

void* DeviceContext::loadFunction(const CompiledKernel& kernel) {
    std::lock_guard lock(mutex_);
    if (auto it = functions_.find(kernel.key); it != functions_.end()) return it->second;
    if (kernel.arch != arch_)
        throw CudaError(fmt::format("kernel {} was compiled for {} but cuda:{} is {}", kernel.entry, kernel.arch, index_, arch_));
    CUmodule module = nullptr;
    check(driver().moduleLoadData(&module, kernel.cubin.data()), fmt::format("cuModuleLoadData({})", kernel.entry).c_str());
    CUfunction function = nullptr;
    check(driver().moduleGetFunction(&function, module, kernel.entry.c_str()),
          fmt::format("cuModuleGetFunction({})", kernel.entry).c_str());
    functions_.emplace(kernel.key, function);
    return function;
}

void DeviceContext::launch(const CompiledKernel& kernel, const LaunchShape& s, void** args) {
    makeCurrent();
    auto function = static_cast<CUfunction>(loadFunction(kernel));
    check(driver().launchKernel(function, s.gridX, s.gridY, s.gridZ, s.blockX, s.blockY, s.blockZ, s.sharedBytes,
                                static_cast<CUstream>(stream_), args, nullptr),
          fmt::format("cuLaunchKernel({})", kernel.entry).c_str());
}

void DeviceContext::launch(const KernelSource& source, const LaunchShape& shape, void** args) {
    launch(*KernelCompiler::instance().compile(source, arch_), shape, args);
}

}  // namespace eng::cuda
