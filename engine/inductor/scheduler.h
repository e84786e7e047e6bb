// The scheduler: groups the lowered graph's buffers into kernels (vertical and horizontal fusion of pointwise
// buffers, pointwise buffers into reductions over the same rows), drops stores nobody reads, and records every
// fusion decision with its reason; extern kernels run between the generated ones.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "inductor/lowered_graph.h"

namespace eng::inductor {

/// The reason of the decision that opens a kernel (no fusion was refused).
inline constexpr const char* kStartsNewKernel = "starts a new kernel";

struct FusionDecision {
    std::string buffer;  // the buffer being placed (buf3)
    std::string kernel;  // the kernel it joined or was tried against (its name once named)
    bool fused = false;
    std::string reason;  // why it fused, or why not
};

struct ScheduledKernel {
    Kernel kernel;                         // parameters numbered per kernel
    std::vector<int> bufferIds;            // the graph buffer behind each kernel parameter
    std::vector<int> members;              // graph buffers this kernel computes (stored or not)
    std::vector<std::string> sourceNodes;  // graph nodes fused into it, in graph order
    Index outerNumel;                      // product of the outer ranges (the unit work is split by)
};

struct ScheduleStep {
    enum class Kind { Kernel, Extern };
    Kind kind = Kind::Kernel;
    int index = 0;  // Kernel: index into Schedule::kernels; Extern: graph buffer id
};

struct Schedule {
    std::vector<ScheduledKernel> kernels;
    std::vector<ScheduleStep> steps;  // execution order
    std::vector<bool> stored;         // per graph buffer: memory is allocated and written
    std::vector<FusionDecision> decisions;
};

struct ScheduleOptions {
    bool comboKernels = false;      // then run fuseComboKernels
    /// Inductor's aggressive_fusion: pointwise buffers over the same iteration space fuse even when they share no
    /// data (neither reads what the other computes nor reads a buffer the other reads); off, such a pair stays in
    /// two kernels ("no shared data"), as PyTorch's scheduler keeps it, unless combo kernels are on and both belong to one
    /// dataflow (comboFusionComponents: an optimizer step's update of one parameter).
    /// Reductions never fuse without shared data.
    bool aggressiveFusion = false;
    size_t maxFusionSize = kMaxFusionSize;  // max_fusion_size: the most buffers one kernel fuses
    /// triton.unique_kernel_names with triton.descriptive_names: kernels named after the ops they fuse
    /// (cwb_poi_fused_mul_sin_0); off, after their kind and number (cwb_poi_0).
    bool opsInKernelNames = true;
};

/// Fuses and orders the lowered graph into kernels and extern calls.
Schedule scheduleGraph(const LoweredGraph& graph, ScheduleOptions options = {});

/// With combo kernels, which pointwise buffers may share a kernel although they share no data: those of one
/// dataflow over one iteration space (buffers linked by reads of one another or of one input of their sizes, as an
/// optimizer step's update of one parameter with its state is), so that each parameter's whole update is one kernel
/// and the combo kernel gathers the parameters. Per buffer a component number, -1 for buffers that are not pointwise.
std::vector<int> comboFusionComponents(const LoweredGraph& graph, const std::function<std::set<int>(int)>& readsOf);

/// Inductor's combo (foreach) kernels: between extern calls, kernels are ordered by their depth in the dependency
/// graph (stable), and each run of consecutive pointwise kernels that are independent of one another (none reads
/// or writes what another writes) becomes one combo kernel, whatever their sizes (combo_kernels.cpp). Kernels are
/// renamed by their new positions.
void fuseComboKernels(const LoweredGraph& graph, Schedule& schedule);

/// `prefix` + "_" + the ops of the graph nodes behind `members` (sorted): cwb_poi_fused_add_mul.
std::string kernelBaseName(const std::string& prefix, const std::vector<int>& members, const LoweredGraph& graph);

}  // namespace eng::inductor
