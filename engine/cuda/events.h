// CUDA events recorded on cwb's stream of a device, for timing GPU work (torch.cuda.Event). CUDA-free header:
// the VM uses it without the toolkit's headers.
#pragma once

namespace eng::cuda {

class Event {
public:
    // Creates the event on device `device`'s context; throws CudaError when CUDA is unavailable.
    Event(int device, bool enableTiming);
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    int device() const { return device_; }
    bool timing() const { return timing_; }
    // Enqueues the event on DeviceContext::get(device()).stream(): it completes when the work before it has.
    void record();
    // Blocks the host until the recorded work is done.
    void synchronize();
    // Whether the work before the event has completed (true for an event never recorded, as in CUDA).
    bool query();
    // Milliseconds between this event and `end`, both recorded and completed (cuEventElapsedTime's rules).
    float elapsedMs(const Event& end) const;

private:
    int device_;
    bool timing_;
    void* event_ = nullptr;  // CUevent
};

// Waits for everything cwb queued on the device (its one stream): torch.cuda.synchronize().
void synchronizeDevice(int device);

}  // namespace eng::cuda
