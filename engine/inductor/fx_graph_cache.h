// Inductor's FX graph cache: the schedule of a lowered graph (fused kernels in the loop-level IR, steps, fusion
// decisions) kept on disk, keyed by a hash of the captured graph (its code and every node's metadata), the example
// inputs' metadata, the options and this build of cwb, so that a second run of a program skips the scheduler; the
// kernels' machine code then comes from the kernel cache (kernel_cache/). Lowering still runs on a hit: extern
// kernels are calls over the graph's nodes, which only lowering makes. Each lookup is reported as PyTorch logs it
// (fx/cache_events.h: fx_graph_cache_hit / miss / bypass).
#pragma once

#include <filesystem>
#include <functional>

#include "inductor/inductor_backend.h"
#include "inductor/lowered_graph.h"
#include "inductor/scheduler.h"

namespace eng::inductor {

/// PyTorch's cache_dir(): $TORCHINDUCTOR_CACHE_DIR, else /tmp/torchinductor_$USER; the FX graph cache is its
/// `fxgraph` folder.
std::filesystem::path inductorCacheDir();

/// Whether compiles look in the FX graph cache: TORCHINDUCTOR_FX_GRAPH_CACHE=0/1 decides when set (PyTorch's
/// env_name_force), else the `fx_graph_cache` option (torch._inductor.config.fx_graph_cache, default True), and
/// TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 turns it off.
bool fxGraphCacheEnabled(const vm::Value& backendOptions);

/// The schedule of `lowered` (lowered from `graph` and `examples` under `config`): the cached one when an entry
/// matches, else `schedule()`'s, stored for the next run. Reports the lookup; with the cache off, just schedule().
Schedule scheduleThroughCache(const fx::Graph& graph, const vm::ValueList& examples, const InductorConfig& config,
                              const LoweredGraph& lowered, const std::function<Schedule()>& schedule);

}  // namespace eng::inductor
