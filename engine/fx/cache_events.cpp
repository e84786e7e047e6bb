// Cache events of backend compiles (see cache_events.h): a thread-local stack of collecting scopes.
#include "fx/cache_events.h"

namespace eng::fx {

namespace {

thread_local CacheEventScope* innermost = nullptr;

}  // namespace

void reportCacheEvent(CacheEvent event) {
    if (innermost) innermost->events_.push_back(std::move(event));
}

CacheEventScope::CacheEventScope() : outer_(innermost) { innermost = this; }

CacheEventScope::~CacheEventScope() { innermost = outer_; }

}  // namespace eng::fx
