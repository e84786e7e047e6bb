// Loads libcuda.so.1 with dlopen and resolves the driver API through cuGetProcAddress_v2 (which picks the
// right versioned symbol, e.g. cuMemAlloc_v2), then initialises it and counts the devices.
#include "cuda/driver_api.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace eng::cuda::detail {

namespace {

// The API version we compiled against: cuGetProcAddress returns the entry points of that version.
constexpr int kRequestedApiVersion = CUDA_VERSION;

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct LoadedDriver {
    DriverApi api;
    DriverStatus status;
};

template <typename Fn>
bool resolve(GetProcAddress getProc, const char* symbol, Fn& slot, std::string& missing) {
    void* address = nullptr;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
    if (getProc(symbol, &address, kRequestedApiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||
        found != CU_GET_PROC_ADDRESS_SUCCESS || address == nullptr) {
        missing = symbol;
        return false;
    }
    slot = reinterpret_cast<Fn>(address);
    return true;
}

bool resolveAll(GetProcAddress p, DriverApi& a, std::string& missing) {
    return resolve(p, "cuGetErrorName", a.getErrorName, missing) && resolve(p, "cuGetErrorString", a.getErrorString, missing) &&
           resolve(p, "cuInit", a.init, missing) && resolve(p, "cuDriverGetVersion", a.driverGetVersion, missing) &&
           resolve(p, "cuDeviceGetCount", a.deviceGetCount, missing) && resolve(p, "cuDeviceGet", a.deviceGet, missing) &&
           resolve(p, "cuDeviceGetAttribute", a.deviceGetAttribute, missing) &&
           resolve(p, "cuDeviceGetName", a.deviceGetName, missing) &&
           resolve(p, "cuDevicePrimaryCtxRetain", a.primaryCtxRetain, missing) &&
           resolve(p, "cuCtxSetCurrent", a.ctxSetCurrent, missing) && resolve(p, "cuStreamCreate", a.streamCreate, missing) &&
           resolve(p, "cuStreamSynchronize", a.streamSynchronize, missing) && resolve(p, "cuMemAlloc", a.memAlloc, missing) &&
           resolve(p, "cuMemFree", a.memFree, missing) && resolve(p, "cuMemGetInfo", a.memGetInfo, missing) &&
           resolve(p, "cuMemcpyHtoDAsync", a.memcpyHtoDAsync, missing) &&
           resolve(p, "cuMemcpyDtoHAsync", a.memcpyDtoHAsync, missing) &&
           resolve(p, "cuMemcpyDtoDAsync", a.memcpyDtoDAsync, missing) &&
           resolve(p, "cuMemsetD8Async", a.memsetD8Async, missing) && resolve(p, "cuMemHostAlloc", a.memHostAlloc, missing) &&
           resolve(p, "cuMemHostGetDevicePointer", a.memHostGetDevicePointer, missing) && resolve(p, "cuModuleLoadData", a.moduleLoadData, missing) &&
           resolve(p, "cuModuleLoadDataEx", a.moduleLoadDataEx, missing) &&
           resolve(p, "cuModuleGetFunction", a.moduleGetFunction, missing) && resolve(p, "cuModuleUnload", a.moduleUnload, missing) && resolve(p, "cuLaunchKernel", a.launchKernel, missing) &&
           resolve(p, "cuFuncSetAttribute", a.funcSetAttribute, missing) &&
           resolve(p, "cuStreamBeginCapture", a.streamBeginCapture, missing) &&
           resolve(p, "cuStreamEndCapture", a.streamEndCapture, missing) &&
           resolve(p, "cuGraphInstantiateWithFlags", a.graphInstantiate, missing) &&
           resolve(p, "cuGraphLaunch", a.graphLaunch, missing) && resolve(p, "cuGraphExecDestroy", a.graphExecDestroy, missing) &&
           resolve(p, "cuGraphDestroy", a.graphDestroy, missing) && resolve(p, "cuStreamIsCapturing", a.streamIsCapturing, missing) &&
           resolve(p, "cuThreadExchangeStreamCaptureMode", a.threadExchangeStreamCaptureMode, missing) &&
           resolve(p, "cuEventCreate", a.eventCreate, missing) && resolve(p, "cuEventRecord", a.eventRecord, missing) &&
           resolve(p, "cuEventQuery", a.eventQuery, missing) &&
           resolve(p, "cuEventSynchronize", a.eventSynchronize, missing) &&
           resolve(p, "cuEventElapsedTime", a.eventElapsedTime, missing) &&
           resolve(p, "cuEventDestroy", a.eventDestroy, missing);
}

std::string errorText(const DriverApi& api, CUresult result) {
    const char* name = nullptr;
    const char* description = nullptr;
    if (api.getErrorName) api.getErrorName(result, &name);
    if (api.getErrorString) api.getErrorString(result, &description);
    return fmt::format("{} ({})", name ? name : fmt::format("CUresult {}", static_cast<int>(result)),
                       description ? description : "no description");
}

LoadedDriver load() {
    LoadedDriver loaded;
    DriverStatus& status = loaded.status;
    // Deliberately never dlclose'd: function pointers and the primary contexts live for the whole process.
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char* why = dlerror();
        status.reason = fmt::format("no CUDA driver: {}", why ? why : "dlopen(libcuda.so.1) failed");
        return loaded;
    }
    auto getProc = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
    if (!getProc) {
        status.reason = "no CUDA driver: libcuda.so.1 has no cuGetProcAddress_v2 (driver older than CUDA 12)";
        return loaded;
    }
    std::string missing;
    if (!resolveAll(getProc, loaded.api, missing)) {
        status.reason = fmt::format("no CUDA driver: entry point {} is missing for CUDA API {}", missing, kRequestedApiVersion);
        return loaded;
    }
    if (CUresult r = loaded.api.init(0); r != CUDA_SUCCESS) {
        status.reason = fmt::format("no CUDA driver: cuInit failed: {}", errorText(loaded.api, r));
        return loaded;
    }
    loaded.api.driverGetVersion(&status.driverVersion);
    if (CUresult r = loaded.api.deviceGetCount(&status.deviceCount); r != CUDA_SUCCESS) {
        status.reason = fmt::format("no CUDA device: cuDeviceGetCount failed: {}", errorText(loaded.api, r));
        status.deviceCount = 0;
        return loaded;
    }
    if (status.deviceCount == 0) {
        status.reason = "no CUDA device is present";
        return loaded;
    }
    status.available = true;
    return loaded;
}

const LoadedDriver& loadedDriver() {
    static const LoadedDriver loaded = load();
    return loaded;
}

}  // namespace

const DriverApi& driver() {
    const LoadedDriver& loaded = loadedDriver();
    if (!loaded.status.available) throw CudaError("cuda unavailable: " + loaded.status.reason);
    return loaded.api;
}

void check(CUresult result, const char* what) {
    if (result == CUDA_SUCCESS) return;
    throw CudaError(fmt::format("{}: {}", what, errorText(loadedDriver().api, result)));
}

}  // namespace eng::cuda::detail

namespace eng::cuda {

const DriverStatus& driverStatus() { return detail::loadedDriver().status; }

}  // namespace eng::cuda
