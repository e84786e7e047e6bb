// Large CPU tensor memory (2 MiB and up): mappings of our own, 2 MiB aligned, and freed ones kept for reuse by size,
// so that an eager op's fresh result does not fault in (and the kernel zero) a new mapping on every call.
#pragma once

#include <cstddef>

namespace eng::tensor::cpublocks {

constexpr size_t kHugePage = size_t{2} << 20;

struct Settings {
    bool hugePages = true;               // madvise(MADV_HUGEPAGE) on each new mapping (CWB_CPU_HUGEPAGES=0: off)
    size_t cacheBytes = size_t{1} << 30;  // freed blocks kept for reuse, at most this many bytes (CWB_CPU_BLOCK_CACHE_MB)
};

/// The settings in force: the environment's on first use, or what configure() set.
Settings settings();
/// Replaces the settings (tests); blocks handed out before keep working, and the cache is emptied.
void configure(const Settings& next);

/// Whether a block of `bytes` is allocated here rather than by malloc: 2 MiB or more, with huge pages or the cache on.
bool takes(size_t bytes);
/// A block of at least `bytes`, 2 MiB aligned: a cached one of the same rounded size, else a new mapping; nullptr
/// when the system has none.
void* allocate(size_t bytes);
/// Gives back `data` if allocate() made it (false otherwise: the caller frees it): kept for reuse while the cache
/// has room (the oldest kept blocks are unmapped to make it), else unmapped.
bool release(void* data);

/// Bytes now kept for reuse, and blocks handed out from the cache since the start (tests, the bench's accounting).
size_t cachedBytes();
size_t reuses();

}  // namespace eng::tensor::cpublocks
