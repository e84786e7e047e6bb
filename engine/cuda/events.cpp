// CUDA events on cwb's stream: thin RAII over cuEventCreate/Record/Synchronize/ElapsedTime/Destroy, with the
// device's context made current first (events belong to the context they were created in).
#include "cuda/events.h"

#include "cuda/device_context.h"
#include "cuda/driver_api.h"

namespace eng::cuda {

using detail::check;
using detail::driver;

Event::Event(int device, bool enableTiming) : device_(device), timing_(enableTiming) {
    DeviceContext::get(device).makeCurrent();
    CUevent event = nullptr;
    // Without timing the driver skips the timestamp, which makes record/synchronize cheaper (CUDA's default).
    check(driver().eventCreate(&event, enableTiming ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    event_ = event;
}

Event::~Event() {
    // Never throws: a failure to destroy at exit only leaks the event.
    try {
        DeviceContext::get(device_).makeCurrent();
        driver().eventDestroy(static_cast<CUevent>(event_));
    } catch (...) {
    }
}

void Event::record() {
    DeviceContext& gpu = DeviceContext::get(device_);
    gpu.makeCurrent();
    check(driver().eventRecord(static_cast<CUevent>(event_), static_cast<CUstream>(gpu.stream())), "cuEventRecord");
}

void Event::synchronize() {
    DeviceContext::get(device_).makeCurrent();
    check(driver().eventSynchronize(static_cast<CUevent>(event_)), "cuEventSynchronize");
}

bool Event::query() {
    DeviceContext::get(device_).makeCurrent();
    CUresult result = driver().eventQuery(static_cast<CUevent>(event_));
    if (result == CUDA_ERROR_NOT_READY) return false;
    check(result, "cuEventQuery");
    return true;
}

float Event::elapsedMs(const Event& end) const {
    DeviceContext::get(device_).makeCurrent();
    float ms = 0.0f;
    check(driver().eventElapsedTime(&ms, static_cast<CUevent>(event_), static_cast<CUevent>(end.event_)),
          "cuEventElapsedTime");
    return ms;
}

void synchronizeDevice(int device) { DeviceContext::get(device).synchronize(); }

}  // namespace eng::cuda
