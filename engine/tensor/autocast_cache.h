// The weight-cast cache of torch.autocast (PyTorch's cached_cast): inside an autocast region the lower-precision copy
// of a float32 leaf that requires grad is made once and reused by every later op of the region, until the outermost
// region exits, so an in-place update of the weight inside the region is not seen by later casts, as in PyTorch.
#pragma once

namespace eng::tensor {

/// torch.is_autocast_cache_enabled / torch.set_autocast_cache_enabled (this thread's).
bool autocastCacheEnabled();
void setAutocastCacheEnabled(bool enabled);
/// torch.autocast_increment_nesting / autocast_decrement_nesting: the regions entered; each returns the new count,
/// and the caller clears the cache when an exit brings it to 0.
int autocastIncrementNesting();
int autocastDecrementNesting();
/// torch.clear_autocast_cache.
void clearAutocastCache();

}  // namespace eng::tensor
