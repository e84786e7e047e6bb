// Stream capture and replay through the driver API (see cuda_graph.h).
#include "cuda/cuda_graph.h"

#include <optional>

#include "cuda/blas.h"
#include "cuda/driver_api.h"

namespace eng::cuda {

using detail::check;
using detail::driver;

std::unique_ptr<CapturedGraph> CapturedGraph::capture(DeviceContext& device, const std::function<void()>& work, MemoryPool* pool) {
    // (cuBLAS started on a background thread finishes first: its set-up is no work of the recording)
    awaitBlasPrewarm();
    device.makeCurrent();
    auto stream = static_cast<CUstream>(device.stream());
    // Thread-local mode: other threads of the process may keep using CUDA while this one records, and this
    // thread's unsafe calls (a synchronize, a copy to the host) fail the capture instead of silently recording a
    // graph that would replay wrongly. The one unsafe call we need, cuMemAlloc for the private pool, switches
    // this thread to relaxed mode for its own duration (DeviceContext::allocate).
    check(driver().streamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    try {
        std::optional<PrivatePoolScope> scope;
        if (pool) scope.emplace(*pool);
        work();
    } catch (...) {
        CUgraph abandoned = nullptr;
        driver().streamEndCapture(stream, &abandoned);
        if (abandoned) driver().graphDestroy(abandoned);
        throw;
    }
    CUgraph graph = nullptr;
    check(driver().streamEndCapture(stream, &graph), "cuStreamEndCapture");
    CUgraphExec executable = nullptr;
    CUresult instantiated = driver().graphInstantiate(&executable, graph, 0);
    if (instantiated != CUDA_SUCCESS) {
        driver().graphDestroy(graph);
        check(instantiated, "cuGraphInstantiateWithFlags");
    }
    return std::unique_ptr<CapturedGraph>(new CapturedGraph(device, graph, executable));
}

CapturedGraph::~CapturedGraph() {
    driver().graphExecDestroy(static_cast<CUgraphExec>(executable_));
    driver().graphDestroy(static_cast<CUgraph>(graph_));
}

void CapturedGraph::replay() {
    device_.makeCurrent();
    check(driver().graphLaunch(static_cast<CUgraphExec>(executable_), static_cast<CUstream>(device_.stream())), "cuGraphLaunch");
}

}  // namespace eng::cuda
