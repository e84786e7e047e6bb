// The Graphviz worker thread and its layout cache (see layout_worker.h).
#include "layout/layout_worker.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "layout/nested_layout.h"

namespace viz {

LayoutWorker::LayoutWorker(size_t cacheCapacity) : capacity_(std::max<size_t>(cacheCapacity, 1)) {
    thread_ = std::thread([this] { run(); });
}

LayoutWorker::~LayoutWorker() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

uint64_t LayoutWorker::submit(std::shared_ptr<const LayoutGraph> graph) {
    uint64_t key = layoutHash(*graph);
    {
        std::lock_guard lock(mutex_);
        auto [it, added] = entries_.try_emplace(key);
        Entry& entry = it->second;
        entry.lastUse = ++useClock_;
        if (!added && entry.state != LayoutState::Failed) {
            auto queued = std::find(queue_.begin(), queue_.end(), key);
            if (queued != queue_.end()) {
                queue_.erase(queued);
                queue_.push_front(key);
            }
            return key;
        }
        entry = Entry{};
        entry.lastUse = useClock_;
        entry.nodeCount = graph->nodes.size();
        entry.edgeCount = graph->edges.size();
        entry.graph = std::move(graph);
        queue_.push_front(key);
    }
    wake_.notify_one();
    return key;
}

std::shared_ptr<const GraphLayout> LayoutWorker::result(uint64_t key) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    it->second.lastUse = ++useClock_;
    return it->second.layout;
}

LayoutStatus LayoutWorker::status(uint64_t key) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return {};
    const Entry& entry = it->second;
    LayoutStatus status{entry.state, entry.nodeCount, entry.edgeCount, entry.seconds, entry.error, entry.levels,
                        entry.levelsDone};
    if (entry.state == LayoutState::Running)
        status.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - entry.started).count();
    return status;
}

std::future<RenderResult> LayoutWorker::render(std::shared_ptr<const LayoutGraph> graph, std::string format) {
    RenderJob job{std::move(graph), std::move(format), {}};
    std::future<RenderResult> future = job.promise.get_future();
    {
        std::lock_guard lock(mutex_);
        renders_.push_back(std::move(job));
    }
    wake_.notify_one();
    return future;
}

bool LayoutWorker::waitIdle(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return idle_.wait_for(lock, timeout, [this] { return idleLocked(); });
}

LayoutWorkerStats LayoutWorker::stats() const {
    std::lock_guard lock(mutex_);
    LayoutWorkerStats stats{layoutsRun_, rendersRun_, queue_.size() + renders_.size(), 0};
    for (const auto& [key, entry] : entries_) stats.cached += entry.state == LayoutState::Ready ? 1 : 0;
    return stats;
}

bool LayoutWorker::idleLocked() const { return !busy_ && queue_.empty() && renders_.empty(); }

void LayoutWorker::run() {
    std::unique_ptr<GraphvizSession> session;
    std::string sessionError;
    try {
        session = std::make_unique<GraphvizSession>();  // created on this thread: Graphviz stays on it
    } catch (const std::exception& e) {
        sessionError = e.what();
    }
    std::unique_lock lock(mutex_);
    while (true) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty() || !renders_.empty(); });
        if (stopping_) break;
        busy_ = true;
        if (!renders_.empty()) {
            RenderJob job = std::move(renders_.front());
            renders_.pop_front();
            lock.unlock();
            RenderResult rendered;
            if (session) rendered = session->render(*job.graph, job.format);
            else rendered.error = "Graphviz is unavailable: " + sessionError;
            job.promise.set_value(std::move(rendered));
            lock.lock();
            ++rendersRun_;
        } else if (session) {
            runLayout(*session, lock);
        } else {
            Entry& entry = entries_[queue_.front()];
            queue_.pop_front();
            entry.state = LayoutState::Failed;
            entry.error = "Graphviz is unavailable: " + sessionError;
        }
        busy_ = false;
        if (idleLocked()) idle_.notify_all();
    }
    for (RenderJob& job : renders_) job.promise.set_value({false, {}, "the layout worker stopped"});
    renders_.clear();
}

void LayoutWorker::runLayout(GraphvizSession& session, std::unique_lock<std::mutex>& lock) {
    uint64_t key = queue_.front();
    queue_.pop_front();
    Entry& entry = entries_[key];
    entry.state = LayoutState::Running;
    entry.started = std::chrono::steady_clock::now();
    std::shared_ptr<const LayoutGraph> graph = entry.graph;
    lock.unlock();

    std::shared_ptr<const GraphLayout> layout;
    std::string error;
    try {
        if (graph->nested && !graph->clusters.empty())
            layout = std::make_shared<const GraphLayout>(layOutNested(session, *graph, key, lock));
        else
            layout = std::make_shared<const GraphLayout>(session.layout(*graph));
    } catch (const std::exception& e) {
        error = e.what();
    }

    lock.lock();
    // The entry may have been evicted meanwhile only if it was not running, so it is still there.
    Entry& done = entries_[key];
    done.graph.reset();
    done.layout = std::move(layout);
    done.state = done.layout ? LayoutState::Ready : LayoutState::Failed;
    done.seconds = done.layout ? done.layout->seconds : 0;
    done.error = std::move(error);
    ++layoutsRun_;
    evictLocked();
}

GraphLayout LayoutWorker::layOutNested(GraphvizSession& session, const LayoutGraph& graph, uint64_t key,
                                       std::unique_lock<std::mutex>& lock) {
    auto start = std::chrono::steady_clock::now();
    NestedPlan plan = planNestedLayout(graph);
    std::vector<std::shared_ptr<const GraphLayout>> layouts(plan.levels.size());
    size_t laidOut = 0;
    for (size_t level = 0; level < plan.levels.size(); ++level) {
        auto levelGraph = std::make_shared<const LayoutGraph>(nestedLevelGraph(graph, plan, level, layouts));
        uint64_t levelKey = layoutHash(*levelGraph);
        lock.lock();
        Entry& whole = entries_[key];  // running, so never evicted; element references survive rehashing
        whole.levels = plan.levels.size();
        whole.levelsDone = level;
        auto cached = entries_.find(levelKey);
        if (cached != entries_.end() && cached->second.state == LayoutState::Ready) {
            cached->second.lastUse = ++useClock_;
            layouts[level] = cached->second.layout;
        }
        lock.unlock();
        if (layouts[level]) continue;
        layouts[level] = std::make_shared<const GraphLayout>(session.layout(*levelGraph));
        ++laidOut;
        lock.lock();
        Entry& entry = entries_[levelKey];
        entry.state = LayoutState::Ready;
        entry.layout = layouts[level];
        entry.nodeCount = levelGraph->nodes.size();
        entry.edgeCount = levelGraph->edges.size();
        entry.seconds = layouts[level]->seconds;
        entry.lastUse = ++useClock_;
        lock.unlock();
    }
    GraphLayout layout = composeNestedLayout(graph, plan, layouts);
    layout.levels = plan.levels.size();
    layout.levelsLaidOut = laidOut;
    layout.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return layout;
}

void LayoutWorker::evictLocked() {
    std::vector<std::pair<uint64_t, uint64_t>> ready;  // (lastUse, key)
    size_t nodes = 0;
    for (const auto& [key, entry] : entries_) {
        if (entry.state != LayoutState::Ready && entry.state != LayoutState::Failed) continue;
        ready.emplace_back(entry.lastUse, key);
        nodes += entry.nodeCount;
    }
    std::sort(ready.begin(), ready.end());
    // Many small levels, or a few whole graphs of thousands of nodes: the node count bounds the memory. The newest
    // stays, however big: the view that asked for it has yet to pick it up.
    for (size_t i = 0; i + 1 < ready.size() && (ready.size() - i > capacity_ || nodes > kMaxCachedNodes); ++i) {
        nodes -= entries_[ready[i].second].nodeCount;
        entries_.erase(ready[i].second);
    }
}

}  // namespace viz
