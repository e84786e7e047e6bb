// The min-cut partitioner (Inductor's default min_cut_rematerialization_partition, in spirit): splits the joint
// graph into a forward graph that also returns the values the backward needs and a backward graph over those saved
// values and the tangents, choosing the saved set as a minimum cut by bytes, so cheap pointwise and view chains are
// recomputed in the backward instead of being kept alive between the passes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aot/joint_graph.h"

namespace eng::aot {

struct SavedValue {
    std::string name;    // the forward node's name (the backward's placeholder has it too)
    std::string reason;  // why it is saved rather than recomputed
    int64_t bytes = 0;   // its size when traced (0 for SymInts)
};

struct Partition {
    std::shared_ptr<fx::Graph> forward;   // primals -> user outputs, mutated inputs' values, saved values
    std::shared_ptr<fx::Graph> backward;  // saved values, tangents -> the gradients of the primals that require grad
    size_t userOutputs = 0;
    size_t mutationOutputs = 0;
    std::vector<SavedValue> saved;
    std::vector<std::string> recomputed;       // forward nodes the backward recomputes, in order
    int64_t savedBytes = 0;
    int64_t naiveSavedBytes = 0;  // what saving every forward value the backward reads would keep
    /// The saved values and recomputed nodes, one per line, for the output code and the trace.
    std::string report() const;
};

Partition partitionJointGraph(vm::Interpreter& vm, const JointGraph& joint);

}  // namespace eng::aot
