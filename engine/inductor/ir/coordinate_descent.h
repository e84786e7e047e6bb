// coordinate_descent_tuning: a kernel's launch configuration tuned by coordinate descent on the real buffers, as
// Inductor's CoordescTuner walks a Triton kernel's config: from the heuristic's choice, each coordinate in turn
// steps to its neighbouring values while that is faster, until no single step is.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace eng::inductor {

struct LaunchCoordinate {
    std::string name;             // "pieces", "block"
    std::vector<int64_t> values;  // ascending; a step moves to the next or previous one
};

struct DescentResult {
    std::vector<size_t> choice;  // per coordinate: the index of the kept value
    double micros = 0;           // the kept configuration's time
    std::string report;          // every configuration timed, in order, and the one kept
};

/// Walks from `start` (an index per coordinate); `timeOf` runs the kernel in a configuration and returns
/// microseconds. A step is taken only when it is faster by more than 2% (timing noise), so the walk ends.
DescentResult coordinateDescent(const std::vector<LaunchCoordinate>& coordinates, std::vector<size_t> start,
                                const std::function<double(const std::vector<size_t>&)>& timeOf);

}  // namespace eng::inductor
