// One CUDA device as cwb uses it: its primary context, one stream that orders all of cwb's work on it, a
// caching allocator, host<->device copies, and kernels (compiled by KernelCompiler) loaded and launched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/nvrtc_compiler.h"

namespace eng::cuda {

struct LaunchShape {
    unsigned gridX = 1, gridY = 1, gridZ = 1;
    unsigned blockX = 1, blockY = 1, blockZ = 1;
    unsigned sharedBytes = 0;
};

class DeviceContext {
public:
    // The context of device `index` (created on first use); throws CudaError when CUDA is unavailable or the
    // index is out of range.
    static DeviceContext& get(int index);
    static int deviceCount();

    int index() const { return index_; }
    const std::string& name() const { return name_; }
    // "sm_90" for compute capability 9.0: what NVRTC compiles for.
    const std::string& arch() const { return arch_; }
    int multiprocessorCount() const { return multiprocessors_; }

    // Makes this device's context current on the calling thread (every method below does this itself).
    void makeCurrent() const;
    // The CUstream cwb's work on this device runs on (opaque so that callers need no CUDA headers).
    void* stream() const { return stream_; }

    // Memory from a per-size free list, so that eager ops do not pay cuMemAlloc/cuMemFree each time. Blocks
    // are reused only in stream order (everything runs on stream()), which keeps reuse safe.
    void* allocate(size_t bytes);
    void deallocate(void* pointer);
    // Returns every cached free block to the driver (also done once when an allocation fails).
    void releaseCachedMemory();
    size_t cachedBytes() const;

    void copyHostToDevice(void* deviceDst, const void* hostSrc, size_t bytes);
    void copyDeviceToHost(void* hostDst, const void* deviceSrc, size_t bytes);
    void copyDeviceToDevice(void* deviceDst, const void* deviceSrc, size_t bytes);
    void memsetZero(void* deviceDst, size_t bytes);
    void synchronize();

    // Loads the kernel's module on this device once (by its cache key) and launches it on stream().
    // args: pointers to each kernel parameter, as cuLaunchKernel takes them.
    void launch(const CompiledKernel& kernel, const LaunchShape& shape, void** args);
    // Compiles (through the cache) for this device's architecture and launches.
    void launch(const KernelSource& source, const LaunchShape& shape, void** args);

    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;

private:
    explicit DeviceContext(int index);
    void* loadFunction(const CompiledKernel& kernel);

    int index_;
    int device_ = 0;  // CUdevice
    std::string name_;
    std::string arch_;
    int multiprocessors_ = 0;
    void* context_ = nullptr;  // CUcontext (primary)
    void* stream_ = nullptr;   // CUstream

    mutable std::mutex mutex_;
    std::multimap<size_t, void*> freeBlocks_;            // size -> block
    std::unordered_map<void*, size_t> liveBlocks_;       // block -> size
    size_t cachedBytes_ = 0;
    std::unordered_map<std::string, void*> functions_;   // kernel key -> CUfunction
};

// Sizes the caching allocator hands out: 512-byte granules up to 1 MiB, then 2 MiB multiples, so that
// blocks of slightly different tensors are shared.
size_t roundedAllocationSize(size_t bytes);

}  // namespace eng::cuda
