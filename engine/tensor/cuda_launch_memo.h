// Eager CUDA kernels memoized per op spec: the first launch of a spec on a device builds its source (tens of
// kilobytes with the shared prelude), compiles it through KernelCompiler's caches and loads it; later launches find
// the loaded function by the spec's short key, so no source is built, copied or hashed per launch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// Whether launches use the memo: CWB_EAGER_KERNEL_MEMO=0 turns it off, so that every launch builds its source and
// looks it up in the compiler's cache as before (to measure what the memo saves).
bool memoEnabled();
// The kernel of key, or null before its first launch.
const MemoizedKernel* findMemoized(const KernelKey& key);
// Compiles `source` for context's device, loads it and keeps it under key.
const MemoizedKernel& memoize(cuda::DeviceContext& context, const KernelKey& key, const cuda::KernelSource& source);

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

}  // namespace eng::tensor::cudaops
