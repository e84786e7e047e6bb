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

#include "cuda/device_assertions.h"
#include "cuda/nvrtc_compiler.h"

namespace eng::cuda {

class MemoryPool;

struct LaunchShape {
    unsigned gridX = 1, gridY = 1, gridZ = 1;
    unsigned blockX = 1, blockY = 1, blockZ = 1;
    // Dynamic shared memory; past 48 KiB the launch raises the function's limit first (at most
    // DeviceContext::sharedPerBlockOptin()).
    unsigned sharedBytes = 0;
};

class DeviceContext {
public:
    // The context of device `index` (created on first use); throws CudaError when CUDA is unavailable or the
    // index is out of range.
    static DeviceContext& get(int index);
    static int deviceCount();
    // Synchronises every device whose context exists (none is started): the end of a program, where a
    // device-side assertion still pending is raised.
    static void synchronizeStarted();

    int index() const { return index_; }
    const std::string& name() const { return name_; }
    // "sm_90" for compute capability 9.0: what NVRTC compiles for.
    const std::string& arch() const { return arch_; }
    int multiprocessorCount() const { return multiprocessors_; }
    // The most shared memory one block may have once a kernel opts in (227 KiB on the H100; 48 KiB without opting in).
    int sharedPerBlockOptin() const { return sharedOptin_; }

    // Loads `kernel`'s module (the driver's JIT for PTX) ahead of its first launch: before a CUDA graph records the
    // launch, which may not load a module.
    void preload(const CompiledKernel& kernel);
    // Makes this device's context current on the calling thread (every method below does this itself).
    void makeCurrent() const;
    // The CUstream cwb's work on this device runs on (opaque so that callers need no CUDA headers).
    void* stream() const { return stream_; }

    // Memory from a per-size free list, so that eager ops do not pay cuMemAlloc/cuMemFree each time. Blocks
    // are reused only in stream order (everything runs on stream()), which keeps reuse safe.
    void* allocate(size_t bytes);
    void deallocate(void* pointer);
    // Returns every cached free block to the driver (an allocation that fails frees the largest ones until it
    // fits). Blocks of live private pools stay with their pools.
    void releaseCachedMemory();
    size_t cachedBytes() const;

    void copyHostToDevice(void* deviceDst, const void* hostSrc, size_t bytes);
    void copyDeviceToHost(void* hostDst, const void* deviceSrc, size_t bytes);
    void copyDeviceToDevice(void* deviceDst, const void* deviceSrc, size_t bytes);
    void memsetZero(void* deviceDst, size_t bytes);
    // Waits for the stream, then raises the error of a device-side assertion its kernels recorded (once).
    void synchronize();
    // This device's assertion word (created on first use, zero until a kernel asserts; device_assertions.h).
    AssertionWord assertionWord();

    // Loads the kernel's module on this device once (by its cache key) and launches it on stream().
    // args: pointers to each kernel parameter, as cuLaunchKernel takes them. `entry` launches another entry point
    // of the kernel's module than kernel.entry (a generated kernel's second stage).
    void launch(const CompiledKernel& kernel, const LaunchShape& shape, void** args, const std::string& entry = {});
    // Compiles (through the cache) for this device's architecture and launches.
    void launch(const KernelSource& source, const LaunchShape& shape, void** args);
    // The kernel's entry point on this device (its module loaded once), for callers that keep it per kernel:
    // launchFunction then skips the lookup by the kernel's key, which hashes its whole source. `name` is the entry
    // point's, for the error message.
    void* function(const CompiledKernel& kernel);
    void launchFunction(void* function, const LaunchShape& shape, void** args, const std::string& name);

    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;

private:
    friend class MemoryPool;
    friend class PrivatePoolScope;
    explicit DeviceContext(int index);
    void* loadFunction(const CompiledKernel& kernel, const std::string& entry);
    void launchOnCurrent(void* function, const LaunchShape& shape, void** args, const std::string& name);
    void* loadPtx(const CompiledKernel& kernel);  // a CUmodule, JIT-compiled by the driver
    uint64_t createPool();
    void releasePool(uint64_t pool);
    // cuMemAlloc, allowed while this thread captures a CUDA graph (see allocate()).
    void* allocateFromDriver(size_t size, bool mayReleaseCache);
    // Frees the largest block of the shared cache; false when the cache is empty.
    bool releaseLargestCachedBlock();

    struct LiveBlock {
        size_t size = 0;
        uint64_t pool = 0;  // 0: the shared free lists
    };
    struct Pool {
        std::multimap<size_t, void*> freeBlocks;
        size_t reservedBytes = 0;
    };

    int index_;
    int device_ = 0;  // CUdevice
    std::string name_;
    std::string arch_;
    int multiprocessors_ = 0;
    int sharedOptin_ = 48 * 1024;
    void* context_ = nullptr;  // CUcontext (primary)
    void* stream_ = nullptr;   // CUstream
    AssertionWord assertions_;  // mapped host memory, allocated by the first assertionWord()
    std::once_flag assertionsOnce_;

    mutable std::mutex mutex_;
    std::multimap<size_t, void*> freeBlocks_;            // size -> block
    std::unordered_map<void*, LiveBlock> liveBlocks_;    // block -> size and owning pool
    size_t cachedBytes_ = 0;
    std::unordered_map<uint64_t, Pool> pools_;           // live private pools by id (ids are never reused)
    uint64_t nextPool_ = 1;
    std::unordered_map<std::string, void*> functions_;   // kernel key (+ another entry's name) -> CUfunction
    std::unordered_map<std::string, void*> modules_;     // kernel key -> CUmodule: one load for all its entries
    std::unordered_map<void*, unsigned> sharedRaised_;   // CUfunction -> dynamic shared memory it was allowed
};

// A private memory pool, as torch.cuda.graph's: a CUDA graph bakes in the addresses its kernels and library
// calls used while it was captured, so memory allocated during the capture must belong to the recording alone.
// While a PrivatePoolScope is active on a thread, that thread's allocations on the device come from the pool
// (its own free blocks first, else new cuMemAlloc blocks: the pool starts empty), and a pool block freed on any
// thread returns to the pool, never to the shared free lists, so no one else's work lands in memory a replay
// writes. Destroying the pool (after the graph that used it) hands its blocks to the shared cache; blocks still
// held by tensors join the shared cache when those tensors free them.
class MemoryPool {
public:
    explicit MemoryPool(DeviceContext& device) : device_(device), id_(device.createPool()) {}
    ~MemoryPool() { device_.releasePool(id_); }
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    DeviceContext& device() const { return device_; }
    // Bytes obtained from the driver for this pool (live and free blocks).
    size_t reservedBytes() const;

private:
    friend class PrivatePoolScope;
    DeviceContext& device_;
    uint64_t id_;
};

// Routes the calling thread's allocations on the pool's device into the pool until the scope ends (scopes nest).
class PrivatePoolScope {
public:
    explicit PrivatePoolScope(MemoryPool& pool);
    ~PrivatePoolScope();
    PrivatePoolScope(const PrivatePoolScope&) = delete;
    PrivatePoolScope& operator=(const PrivatePoolScope&) = delete;

private:
    const DeviceContext* previousDevice_;
    uint64_t previousPool_;
};

// Sizes the caching allocator hands out: 512-byte granules up to 1 MiB, then 2 MiB multiples, so that
// blocks of slightly different tensors are shared.
size_t roundedAllocationSize(size_t bytes);

}  // namespace eng::cuda
