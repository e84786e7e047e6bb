// The registry of device-side assertion kinds and the host's reading of an assertion word after a synchronisation.
#include "cuda/device_assertions.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "cuda/driver.h"

namespace eng::cuda {

namespace {

std::mutex& registryMutex() {
    static std::mutex mutex;
    return mutex;
}

std::vector<AssertionRaiser>& raisers() {
    static std::vector<AssertionRaiser> list;
    return list;
}

}  // namespace

uint64_t registerDeviceAssertion(AssertionRaiser raise) {
    std::lock_guard lock(registryMutex());
    raisers().push_back(raise);
    return raisers().size();
}

void raisePendingAssertion(volatile uint64_t* word) {
    // The kernel wrote the id last-but-one and the value after it; both are complete once the device is idle.
    const uint64_t id = word[0];
    if (id == 0) return;
    const auto value = static_cast<int64_t>(word[1]);
    word[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    word[0] = 0;  // raised once: later synchronisations see a clean word
    AssertionRaiser raise = nullptr;
    {
        std::lock_guard lock(registryMutex());
        if (id <= raisers().size()) raise = raisers()[id - 1];
    }
    if (raise) raise(value);
    throw CudaError("device-side assert triggered");
}

}  // namespace eng::cuda
