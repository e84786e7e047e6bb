// A schedule (kernels in the loop-level IR, steps, stored buffers, fusion decisions) as text and back, exactly:
// what the FX graph cache keeps on disk so that a later run skips the scheduler (fx_graph_cache.h).
#pragma once

#include <optional>
#include <string>

#include "inductor/scheduler.h"

namespace eng::inductor {

/// The schedule as a token stream; shared index and expression nodes are written once and referred to after.
std::string encodeSchedule(const Schedule& schedule);
/// The schedule encodeSchedule wrote; nullopt when `text` is not one (truncated, another format version).
std::optional<Schedule> decodeSchedule(const std::string& text);

}  // namespace eng::inductor
