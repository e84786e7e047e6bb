// CWB_PROFILE_STEPS=1: every kernel launch and extern call of the compiled graphs timed on its own (the device
// synchronised before and after), summed per step over the process and printed to stderr at exit, largest first:
// where a compiled forward or backward spends its time. Each step's first run is left out (CompiledGraph::runPlain). Off by default: the synchronisations remove launch overlap.
#pragma once

#include <chrono>
#include <string>

#include "tensor/device.h"

namespace eng::inductor {

/// Whether CWB_PROFILE_STEPS is set (to anything but "0"), read once.
bool stepProfilingEnabled();

/// Times one step from construction to finish(), the device synchronised at both ends, and adds it to the
/// process's table under `label` (a kernel name or `extern <op>`, with its result's dtype and sizes).
class StepTimer {
public:
    StepTimer(const tensor::Device& device, std::string label);
    /// Synchronises and records the step; raises what the step's kernels asserted on the device (a bad index), which
    /// a destructor could only swallow. A step that raised before it is not recorded.
    void finish();
    StepTimer(const StepTimer&) = delete;
    StepTimer& operator=(const StepTimer&) = delete;

private:
    tensor::Device device_;
    std::string label_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace eng::inductor
