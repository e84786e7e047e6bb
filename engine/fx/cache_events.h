// A backend's cache lookups while it compiles (Inductor's FX graph cache: hit, miss or bypass), reported to whoever
// compiles through it: the capture engine records them as TORCH_TRACE's `fx_graph_cache_<result>` artifacts and
// counts them in torch._dynamo.utils.counters["inductor"], however deep the backend that looked sits (AOT Autograd
// compiles its forward and backward through the inductor, each with its own lookup).
#pragma once

#include <string>
#include <vector>

namespace eng::fx {

struct CacheEvent {
    std::string cache;    // "fx_graph" (the artifact's prefix)
    std::string result;   // "hit", "miss" or "bypass"
    std::string payload;  // the artifact's JSON payload, as PyTorch logs it (key, components, cache_state, ...)
};

/// Hands `event` to the innermost CacheEventScope of this thread; dropped when none is open.
void reportCacheEvent(CacheEvent event);

/// Collects the cache events reported on this thread while it lives (one backend compile).
class CacheEventScope {
public:
    CacheEventScope();
    ~CacheEventScope();
    CacheEventScope(const CacheEventScope&) = delete;
    CacheEventScope& operator=(const CacheEventScope&) = delete;
    const std::vector<CacheEvent>& events() const { return events_; }

private:
    friend void reportCacheEvent(CacheEvent event);
    std::vector<CacheEvent> events_;
    CacheEventScope* outer_;
};

}  // namespace eng::fx
