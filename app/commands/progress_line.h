// A one-line progress display on stderr for long command-line work (imports of big logs).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace cwb {

class ProgressLine {
public:
    ProgressLine();
    ~ProgressLine();
    /// Redraws at most a few times a second; silent when stderr is not a terminal.
    void update(const std::string& label, uint64_t done, uint64_t total);
    void finish();

private:
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_, lastDraw_;
};

}  // namespace cwb
