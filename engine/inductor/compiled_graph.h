// A graph compiled by the inductor backend, ready to call: the lowered buffers, the schedule of generated kernels
// and extern calls, and the launcher that runs the kernels on the graph's device.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "inductor/ir/kernel_launcher.h"
#include "inductor/lowered_graph.h"
#include "inductor/scheduler.h"

namespace eng::inductor {

class CompiledGraph {
public:
    CompiledGraph(LoweredGraph graph, Schedule schedule, std::unique_ptr<KernelLauncher> launcher);

    /// Runs the graph on one call's inputs (one per placeholder); returns the outputs.
    vm::ValueList run(vm::Interpreter& vm, const vm::ValueList& inputs);

    const LoweredGraph& graph() const { return graph_; }
    const Schedule& schedule() const { return schedule_; }
    const KernelLauncher& launcher() const { return *launcher_; }
    /// The symbol values of the example inputs (for launch configurations shown in traces).
    SymbolValues symbolValues(const vm::ValueList& inputs) const;

private:
    LoweredGraph graph_;
    Schedule schedule_;
    std::unique_ptr<KernelLauncher> launcher_;
    std::vector<int> lastUse_;  // per buffer: the last step reading it (freed after), -1 when kept to the end
};

}  // namespace eng::inductor
