// The one background thread that runs Graphviz: a queue of layout jobs (newest request first), a cache of
// finished layouts keyed by layoutHash, and export renders. The UI submits, then polls each frame; it never
// blocks on Graphviz.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "graph/layout_graph.h"
#include "layout/graph_layout.h"
#include "layout/graphviz_layout.h"

namespace viz {

enum class LayoutState { Unknown, Queued, Running, Ready, Failed };

struct LayoutStatus {
    LayoutState state = LayoutState::Unknown;
    size_t nodeCount = 0;
    size_t edgeCount = 0;
    double seconds = 0;  ///< running: time so far; ready: time dot took
    std::string error;   ///< when failed
    size_t levels = 0;      ///< a nested layout's levels (see nested_layout.h); 0 for one Graphviz run
    size_t levelsDone = 0;  ///< of those, laid out or found in the cache so far
};

struct LayoutWorkerStats {
    int layoutsRun = 0;
    int rendersRun = 0;
    size_t queued = 0;
    size_t cached = 0;
};

/// Graphviz is not thread-safe, so a process holds one LayoutWorker (the app's, or one test's at a time) and
/// nothing else calls Graphviz.
class LayoutWorker {
public:
    /// Nested layouts cache each level too (small graphs), hence room for many; kMaxCachedNodes bounds their size.
    explicit LayoutWorker(size_t cacheCapacity = 512);
    static constexpr size_t kMaxCachedNodes = 200000;
    ~LayoutWorker();
    LayoutWorker(const LayoutWorker&) = delete;
    LayoutWorker& operator=(const LayoutWorker&) = delete;

    /// Queues a layout of `graph` unless one with the same layoutHash is cached, queued or running; a queued
    /// one moves to the front (the user looks at it now). Returns the hash, the key for result() and status().
    uint64_t submit(std::shared_ptr<const LayoutGraph> graph);
    /// The finished layout, or null while it is queued or running (or failed, or evicted).
    std::shared_ptr<const GraphLayout> result(uint64_t key) const;
    LayoutStatus status(uint64_t key) const;

    /// Lays `graph` out with labels and renders it in `format` (svg, png, ...), ahead of queued layouts.
    std::future<RenderResult> render(std::shared_ptr<const LayoutGraph> graph, std::string format);

    /// Blocks until no job is queued or running, or `timeout` passes; true when idle. For tests and scripted
    /// screenshots, never for the UI thread's frames.
    bool waitIdle(std::chrono::milliseconds timeout) const;
    LayoutWorkerStats stats() const;

private:
    struct Entry {
        LayoutState state = LayoutState::Queued;
        std::shared_ptr<const LayoutGraph> graph;  ///< dropped once laid out
        std::shared_ptr<const GraphLayout> layout;
        size_t nodeCount = 0;
        size_t edgeCount = 0;
        std::chrono::steady_clock::time_point started;
        double seconds = 0;
        std::string error;
        size_t levels = 0;
        size_t levelsDone = 0;
        mutable uint64_t lastUse = 0;  ///< LRU clock; result() is const but counts as a use
    };
    struct RenderJob {
        std::shared_ptr<const LayoutGraph> graph;
        std::string format;
        std::promise<RenderResult> promise;
    };

    void run();
    void runLayout(GraphvizSession& session, std::unique_lock<std::mutex>& lock);
    /// Lays `graph` out level by level, each level from the cache when it is there; called without the lock.
    GraphLayout layOutNested(GraphvizSession& session, const LayoutGraph& graph, uint64_t key,
                             std::unique_lock<std::mutex>& lock);
    void evictLocked();
    bool idleLocked() const;

    size_t capacity_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    mutable std::condition_variable idle_;
    std::unordered_map<uint64_t, Entry> entries_;
    std::deque<uint64_t> queue_;
    std::deque<RenderJob> renders_;
    bool busy_ = false;
    bool stopping_ = false;
    mutable uint64_t useClock_ = 0;
    int layoutsRun_ = 0;
    int rendersRun_ = 0;
    std::thread thread_;  ///< last: starts after every other member exists
};

}  // namespace viz
