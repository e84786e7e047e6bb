// Large CPU blocks: 2 MiB aligned mappings (so that huge pages can back all of one), with madvise(MADV_HUGEPAGE)
// and a cache of freed blocks by rounded size, each switched by the environment (see cpu_large_blocks.h).
#include "tensor/cpu_large_blocks.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace eng::tensor::cpublocks {

namespace {

size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// CWB_CPU_HUGEPAGES=0 turns the advice off, CWB_CPU_BLOCK_CACHE_MB=N sets the cache's size (0: no cache); both
// off, large blocks come from malloc as small ones do.
Settings fromEnvironment() {
    Settings s;
    if (const char* huge = std::getenv("CWB_CPU_HUGEPAGES")) s.hugePages = std::atoi(huge) != 0;
    if (const char* cache = std::getenv("CWB_CPU_BLOCK_CACHE_MB")) {
        char* end = nullptr;
        const long long mb = std::strtoll(cache, &end, 10);
        if (end != cache && *end == '\0' && mb >= 0) s.cacheBytes = static_cast<size_t>(mb) << 20;
    }
    return s;
}

struct Blocks {
    std::mutex mutex;  // guards everything below but active
    Settings settings = fromEnvironment();
    std::atomic<bool> active{settings.hugePages || settings.cacheBytes > 0};
    std::unordered_map<void*, size_t> live;     // handed out: start -> mapped bytes
    std::deque<std::pair<void*, size_t>> kept;  // freed and kept, oldest first
    size_t keptBytes = 0;
    size_t reuses = 0;
};

// Never destroyed: storages released by other static destructors still come here.
Blocks& blocks() {
    static Blocks* const instance = new Blocks;
    return *instance;
}

// A fresh mapping of `size` bytes (a multiple of 2 MiB) that starts on a 2 MiB boundary: 2 MiB more is mapped and
// the ends beyond the aligned range are unmapped again.
void* mapAligned(size_t size, bool hugePages) {
    const size_t span = size + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = roundUp(start, kHugePage);
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t end = start + span, alignedEnd = aligned + size;
    if (end > alignedEnd) munmap(reinterpret_cast<void*>(alignedEnd), end - alignedEnd);
    // Advice only: where transparent huge pages are off (or "never") the mapping is still good, in 4 KiB pages.
    if (hugePages) madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<void*>(aligned);
}

void unmapAll(const std::vector<std::pair<void*, size_t>>& blocksToUnmap) {
    for (const auto& [data, size] : blocksToUnmap) munmap(data, size);
}

// Moves every kept block into `out` (under the mutex).
void dropKept(Blocks& b, std::vector<std::pair<void*, size_t>>& out) {
    out.insert(out.end(), b.kept.begin(), b.kept.end());
    b.kept.clear();
    b.keptBytes = 0;
}

}  // namespace

Settings settings() {
    Blocks& b = blocks();
    std::lock_guard lock(b.mutex);
    return b.settings;
}

void configure(const Settings& next) {
    Blocks& b = blocks();
    std::vector<std::pair<void*, size_t>> unmap;
    {
        std::lock_guard lock(b.mutex);
        b.settings = next;
        b.active.store(next.hugePages || next.cacheBytes > 0);
        dropKept(b, unmap);
    }
    unmapAll(unmap);
}

bool takes(size_t bytes) { return bytes >= kHugePage && blocks().active.load(std::memory_order_relaxed); }

void* allocate(size_t bytes) {
    if (bytes > SIZE_MAX - 2 * kHugePage) return nullptr;  // its rounding (and the alignment slack) would wrap
    Blocks& b = blocks();
    const size_t size = roundUp(bytes, kHugePage);
    bool hugePages = false;
    {
        std::lock_guard lock(b.mutex);
        // The most recently freed block of this size first.
        for (auto it = b.kept.rbegin(); it != b.kept.rend(); ++it) {
            if (it->second != size) continue;
            void* data = it->first;
            b.kept.erase(std::next(it).base());
            b.keptBytes -= size;
            b.live.emplace(data, size);
            ++b.reuses;
            return data;
        }
        hugePages = b.settings.hugePages;
    }
    void* data = mapAligned(size, hugePages);
    if (!data) {
        // Out of address space or memory: what the cache keeps goes back first, then one more try (the system calls
        // outside the lock, as everywhere here).
        std::vector<std::pair<void*, size_t>> unmap;
        {
            std::lock_guard lock(b.mutex);
            dropKept(b, unmap);
        }
        unmapAll(unmap);
        data = mapAligned(size, hugePages);
        if (!data) return nullptr;
    }
    std::lock_guard lock(b.mutex);
    b.live.emplace(data, size);
    return data;
}

bool release(void* data) {
    Blocks& b = blocks();
    std::vector<std::pair<void*, size_t>> unmap;
    {
        std::lock_guard lock(b.mutex);
        const auto found = b.live.find(data);
        if (found == b.live.end()) return false;
        const size_t size = found->second;
        b.live.erase(found);
        if (size <= b.settings.cacheBytes) {
            b.kept.emplace_back(data, size);
            b.keptBytes += size;
            while (b.keptBytes > b.settings.cacheBytes) {
                unmap.push_back(b.kept.front());
                b.keptBytes -= b.kept.front().second;
                b.kept.pop_front();
            }
        } else {
            unmap.emplace_back(data, size);
        }
    }
    unmapAll(unmap);
    return true;
}

size_t cachedBytes() {
    Blocks& b = blocks();
    std::lock_guard lock(b.mutex);
    return b.keptBytes;
}

size_t reuses() {
    Blocks& b = blocks();
    std::lock_guard lock(b.mutex);
    return b.reuses;
}

}  // namespace eng::tensor::cpublocks
