// Per-device state: primary context, stream, caching allocator, copies and kernel launches.
#include "cuda/device_context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "cuda/blas.h"
#include "cuda/driver_api.h"

namespace eng::cuda {

using detail::check;
using detail::driver;

namespace {

CUdeviceptr asDevicePtr(const void* pointer) { return reinterpret_cast<CUdeviceptr>(pointer); }

// The private pool this thread allocates from (PrivatePoolScope), on which device; 0: the shared lists.
thread_local const DeviceContext* tActiveDevice = nullptr;
thread_local uint64_t tActivePool = 0;

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

namespace {
std::mutex& creationMutex() {
    static std::mutex creation;
    return creation;
}
// Leaked on purpose: tensors held by other statics may free device memory during exit.
std::vector<std::unique_ptr<DeviceContext>>& createdContexts() {
    static auto& contexts = *new std::vector<std::unique_ptr<DeviceContext>>();
    return contexts;
}
}  // namespace

void DeviceContext::synchronizeStarted() {
    std::vector<DeviceContext*> started;
    {
        std::lock_guard lock(creationMutex());
        for (auto& context : createdContexts())
            if (context) started.push_back(context.get());
    }
    for (DeviceContext* context : started) context->synchronize();
}

DeviceContext& DeviceContext::get(int index) {
    std::mutex& creation = creationMutex();
    auto& contexts = createdContexts();
    (void)driver();  // throws with the reason when CUDA is unavailable
    const int count = deviceCount();
    if (index < 0 || index >= count)
        throw CudaError(fmt::format("cuda device index {} is out of range ({} devices)", index, count));
    DeviceContext* context = nullptr;
    bool created = false;
    {
        std::lock_guard lock(creation);
        if (contexts.empty()) contexts.resize(static_cast<size_t>(count));
        auto& slot = contexts[static_cast<size_t>(index)];
        if (!slot) {
            slot.reset(new DeviceContext(index));
            created = true;
        }
        context = slot.get();
    }
    // cuBLAS starts on a background thread (blas.h): its thread asks for this context, so after the lock.
    if (created && blasPrewarmLevel() >= 1) prewarmBlas(index);
    else joinBlasPrewarmAtExit();
    return *context;
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
    check(api.deviceGetAttribute(&sharedOptin_, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device), "cuDeviceGetAttribute");
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
    const uint64_t pool = tActiveDevice == this ? tActivePool : 0;
    {
        std::lock_guard lock(mutex_);
        auto& freeList = pool ? pools_.at(pool).freeBlocks : freeBlocks_;
        // The size's own blocks, or (shared lists) the smallest cached block up to twice as large: sizes then share
        // the cache instead of each keeping its own peak, which filled the card in GPT-2 small's training step.
        if (auto it = freeList.lower_bound(size); it != freeList.end() && (it->first == size || (!pool && it->first <= 2 * size))) {
            const size_t blockSize = it->first;
            void* block = it->second;
            freeList.erase(it);
            if (!pool) cachedBytes_ -= blockSize;
            liveBlocks_.emplace(block, LiveBlock{blockSize, pool});
            return block;
        }
    }
    // A pool is filled while a graph is captured, when neither synchronising nor freeing memory is allowed.
    void* block = allocateFromDriver(size, !pool);
    std::lock_guard lock(mutex_);
    if (pool) pools_.at(pool).reservedBytes += size;
    liveBlocks_.emplace(block, LiveBlock{size, pool});
    return block;
}

void* DeviceContext::allocateFromDriver(size_t size, bool mayReleaseCache) {
    makeCurrent();
    // cuMemAlloc is a "potentially unsafe" call during stream capture: the capturing thread's mode
    // (thread-local) refuses it, yet it enqueues nothing on the stream, so the graph stays valid as long as
    // the block outlives the graph (the private pool's job). Relaxed mode permits it for this call only.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    check(driver().threadExchangeStreamCaptureMode(&mode), "cuThreadExchangeStreamCaptureMode");
    CUdeviceptr pointer = 0;
    CUresult result = driver().memAlloc(&pointer, size);
    driver().threadExchangeStreamCaptureMode(&mode);
    if (result == CUDA_ERROR_OUT_OF_MEMORY && mayReleaseCache) {
        // Cached blocks of other sizes may be what is missing: give them back, the largest first, until it fits.
        // The rest stays cached (releasing all of it sent every later allocation of the step to the driver).
        synchronize();
        while (result == CUDA_ERROR_OUT_OF_MEMORY && releaseLargestCachedBlock()) result = driver().memAlloc(&pointer, size);
    }
    check(result, fmt::format("cuMemAlloc({} bytes) on cuda:{}", size, index_).c_str());
    return reinterpret_cast<void*>(pointer);
}

void DeviceContext::deallocate(void* pointer) {
    if (!pointer) return;
    std::lock_guard lock(mutex_);
    auto it = liveBlocks_.find(pointer);
    if (it == liveBlocks_.end()) return;
    const LiveBlock live = it->second;
    liveBlocks_.erase(it);
    // A pool block stays in its pool while the pool lives (its recording may replay into it).
    if (auto pool = pools_.find(live.pool); live.pool && pool != pools_.end()) {
        pool->second.freeBlocks.emplace(live.size, pointer);
        return;
    }
    freeBlocks_.emplace(live.size, pointer);
    cachedBytes_ += live.size;
}

uint64_t DeviceContext::createPool() {
    std::lock_guard lock(mutex_);
    const uint64_t id = nextPool_++;
    pools_.emplace(id, Pool{});
    return id;
}

void DeviceContext::releasePool(uint64_t pool) {
    std::lock_guard lock(mutex_);
    auto it = pools_.find(pool);
    if (it == pools_.end()) return;
    for (const auto& [size, block] : it->second.freeBlocks) {
        freeBlocks_.emplace(size, block);
        cachedBytes_ += size;
    }
    pools_.erase(it);  // its live blocks now belong to the shared lists when freed
}

void DeviceContext::releaseCachedMemory() {
    makeCurrent();
    std::lock_guard lock(mutex_);
    for (auto& [size, block] : freeBlocks_) check(driver().memFree(asDevicePtr(block)), "cuMemFree");
    freeBlocks_.clear();
    cachedBytes_ = 0;
}

bool DeviceContext::releaseLargestCachedBlock() {
    std::lock_guard lock(mutex_);
    if (freeBlocks_.empty()) return false;
    const auto largest = std::prev(freeBlocks_.end());
    check(driver().memFree(asDevicePtr(largest->second)), "cuMemFree");
    cachedBytes_ -= largest->first;
    freeBlocks_.erase(largest);
    return true;
}

size_t DeviceContext::cachedBytes() const {
    std::lock_guard lock(mutex_);
    return cachedBytes_;
}

size_t MemoryPool::reservedBytes() const {
    std::lock_guard lock(device_.mutex_);
    auto it = device_.pools_.find(id_);
    return it == device_.pools_.end() ? 0 : it->second.reservedBytes;
}

PrivatePoolScope::PrivatePoolScope(MemoryPool& pool) : previousDevice_(tActiveDevice), previousPool_(tActivePool) {
    tActiveDevice = &pool.device_;
    tActivePool = pool.id_;
}

PrivatePoolScope::~PrivatePoolScope() {
    tActiveDevice = previousDevice_;
    tActivePool = previousPool_;
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
    if (assertions_.host) raisePendingAssertion(assertions_.host);
}

AssertionWord DeviceContext::assertionWord() {
    std::call_once(assertionsOnce_, [this] {
        makeCurrent();
        // Pinned host memory the device writes through the bus: the host reads it after a synchronisation for free,
        // where a device buffer would cost a copy at every synchronisation.
        void* host = nullptr;
        check(driver().memHostAlloc(&host, kAssertionWords * sizeof(uint64_t), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
        std::memset(host, 0, kAssertionWords * sizeof(uint64_t));
        CUdeviceptr device = 0;
        check(driver().memHostGetDevicePointer(&device, host, 0), "cuMemHostGetDevicePointer");
        assertions_.device = reinterpret_cast<void*>(device);
        assertions_.host = static_cast<volatile uint64_t*>(host);
    });
    return assertions_;
}

void* DeviceContext::loadPtx(const CompiledKernel& kernel) {
    // The driver JIT-compiles the PTX for this device (its compute cache keeps the result for later processes).
    // The kernel's jitLevel or else CWB_PTX_JIT_OPT=0..4 sets its optimisation level (default 4, as ptxas -O3; the
    // quick tier of a tiered compile asks for less); CWB_PTX_JIT_LOG=1 prints the
    // time it took.
    std::vector<CUjit_option> options;
    std::vector<void*> values;
    float wallMs = 0;
    std::string errors(8192, '\0');
    options.push_back(CU_JIT_WALL_TIME);
    values.push_back(nullptr);
    options.push_back(CU_JIT_ERROR_LOG_BUFFER);
    values.push_back(errors.data());
    options.push_back(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
    values.push_back(reinterpret_cast<void*>(errors.size()));
    int level = 4;
    const char* text = std::getenv("CWB_PTX_JIT_OPT");
    if (kernel.jitLevel >= 0 || (text && *text)) {
        level = std::clamp(kernel.jitLevel >= 0 ? kernel.jitLevel : std::atoi(text), 0, 4);
        options.push_back(CU_JIT_OPTIMIZATION_LEVEL);
        values.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(level)));
    }
    CUmodule module = nullptr;
    const CUresult result = driver().moduleLoadDataEx(&module, kernel.cubin.c_str(), static_cast<unsigned>(options.size()), options.data(), values.data());
    if (result != CUDA_SUCCESS) {
        errors.resize(std::strlen(errors.c_str()));
        check(result, fmt::format("cuModuleLoadDataEx({}, PTX): {}", kernel.entry, errors).c_str());
    }
    std::memcpy(&wallMs, &values[0], sizeof wallMs);  // CU_JIT_WALL_TIME comes back as a float in the pointer's place
    if (const char* log = std::getenv("CWB_PTX_JIT_LOG"); log && *log == '1')
        std::fprintf(stderr, "cwb: driver JIT of %s (PTX %zu bytes, level %d): %.2f ms\n", kernel.entry.c_str(), kernel.cubin.size(), level, wallMs);
    return module;
}

void* DeviceContext::loadFunction(const CompiledKernel& kernel, const std::string& entry) {
    const std::string& name = entry.empty() ? kernel.entry : entry;
    // The key holds the kernel's whole source (tens of kilobytes with the prelude): looked up in place, not
    // copied on every launch.
    const std::string entryKey = entry.empty() ? std::string() : kernel.key + "\nentry point " + entry;
    const std::string& key = entry.empty() ? kernel.key : entryKey;
    CUmodule module = nullptr;
    {
        std::lock_guard lock(mutex_);
        if (auto it = functions_.find(key); it != functions_.end()) return it->second;
        if (auto it = modules_.find(kernel.key); it != modules_.end()) module = static_cast<CUmodule>(it->second);
    }
    if (!module) {
        if (kernel.arch != arch_)
            throw CudaError(fmt::format("kernel {} was compiled for {} but cuda:{} is {}", kernel.entry, kernel.arch, index_, arch_));
        // Loaded outside the lock: the driver's JIT of PTX takes milliseconds, during which other threads launch
        // (and with CWB_CUDA_QUICK_LOAD=threads a graph's quick kernels load on its compile threads). Two threads
        // loading one module at once each load it; the first kept, the other unloaded.
        if (kernel.ptx) module = static_cast<CUmodule>(loadPtx(kernel));
        else check(driver().moduleLoadData(&module, kernel.cubin.data()), fmt::format("cuModuleLoadData({})", kernel.entry).c_str());
        std::lock_guard lock(mutex_);
        const auto [it, inserted] = modules_.emplace(kernel.key, module);
        if (!inserted) {
            driver().moduleUnload(module);
            module = static_cast<CUmodule>(it->second);
        }
    }
    CUfunction function = nullptr;
    check(driver().moduleGetFunction(&function, module, name.c_str()), fmt::format("cuModuleGetFunction({})", name).c_str());
    std::lock_guard lock(mutex_);
    return functions_.emplace(key, function).first->second;
}

void DeviceContext::preload(const CompiledKernel& kernel) {
    makeCurrent();
    loadFunction(kernel, "");
}

void DeviceContext::launch(const CompiledKernel& kernel, const LaunchShape& s, void** args, const std::string& entry) {
    makeCurrent();
    launchOnCurrent(loadFunction(kernel, entry), s, args, entry.empty() ? kernel.entry : entry);
}

void* DeviceContext::function(const CompiledKernel& kernel) {
    makeCurrent();
    return loadFunction(kernel, {});
}

void DeviceContext::launchFunction(void* function, const LaunchShape& s, void** args, const std::string& name) {
    makeCurrent();
    launchOnCurrent(function, s, args, name);
}

void DeviceContext::launchOnCurrent(void* function, const LaunchShape& s, void** args, const std::string& name) {
    // Past 48 KiB of dynamic shared memory a launch fails unless the function was allowed that much: once per
    // function and size (the attribute stays with the function).
    if (s.sharedBytes > 48 * 1024) {
        std::lock_guard lock(mutex_);
        unsigned& allowed = sharedRaised_[function];
        if (allowed < s.sharedBytes) {
            check(driver().funcSetAttribute(static_cast<CUfunction>(function), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            static_cast<int>(s.sharedBytes)),
                  fmt::format("cuFuncSetAttribute({}, {} bytes of dynamic shared memory)", name, s.sharedBytes).c_str());
            allowed = s.sharedBytes;
        }
    }
    const CUresult launched = driver().launchKernel(static_cast<CUfunction>(function), s.gridX, s.gridY, s.gridZ, s.blockX, s.blockY, s.blockZ,
                                                   s.sharedBytes, static_cast<CUstream>(stream_), args, nullptr);
    // (the message is formatted only on failure: a launch costs a few microseconds, a string more than nothing)
    if (launched != CUDA_SUCCESS) check(launched, fmt::format("cuLaunchKernel({})", name).c_str());
}

void DeviceContext::launch(const KernelSource& source, const LaunchShape& shape, void** args) {
    launch(*KernelCompiler::instance().compile(source, arch_), shape, args);
}

}  // namespace eng::cuda
