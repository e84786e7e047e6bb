// Inductor's mutated buffers: a buffer that is the final value of a graph input (an in-place op on the input, or an
// AOT Autograd output that the epilogue would copy into it) is stored by its kernel straight into the input, so no
// write-back copy runs. This pass decides, from the schedule, which buffers may be.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "inductor/lowered_graph.h"
#include "inductor/scheduler.h"

namespace eng::inductor {

struct InPlaceStores {
    std::vector<int> inputOf;        // per graph buffer: the input buffer it is stored into, or -1
    std::vector<std::string> notes;  // why each candidate is or is not stored in place (output code)
};

/// Candidates: every buffer with `mutatesInput`, and each (input index, output index) of `outputsUpdatingInputs`
/// (the caller copies that output into that input after each call). A candidate is stored in place when its one
/// kernel is pointwise (or a combo of pointwise parts) and computes it element by element from the input's old
/// value (every load of the input in the kernel at the element being stored, all in stores up to its own: the
/// kernel's stores are reordered so, an Adam update storing the moments and then the parameter from the old
/// moments), no later step reads the input, no extern call runs after that kernel (a mismatching extern result
/// reruns the call eagerly from the inputs), and it is no other graph output. Each planned buffer and its input are
/// marked `aliased` in its kernel (and its combo part), so the generated code does not declare them unaliased. The
/// layouts, the caller's tensor and its storage being no other input's are checked on each call (CompiledGraph).
/// `tuningRerunsKernels` (coordinate descent, max-autotune: a kernel runs several times on its first launch) stores
/// nothing in place, since each extra run would update the input again.
InPlaceStores planInPlaceStores(const LoweredGraph& graph, Schedule& schedule, const std::vector<std::pair<int, size_t>>& outputsUpdatingInputs,
                                bool tuningRerunsKernels);

/// Marks each planned buffer and its input `aliased` in the kernel that stores it, and in its combo parts.
void markAliasedBuffers(const InPlaceStores& plan, Schedule& schedule);

}  // namespace eng::inductor
