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

struct Raiser {
    AssertionRaiser plain = nullptr;
    DetailedAssertionRaiser detailed = nullptr;
};

std::vector<Raiser>& raisers() {
    static std::vector<Raiser> list;
    return list;
}

uint64_t add(Raiser raiser) {
    std::lock_guard lock(registryMutex());
    raisers().push_back(raiser);
    return raisers().size();
}

}  // namespace

uint64_t registerDeviceAssertion(AssertionRaiser raise) { return add({raise, nullptr}); }

uint64_t registerDeviceAssertion(DetailedAssertionRaiser raise) { return add({nullptr, raise}); }

void raisePendingAssertion(volatile uint64_t* word) {
    // The kernel wrote the id last-but-one and the value after it; both are complete once the device is idle.
    const uint64_t id = word[0];
    if (id == 0) return;
    const auto value = static_cast<int64_t>(word[1]);
    const auto first = static_cast<int64_t>(word[2]), second = static_cast<int64_t>(word[3]);
    word[1] = 0;
    word[2] = 0;
    word[3] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    word[0] = 0;  // raised once: later synchronisations see a clean word
    Raiser raise;
    {
        std::lock_guard lock(registryMutex());
        if (id <= raisers().size()) raise = raisers()[id - 1];
    }
    if (raise.plain) raise.plain(value);
    if (raise.detailed) raise.detailed(value, first, second);
    throw CudaError("device-side assert triggered");
}

}  // namespace eng::cuda
