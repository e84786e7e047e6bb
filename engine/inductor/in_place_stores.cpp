// Which buffers a kernel stores straight into the graph input they update (in_place_stores.h).
#include "inductor/in_place_stores.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>
#include <unordered_set>

namespace eng::inductor {

namespace {

/// The kernel that writes graph buffer `buffer`, as (step, kernel index); {-1, -1} when none or several do.
std::pair<int, int> writingKernel(const Schedule& schedule, int buffer) {
    std::pair<int, int> found{-1, -1};
    for (size_t step = 0; step < schedule.steps.size(); ++step) {
        const ScheduleStep& s = schedule.steps[step];
        if (s.kind != ScheduleStep::Kind::Kernel) continue;
        const ScheduledKernel& k = schedule.kernels[static_cast<size_t>(s.index)];
        for (size_t j = 0; j < k.bufferIds.size(); ++j)
            if (k.bufferIds[j] == buffer && k.kernel.buffers[j].written) {
                if (found.first >= 0) return {-1, -1};
                found = {static_cast<int>(step), s.index};
            }
    }
    return found;
}

bool stepReads(const LoweredGraph& graph, const Schedule& schedule, const ScheduleStep& s, int buffer) {
    const std::vector<int>& reads = s.kind == ScheduleStep::Kind::Kernel ? schedule.kernels[static_cast<size_t>(s.index)].bufferIds
                                                                         : graph.buffers[static_cast<size_t>(s.index)].extern_.inputBuffers;
    for (int id : reads)
        if (id == buffer) return true;
    return false;
}

/// The loads of a store's value, as (graph buffer, index).
std::vector<std::pair<int, Index>> loadsOf(const Store& store, const std::function<int(int)>& toGraph) {
    std::vector<std::pair<int, Index>> loads;
    std::unordered_set<const Expr*> seen;
    forEachExprOnce(store.value, [&](const Expr& e) {
        if (e.kind == Expr::Kind::Load) loads.emplace_back(toGraph(e.buffer), e.index);
    }, seen);
    return loads;
}

/// One pointwise kernel (a combo's part, or a plain kernel) with the candidates whose buffer it stores. Orders its
/// stores so that every store reading a candidate's input runs before the candidate's store (a store reading what
/// an earlier store of the kernel wrote stays after it), then keeps the candidates that compute each element from
/// the input at that element only. Returns the rejected candidates (buffer -> why).
std::map<int, std::string> orderStores(Kernel& kernel, const std::function<int(int)>& toGraph, const std::map<int, int>& inputOf) {
    std::map<int, std::string> rejected;
    if (kernel.isReduction() || !kernel.finalStores.empty() || kernel.passes.size() != 1) {
        for (const auto& [buffer, input] : inputOf) rejected[buffer] = "its kernel is a reduction";
        return rejected;
    }
    std::vector<Store>& stores = kernel.passes[0].stores;
    const size_t n = stores.size();
    std::vector<std::vector<std::pair<int, Index>>> loads(n);
    for (size_t i = 0; i < n; ++i) loads[i] = loadsOf(stores[i], toGraph);
    auto reads = [&](size_t j, int buffer) {
        for (const auto& [b, index] : loads[j])
            if (b == buffer) return true;
        return false;
    };
    // before[j]: the stores that must run before store j.
    std::vector<std::set<size_t>> before(n);
    std::map<int, size_t> storeOf;
    for (size_t i = 0; i < n; ++i) storeOf[toGraph(stores[i].buffer)] = i;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j)
            if (i != j && reads(j, toGraph(stores[i].buffer))) before[j].insert(i);
    for (const auto& [buffer, input] : inputOf) {
        const size_t target = storeOf.at(buffer);
        for (size_t j = 0; j < n; ++j)
            if (j != target && reads(j, input)) before[target].insert(j);
    }
    // Kahn's order, the earliest store first among those ready.
    std::vector<size_t> order;
    std::vector<bool> placed(n, false);
    while (order.size() < n) {
        size_t next = n;
        for (size_t j = 0; j < n && next == n; ++j) {
            if (placed[j]) continue;
            bool ready = true;
            for (size_t i : before[j]) ready = ready && placed[i];
            if (ready) next = j;
        }
        if (next == n) {
            for (const auto& [buffer, input] : inputOf) rejected[buffer] = "no order of its kernel's stores reads the input before it is stored";
            return rejected;
        }
        placed[next] = true;
        order.push_back(next);
    }
    std::vector<Store> reordered;
    std::vector<std::vector<std::pair<int, Index>>> reorderedLoads;
    for (size_t j : order) {
        reordered.push_back(stores[j]);
        reorderedLoads.push_back(loads[j]);
    }
    stores = std::move(reordered);
    loads = std::move(reorderedLoads);
    for (const auto& [buffer, input] : inputOf) {
        const Store* target = nullptr;
        for (const Store& s : stores)
            if (toGraph(s.buffer) == buffer) target = &s;
        for (size_t j = 0; j < n; ++j)
            for (const auto& [b, index] : loads[j])
                if (b == input && !indexEqual(index, target->index)) rejected[buffer] = "its kernel reads the input at other elements";
    }
    return rejected;
}

}  // namespace

InPlaceStores planInPlaceStores(const LoweredGraph& graph, Schedule& schedule, const std::vector<std::pair<int, size_t>>& outputsUpdatingInputs,
                                bool tuningRerunsKernels) {
    InPlaceStores plan;
    plan.inputOf.assign(graph.buffers.size(), -1);
    std::vector<int> inputBufferOf(static_cast<size_t>(graph.inputCount), -1);
    for (const GraphBuffer& b : graph.buffers)
        if (b.kind == BufferKind::Input && b.inputIndex >= 0 && b.inputIndex < graph.inputCount) inputBufferOf[static_cast<size_t>(b.inputIndex)] = b.id;
    struct Candidate {
        int buffer, input;
        long output;  // the graph output it may be, or -1
    };
    std::vector<Candidate> candidates;
    for (const GraphBuffer& b : graph.buffers)
        if (b.mutatesInput >= 0) candidates.push_back({b.id, b.mutatesInput, -1});
    for (const auto& [input, output] : outputsUpdatingInputs) {
        if (input < 0 || input >= graph.inputCount || output >= graph.outputs.size()) continue;
        const GraphOutput& out = graph.outputs[output];
        if (out.kind != GraphOutput::Kind::Buffer || out.view || inputBufferOf[static_cast<size_t>(input)] < 0) continue;
        candidates.push_back({out.buffer, inputBufferOf[static_cast<size_t>(input)], static_cast<long>(output)});
    }
    // The checks outside the kernel; the survivors, per kernel.
    std::vector<bool> claimed(graph.buffers.size(), false);
    std::map<int, std::map<int, int>> perKernel;  // kernel index -> (buffer -> input buffer)
    auto note = [&](int buffer, int input, const std::string& why) {
        plan.notes.push_back(fmt::format("{} is written back into {}: {}", graph.buffers[static_cast<size_t>(buffer)].name,
                                         graph.buffers[static_cast<size_t>(input)].name, why));
    };
    for (const Candidate& c : candidates) {
        const GraphBuffer& b = graph.buffers[static_cast<size_t>(c.buffer)];
        const GraphBuffer& input = graph.buffers[static_cast<size_t>(c.input)];
        std::string why;
        const auto [step, kernelIndex] = writingKernel(schedule, b.id);
        if (tuningRerunsKernels) why = "tuning runs its kernel several times on the live buffers";
        else if (b.kind != BufferKind::Pointwise || !schedule.stored[static_cast<size_t>(b.id)] || b.dtype != input.dtype) why = "not a stored pointwise buffer of the input's dtype";
        else if (claimed[static_cast<size_t>(b.id)] || claimed[static_cast<size_t>(input.id)]) why = "the buffer or the input is another's";
        else if (step < 0) why = "no single kernel writes it";
        for (size_t o = 0; why.empty() && o < graph.outputs.size(); ++o)
            if (graph.outputs[o].kind == GraphOutput::Kind::Buffer && graph.outputs[o].buffer == b.id && static_cast<long>(o) != c.output)
                why = "it is also another output of the graph";
        for (size_t s = static_cast<size_t>(std::max(step, 0)) + 1; why.empty() && s < schedule.steps.size(); ++s) {
            if (schedule.steps[s].kind == ScheduleStep::Kind::Extern) why = "an extern call runs after its kernel";
            else if (stepReads(graph, schedule, schedule.steps[s], input.id)) why = "a later kernel reads the input";
        }
        if (!why.empty()) {
            note(b.id, input.id, why);
            continue;
        }
        claimed[static_cast<size_t>(b.id)] = claimed[static_cast<size_t>(input.id)] = true;
        perKernel[kernelIndex][b.id] = input.id;
    }
    for (auto& [kernelIndex, inputOf] : perKernel) {
        ScheduledKernel& k = schedule.kernels[static_cast<size_t>(kernelIndex)];
        auto combo = [&](int j) { return k.bufferIds[static_cast<size_t>(j)]; };
        std::map<int, std::string> rejected;
        // Each piece (a combo's part, or the kernel) with the candidates it stores; one reading another piece's
        // candidate's input would race with that store.
        auto pieceCandidates = [&](Kernel& piece, const std::function<int(int)>& toGraph) {
            std::map<int, int> stored;
            std::set<int> storedHere, loadedHere;
            for (const KernelPass& pass : piece.passes)
                for (const Store& s : pass.stores) {
                    storedHere.insert(toGraph(s.buffer));
                    for (const auto& [b, index] : loadsOf(s, toGraph)) loadedHere.insert(b);
                }
            for (const auto& [buffer, input] : inputOf) {
                if (storedHere.count(buffer)) stored[buffer] = input;
                else if (loadedHere.count(input)) rejected[buffer] = "another part of its combo kernel reads the input";
            }
            for (const auto& [buffer, why] : orderStores(piece, toGraph, stored)) rejected[buffer] = why;
        };
        if (!k.kernel.isCombo()) {
            pieceCandidates(k.kernel, combo);
        } else {
            for (ComboPart& part : k.kernel.parts)
                pieceCandidates(part.kernel, [&](int j) { return combo(part.buffers[static_cast<size_t>(j)]); });
        }
        for (const auto& [buffer, input] : inputOf) {
            if (auto it = rejected.find(buffer); it != rejected.end()) {
                note(buffer, input, it->second);
                continue;
            }
            plan.inputOf[static_cast<size_t>(buffer)] = input;
            plan.notes.push_back(fmt::format("{} is stored in place into {} (its final value)", graph.buffers[static_cast<size_t>(buffer)].name,
                                             graph.buffers[static_cast<size_t>(input)].name));
        }
    }
    markAliasedBuffers(plan, schedule);
    return plan;
}

void markAliasedBuffers(const InPlaceStores& plan, Schedule& schedule) {
    for (ScheduledKernel& k : schedule.kernels) {
        std::vector<bool> aliased(k.bufferIds.size(), false);
        for (size_t j = 0; j < k.bufferIds.size(); ++j) {
            const int id = k.bufferIds[j];
            if (!k.kernel.buffers[j].written || plan.inputOf[static_cast<size_t>(id)] < 0) continue;
            for (size_t i = 0; i < k.bufferIds.size(); ++i)
                if (i == j || k.bufferIds[i] == plan.inputOf[static_cast<size_t>(id)]) aliased[i] = true;
        }
        for (size_t j = 0; j < aliased.size(); ++j) k.kernel.buffers[j].aliased = k.kernel.buffers[j].aliased || aliased[j];
        for (ComboPart& part : k.kernel.parts)
            for (size_t j = 0; j < part.buffers.size(); ++j)
                if (aliased[static_cast<size_t>(part.buffers[j])]) part.kernel.buffers[j].aliased = true;
    }
}

}  // namespace eng::inductor
