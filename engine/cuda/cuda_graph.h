// CUDA graphs on cwb's stream: the work of a callback is captured once into a graph and replayed with one launch
// (torch.compile's reduce-overhead). Addresses are baked in, so callers keep the buffers alive and fixed.
#pragma once

#include <functional>
#include <memory>

#include "cuda/device_context.h"

namespace eng::cuda {

class CapturedGraph {
public:
    /// Runs `work` with the device's stream in capture mode and instantiates what it launched. `work` must only
    /// enqueue work on the stream (kernel launches, async copies, library calls) and never synchronise. With a
    /// `pool`, what `work` allocates on this thread comes from that private pool (which must outlive the graph);
    /// without one it must not allocate.
    static std::unique_ptr<CapturedGraph> capture(DeviceContext& device, const std::function<void()>& work,
                                                  MemoryPool* pool = nullptr);
    ~CapturedGraph();
    CapturedGraph(const CapturedGraph&) = delete;
    CapturedGraph& operator=(const CapturedGraph&) = delete;

    /// Enqueues the whole graph on the device's stream.
    void replay();

private:
    CapturedGraph(DeviceContext& device, void* graph, void* executable) : device_(device), graph_(graph), executable_(executable) {}
    DeviceContext& device_;
    void* graph_;       // CUgraph
    void* executable_;  // CUgraphExec
};

}  // namespace eng::cuda
