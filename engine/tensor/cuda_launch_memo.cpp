// The eager CUDA kernel memo: one map from spec keys (device first) to loaded entry points, for every device.
// Entries are never dropped: a device context keeps its modules loaded for the process's life.
#include "tensor/cuda_launch_memo.h"

#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace eng::tensor::cudaops {

namespace {

// Looked up by the key's text in place (no copy per launch); the kernels sit behind stable pointers.
struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

struct Memo {
    std::mutex mutex;
    std::unordered_map<std::string, std::unique_ptr<MemoizedKernel>, StringHash, std::equal_to<>> kernels;
};

Memo& memo() {
    static Memo instance;
    return instance;
}

// A field's end: a byte no family name, dtype code, number or generated expression contains.
constexpr char kFieldEnd = '\x1f';

}  // namespace

KernelKey::KernelKey(int device, std::string_view family) {
    text_ = std::to_string(device);
    text_ += kFieldEnd;
    add(family);
}

KernelKey& KernelKey::add(DType dtype) {
    text_ += static_cast<char>('A' + static_cast<int>(dtype));
    text_ += kFieldEnd;
    return *this;
}

KernelKey& KernelKey::add(int64_t value) {
    text_ += std::to_string(value);
    text_ += kFieldEnd;
    return *this;
}

KernelKey& KernelKey::add(std::string_view text) {
    text_ += text;
    text_ += kFieldEnd;
    return *this;
}

bool memoEnabled() {
    static const bool enabled = [] {
        const char* setting = std::getenv("CWB_EAGER_KERNEL_MEMO");
        return setting == nullptr || std::string_view(setting) != "0";
    }();
    return enabled;
}

const MemoizedKernel* findMemoized(const KernelKey& key) {
    Memo& m = memo();
    std::lock_guard lock(m.mutex);
    auto it = m.kernels.find(std::string_view(key.text()));
    return it == m.kernels.end() ? nullptr : it->second.get();
}

const MemoizedKernel& memoize(cuda::DeviceContext& context, const KernelKey& key, const cuda::KernelSource& source) {
    const auto compiled = cuda::KernelCompiler::instance().compile(source, context.arch());
    auto kernel = std::make_unique<MemoizedKernel>(MemoizedKernel{context.function(*compiled), compiled->entry});
    Memo& m = memo();
    std::lock_guard lock(m.mutex);
    // (another thread may have memoized the same key meanwhile: the first entry stays, both are the same kernel)
    return *m.kernels.try_emplace(key.text(), std::move(kernel)).first->second;
}

}  // namespace eng::tensor::cudaops
