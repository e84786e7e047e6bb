// Eager CUDA kernels memoized per op spec: the first launch of a spec on a device builds its source (tens of
// kilobytes with the shared prelude), compiles it through KernelCompiler's caches and loads it; later launches find
// the loaded function by the spec's short key, so no source is built, copied or hashed per launch. A first launch may
// also name kernels it makes likely soon (a flash forward's backward passes), which compile on background threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/device_context.h"
#include "tensor/dtype.h"

namespace eng::tensor::cudaops {

// What decides one eager kernel's source: the device, the op family's name, then the dtypes and variants its
// generator reads, each appended as a field (every field is delimited, so distinct field lists give distinct keys).
class KernelKey {
public:
    KernelKey(int device, std::string_view family);
    KernelKey(const cuda::DeviceContext& context, std::string_view family) : KernelKey(context.index(), family) {}
    KernelKey& add(DType dtype);
    KernelKey& add(int64_t value);
    KernelKey& add(std::string_view text);
    const std::string& text() const { return text_; }

private:
    std::string text_;
};

// A loaded kernel: the entry point's function on the key's device and its name (for launch errors).
struct MemoizedKernel {
    void* function = nullptr;
    std::string entry;
};

// A kernel by its key and its source's generator (which must depend on nothing the key does not name, and may run
// on another thread: it captures by value).
struct EagerKernel {
    KernelKey key;
    std::function<cuda::KernelSource()> source;
};

// Whether launches use the memo: CWB_EAGER_KERNEL_MEMO=0 turns it off, so that every launch builds its source and
// looks it up in the compiler's cache as before (to measure what the memo saves).
bool memoEnabled();
// Whether first launches compile what they make near-certain next (a flash forward's or a recording sdpa's backward
// passes, a backward's second pass) on the prefetch threads: CWB_EAGER_PREFETCH=0 turns it off (default 1). A wider
// guess (a pointwise family's every op over the launch's dtype, 159 more kernels for GPT-2) measured slower: its
// compiles crowded out the ones the trace waited for (H100 host, 2026-11-27: first step 5.52 against 5.16 s).
int prefetchLevel();
// The kernel of key, or null before its first launch.
const MemoizedKernel* findMemoized(const KernelKey& key);
// Compiles `source` for context's device (or takes a prefetch of key, waiting for it), loads it and keeps it
// under key.
const MemoizedKernel& memoize(cuda::DeviceContext& context, const KernelKey& key, const cuda::KernelSource& source);
// Queues the kernels that are neither memoized nor already queued for the prefetch threads (one less than the
// machine's hardware threads, at most 15); memoize() of a key then waits for its prefetch if a thread is compiling
// it, and compiles it itself if none has started it yet.
void prefetch(const cuda::DeviceContext& context, std::vector<EagerKernel> kernels);

// Where this process's eager kernels came from: compiled (or read from the kernel cache) by their first launch, with
// the wall time that took; compiled by a prefetch thread, with the time the launch waited for it; and prefetches
// queued. Monotonic counters.
struct EagerKernelStats {
    int64_t compiled = 0;
    double compileSeconds = 0;
    int64_t fromPrefetch = 0;
    double prefetchWaitSeconds = 0;
    int64_t prefetched = 0;
};
EagerKernelStats eagerKernelStats();

// Launches the kernel key names on context's stream; `makeSource()` (returning a cuda::KernelSource) runs only on
// the first launch of key, so key must name everything it depends on.
template <class MakeSource>
void launchMemoized(cuda::DeviceContext& context, const KernelKey& key, MakeSource&& makeSource, const cuda::LaunchShape& shape,
                    void** args) {
    if (!memoEnabled()) return context.launch(makeSource(), shape, args);
    const MemoizedKernel* kernel = findMemoized(key);
    if (kernel == nullptr) kernel = &memoize(context, key, makeSource());
    context.launchFunction(kernel->function, shape, args, kernel->entry);
}

// launchMemoized, and on key's first launch queues the prefetch of `followers()` (a std::vector<EagerKernel>).
template <class MakeSource, class Followers>
void launchMemoized(cuda::DeviceContext& context, const KernelKey& key, MakeSource&& makeSource, const cuda::LaunchShape& shape,
                    void** args, Followers&& followers) {
    if (memoEnabled() && prefetchLevel() > 0 && findMemoized(key) == nullptr) prefetch(context, followers());
    launchMemoized(context, key, makeSource, shape, args);
}

}  // namespace eng::tensor::cudaops
