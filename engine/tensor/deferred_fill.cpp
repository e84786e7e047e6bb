// Deferred element loops (CPU loops and CUDA launches): a table of storages whose fill has not run (with what it
// reads) and of storages that pending fills read; Tensor::data() settles a storage before anyone touches its elements.
#include "tensor/deferred_fill.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace eng::tensor {

std::atomic<int64_t> g_deferredStorages{0};

namespace {

/// One storage's pending work: its own fill (empty for a storage that is only read by pending fills) and the
/// storages whose pending fills read it.
struct Pending {
    std::weak_ptr<Storage> self;
    FillFunction fill;
    Shape sizes;
    Shape strides;
    int64_t offset = 0;
    DType dtype = DType::Float32;
    std::vector<Tensor> inputs;  // handles of their own (an in-place geometry change of a caller's tensor is not seen)
    std::vector<std::weak_ptr<Storage>> readers;
};

std::mutex g_mutex;  // guards g_pending; never held while a fill runs (fills use the worker pool)
std::unordered_map<const Storage*, Pending> g_pending;
std::atomic<int64_t> g_fillsRun{0};
thread_local bool t_deferring = false;

// Which storages may have an entry, as bits of a hash of their address (a Bloom filter of one hash): once a trace
// left pending examples alive, Tensor::data() of every other tensor is told apart without taking the lock.
constexpr size_t kFilterWords = 1024;
std::atomic<uint64_t> g_filter[kFilterWords];

size_t filterBit(const Storage* storage) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(storage) >> 6) * 0x9E3779B97F4A7C15ull >> 48);
}

bool mayHaveEntry(const Storage* storage) {
    const size_t bit = filterBit(storage);
    return (g_filter[bit / 64].load(std::memory_order_acquire) >> (bit % 64) & 1) != 0;
}

void publishLocked() {
    g_deferredStorages.store(static_cast<int64_t>(g_pending.size()), std::memory_order_release);
    if (g_pending.empty())
        for (std::atomic<uint64_t>& word : g_filter) word.store(0, std::memory_order_relaxed);
}

/// The entry of `storage` in the table, made when it has none (the caller holds the lock).
Pending& entryLocked(const Storage* storage) {
    const size_t bit = filterBit(storage);
    g_filter[bit / 64].fetch_or(uint64_t{1} << (bit % 64), std::memory_order_release);
    return g_pending[storage];
}

/// The entry of `storage`, removed from the table; none when it has none.
std::optional<Pending> takeLocked(const Storage* storage) {
    auto it = g_pending.find(storage);
    if (it == g_pending.end()) return std::nullopt;
    Pending entry = std::move(it->second);
    g_pending.erase(it);
    publishLocked();
    return entry;
}

}  // namespace

DeferredFillScope::DeferredFillScope() : previous_(t_deferring) { t_deferring = true; }
DeferredFillScope::~DeferredFillScope() { t_deferring = previous_; }

bool deferringFills() { return t_deferring; }

namespace {

// Out and every input on one device (the CPU, or one CUDA device: its one stream keeps the settled launches in
// order), out's storage held by out alone and read by none of the inputs.
bool deferrable(const Tensor& out, const std::vector<Tensor>& inputs) {
    if (!t_deferring || out.numel() == 0 || out.storage().use_count() != 1) return false;
    const Device device = normalizeDevice(out.device());
    if (device.type() != DeviceType::CPU && device.type() != DeviceType::CUDA) return false;
    for (const Tensor& input : inputs)
        if (normalizeDevice(input.device()) != device || input.storage() == out.storage()) return false;
    return true;
}

}  // namespace

void fillOrDefer(const Tensor& out, std::vector<Tensor> inputs, FillFunction fill) {
    if (!deferrable(out, inputs)) {
        fill(out, inputs);
        return;
    }
    // Something already pending on out's storage (an earlier fill of part of it, or fills that read it) must run
    // before this write: then out is no fresh result, and the fill runs now (its data() settles them first).
    if (mayHaveEntry(out.storage().get())) {
        bool pending = false;
        {
            const std::lock_guard<std::mutex> lock(g_mutex);
            pending = g_pending.count(out.storage().get()) != 0;
        }
        if (pending) {
            fill(out, inputs);
            return;
        }
    }
    Pending entry;
    entry.self = out.storage();
    entry.fill = std::move(fill);
    entry.sizes = out.sizes();
    entry.strides = out.strides();
    entry.offset = out.storageOffset();
    entry.dtype = out.dtype();
    for (const Tensor& input : inputs)
        entry.inputs.emplace_back(input.storage(), input.sizes(), input.strides(), input.storageOffset(), input.dtype());
    const std::lock_guard<std::mutex> lock(g_mutex);
    for (const Tensor& input : inputs) {
        Pending& read = entryLocked(input.storage().get());
        if (read.self.expired()) read.self = input.storage();
        read.readers.push_back(out.storage());
    }
    entryLocked(out.storage().get()) = std::move(entry);
    publishLocked();
}

void settleDeferred(const Storage* storage) {
    if (!mayHaveEntry(storage)) return;
    // One work list rather than recursion: a traced chain of a million additions is a million deferred fills.
    std::vector<StoragePtr> work;
    {
        const std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_pending.find(storage);
        if (it == g_pending.end()) return;
        StoragePtr alive = it->second.self.lock();
        if (!alive) return;  // being destroyed: ~Storage forgets it
        work.push_back(std::move(alive));
    }
    while (!work.empty()) {
        const StoragePtr current = work.back();
        std::optional<Pending> entry;
        {
            const std::lock_guard<std::mutex> lock(g_mutex);
            auto it = g_pending.find(current.get());
            if (it == g_pending.end()) {
                work.pop_back();
                continue;
            }
            // A fill runs once its inputs have nothing pending: their own fills, and the fills that read them.
            bool waiting = false;
            if (it->second.fill)
                for (const Tensor& input : it->second.inputs)
                    if (g_pending.count(input.storage().get()) != 0) {
                        work.push_back(input.storage());
                        waiting = true;
                    }
            if (waiting) continue;
            entry = takeLocked(current.get());
        }
        work.pop_back();
        if (entry->fill) {
            const Tensor out(current, entry->sizes, entry->strides, entry->offset, entry->dtype);
            entry->fill(out, entry->inputs);
            g_fillsRun.fetch_add(1, std::memory_order_relaxed);
        }
        // Whoever touches this storage may write it: the fills that read it run first, on its current contents
        // (before this call returns; nothing else writes a storage meanwhile, a fill writes only its own result).
        for (const std::weak_ptr<Storage>& reader : entry->readers)
            if (StoragePtr r = reader.lock()) work.push_back(std::move(r));
    }
}

void forgetDeferred(const Storage* storage) {
    if (!mayHaveEntry(storage)) return;
    std::optional<Pending> entry;
    {
        const std::lock_guard<std::mutex> lock(g_mutex);
        entry = takeLocked(storage);
    }
    if (!entry) return;
    // An entry holds its inputs, which may end with it and forget their own entries: a chain of a million is
    // released one entry at a time by the outermost call, unlocked, instead of a million nested destructors.
    thread_local std::vector<Pending> released;
    thread_local bool releasing = false;
    released.push_back(std::move(*entry));
    if (releasing) return;
    releasing = true;
    while (!released.empty()) {
        Pending last = std::move(released.back());
        released.pop_back();
    }
    releasing = false;
}

int64_t deferredFillsRun() { return g_fillsRun.load(std::memory_order_relaxed); }

}  // namespace eng::tensor
