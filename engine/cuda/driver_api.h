// Internal: the table of driver entry points (typed from cuda.h, never linked) and error checking. Only the
// engine/cuda sources include this; the rest of cwb sees the CUDA-free headers.
#pragma once

#include <cuda.h>

#include "cuda/driver.h"

namespace eng::cuda::detail {

struct DriverApi {
    decltype(&::cuGetErrorName) getErrorName = nullptr;
    decltype(&::cuGetErrorString) getErrorString = nullptr;
    decltype(&::cuInit) init = nullptr;
    decltype(&::cuDriverGetVersion) driverGetVersion = nullptr;
    decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
    decltype(&::cuDeviceGet) deviceGet = nullptr;
    decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
    decltype(&::cuDeviceGetName) deviceGetName = nullptr;
    decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
    decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
    decltype(&::cuStreamCreate) streamCreate = nullptr;
    decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
    decltype(&::cuMemAlloc) memAlloc = nullptr;
    decltype(&::cuMemFree) memFree = nullptr;
    decltype(&::cuMemGetInfo) memGetInfo = nullptr;
    decltype(&::cuMemcpyHtoDAsync) memcpyHtoDAsync = nullptr;
    decltype(&::cuMemcpyDtoHAsync) memcpyDtoHAsync = nullptr;
    decltype(&::cuMemcpyDtoDAsync) memcpyDtoDAsync = nullptr;
    decltype(&::cuMemsetD8Async) memsetD8Async = nullptr;
    // Mapped pinned host memory: device-side assertion words (cuda/device_assertions.h).
    decltype(&::cuMemHostAlloc) memHostAlloc = nullptr;
    decltype(&::cuMemHostGetDevicePointer) memHostGetDevicePointer = nullptr;
    decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
    decltype(&::cuModuleLoadDataEx) moduleLoadDataEx = nullptr;  // PTX, with JIT options
    decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
    decltype(&::cuModuleUnload) moduleUnload = nullptr;
    decltype(&::cuLaunchKernel) launchKernel = nullptr;
    // Raises a kernel's dynamic shared memory past the default 48 KiB (the flash forward's 128-key tiles).
    decltype(&::cuFuncSetAttribute) funcSetAttribute = nullptr;
    // Stream capture into CUDA graphs (cuda/cuda_graph.h): reduce-overhead's record-once, replay-many.
    decltype(&::cuStreamBeginCapture) streamBeginCapture = nullptr;
    decltype(&::cuStreamEndCapture) streamEndCapture = nullptr;
    decltype(&::cuGraphInstantiateWithFlags) graphInstantiate = nullptr;
    decltype(&::cuGraphLaunch) graphLaunch = nullptr;
    decltype(&::cuGraphExecDestroy) graphExecDestroy = nullptr;
    decltype(&::cuGraphDestroy) graphDestroy = nullptr;
    decltype(&::cuStreamIsCapturing) streamIsCapturing = nullptr;  // library calls time candidates only outside a capture
    // Lets the allocator call cuMemAlloc while this thread captures (a private pool's first blocks).
    decltype(&::cuThreadExchangeStreamCaptureMode) threadExchangeStreamCaptureMode = nullptr;
    // Events (cuda/events.h): timing of work on cwb's stream, torch.cuda.Event.
    decltype(&::cuEventCreate) eventCreate = nullptr;
    decltype(&::cuEventRecord) eventRecord = nullptr;
    decltype(&::cuEventQuery) eventQuery = nullptr;
    decltype(&::cuEventSynchronize) eventSynchronize = nullptr;
    decltype(&::cuEventElapsedTime) eventElapsedTime = nullptr;
    decltype(&::cuEventDestroy) eventDestroy = nullptr;
};

// The loaded table; throws CudaError with driverStatus().reason when the driver is unavailable.
const DriverApi& driver();

// Throws CudaError("<what>: CUDA_ERROR_NAME (description)") unless result is CUDA_SUCCESS.
void check(CUresult result, const char* what);

}  // namespace eng::cuda::detail
