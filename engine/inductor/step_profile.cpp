// The process-wide table of CWB_PROFILE_STEPS: time and count per step label, printed at exit (see step_profile.h).
#include "inductor/step_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "cuda/events.h"

namespace eng::inductor {

namespace {

struct StepTotals {
    double seconds = 0;
    long calls = 0;
};

/// The table, printed when the process ends (a static's destructor: after the program, before the libraries go).
class StepTable {
public:
    void add(const std::string& label, double seconds) {
        const std::lock_guard<std::mutex> lock(mutex_);
        StepTotals& totals = totals_[label];
        totals.seconds += seconds;
        ++totals.calls;
    }

    ~StepTable() {
        if (totals_.empty()) return;
        std::vector<std::pair<std::string, StepTotals>> rows(totals_.begin(), totals_.end());
        std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
        double all = 0;
        for (const auto& row : rows) all += row.second.seconds;
        std::string text = fmt::format("cwb step profile (CWB_PROFILE_STEPS): {:.3f} ms in {} distinct steps, largest first\n",
                                       all * 1e3, rows.size());
        // CWB_PROFILE_ROWS=N: more (or fewer) rows than the largest 60, e.g. to find a small kernel of every layer.
        const char* shown = std::getenv("CWB_PROFILE_ROWS");
        const size_t limit = shown && *shown ? std::strtoull(shown, nullptr, 10) : 60;
        for (size_t i = 0; i < rows.size() && i < limit; ++i)
            text += fmt::format("  {:10.3f} ms {:6}x {:5.1f}%  {}\n", rows[i].second.seconds * 1e3, rows[i].second.calls,
                                100.0 * rows[i].second.seconds / all, rows[i].first);
        std::fputs(text.c_str(), stderr);
    }

private:
    std::mutex mutex_;
    std::map<std::string, StepTotals> totals_;
};

StepTable& table() {
    static StepTable instance;
    return instance;
}

void synchronize(const tensor::Device& device) {
    if (device.type() == tensor::DeviceType::CUDA) cuda::synchronizeDevice(device.index() < 0 ? 0 : device.index());
}

}  // namespace

bool stepProfilingEnabled() {
    static const bool enabled = [] {
        const char* value = std::getenv("CWB_PROFILE_STEPS");
        return value != nullptr && *value != '\0' && std::string_view(value) != "0";
    }();
    return enabled;
}

StepTimer::StepTimer(const tensor::Device& device, std::string label) : device_(device), label_(std::move(label)) {
    table();  // constructed before the first timing, so destroyed after every user
    synchronize(device_);
    start_ = std::chrono::steady_clock::now();
}

void StepTimer::finish() {
    synchronize(device_);
    table().add(label_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}



}  // namespace eng::inductor
