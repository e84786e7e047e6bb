// Combo kernels, after fusion: consecutive pointwise kernels of different iteration spaces that do not depend on
// one another (an optimizer step's update of each parameter) become one kernel with one part each, as Inductor's
// foreach and combo kernels run a compiled optimizer step in a few launches instead of one per parameter; and which
// buffers fuse into one part.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "inductor/lowering_context.h"
#include "inductor/scheduler.h"

namespace eng::inductor {

namespace {

// CUDA passes a kernel's parameters in 4 KB; 250 buffer pointers leave room for the size symbols.
constexpr size_t kMaxComboBuffers = 250;

struct Accesses {
    std::set<int> reads, writes, all;
};

Accesses accessesOf(const ScheduledKernel& k) {
    Accesses a;
    for (size_t p = 0; p < k.bufferIds.size(); ++p) {
        const int id = k.bufferIds[p];
        if (k.kernel.buffers[p].read) a.reads.insert(id);
        if (k.kernel.buffers[p].written) a.writes.insert(id);
        a.all.insert(id);
    }
    return a;
}

bool intersects(const std::set<int>& a, const std::set<int>& b) {
    for (int x : a)
        if (b.count(x)) return true;
    return false;
}

/// The name without its "_<position>" suffix.
std::string stem(const std::string& name) {
    const size_t cut = name.find_last_of('_');
    return cut == std::string::npos ? name : name.substr(0, cut);
}

std::string memberNames(const ScheduledKernel& k, const LoweredGraph& graph) {
    std::string names;
    for (int id : k.members) names += (names.empty() ? "" : ", ") + graph.buffers[static_cast<size_t>(id)].name;
    return names;
}

/// The steps with each stretch of kernels between extern calls ordered by depth, stably: a kernel's depth is one
/// more than that of the deepest earlier kernel it depends on (it reads what that one writes, or writes what that one
/// reads or writes). Kernels of one depth are independent, so an optimizer step's per-parameter kernels (every step
/// count, then every update) come out next to one another, ready to be gathered.
std::vector<ScheduleStep> orderedByDepth(const Schedule& schedule) {
    std::vector<ScheduleStep> out;
    std::vector<std::pair<int, ScheduleStep>> stretch;  // (depth, step)
    std::vector<Accesses> accesses;
    auto flushStretch = [&] {
        std::stable_sort(stretch.begin(), stretch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& entry : stretch) out.push_back(entry.second);
        stretch.clear();
        accesses.clear();
    };
    for (const ScheduleStep& step : schedule.steps) {
        if (step.kind == ScheduleStep::Kind::Extern) {
            flushStretch();
            out.push_back(step);
            continue;
        }
        Accesses a = accessesOf(schedule.kernels[static_cast<size_t>(step.index)]);
        int depth = 0;
        for (size_t m = 0; m < stretch.size(); ++m)
            if (intersects(a.reads, accesses[m].writes) || intersects(a.writes, accesses[m].all)) depth = std::max(depth, stretch[m].first + 1);
        stretch.emplace_back(depth, step);
        accesses.push_back(std::move(a));
    }
    flushStretch();
    return out;
}

}  // namespace

std::vector<int> comboFusionComponents(const LoweredGraph& graph, const std::function<std::set<int>(int)>& readsOf) {
    std::vector<int> parent(graph.buffers.size());
    for (size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
    auto find = [&](int x) {
        while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
        return x;
    };
    for (const GraphBuffer& b : graph.buffers) {
        if (b.kind != BufferKind::Pointwise) continue;
        for (int r : readsOf(b.id)) {
            const GraphBuffer& read = graph.buffers.at(static_cast<size_t>(r));
            if ((read.kind == BufferKind::Pointwise || read.kind == BufferKind::Input) && lowering::sameSizes(read.sizes, b.sizes))
                parent[static_cast<size_t>(find(b.id))] = find(r);
        }
    }
    std::vector<int> component(graph.buffers.size(), -1);
    for (const GraphBuffer& b : graph.buffers)
        if (b.kind == BufferKind::Pointwise) component[static_cast<size_t>(b.id)] = find(b.id);
    return component;
}

void fuseComboKernels(const LoweredGraph& graph, Schedule& schedule) {
    schedule.steps = orderedByDepth(schedule);
    Schedule out;
    out.stored = std::move(schedule.stored);
    std::map<std::string, std::string> renamed;
    std::vector<FusionDecision> comboDecisions;
    std::vector<size_t> run;  // kernels of the combo being gathered
    Accesses runAccesses;

    auto place = [&](ScheduledKernel k) {
        out.steps.push_back(ScheduleStep{ScheduleStep::Kind::Kernel, static_cast<int>(out.kernels.size())});
        out.kernels.push_back(std::move(k));
    };
    auto flush = [&] {
        if (run.size() == 1) {
            ScheduledKernel k = std::move(schedule.kernels[run[0]]);
            const std::string name = fmt::format("{}_{}", stem(k.kernel.name), out.kernels.size());
            renamed[k.kernel.name] = name;
            k.kernel.name = name;
            place(std::move(k));
        } else if (run.size() > 1) {
            ScheduledKernel combo;
            std::vector<Kernel> parts;
            std::vector<std::vector<int>> keys;
            for (size_t index : run) {
                ScheduledKernel& k = schedule.kernels[index];
                combo.members.insert(combo.members.end(), k.members.begin(), k.members.end());
                for (const std::string& node : k.sourceNodes)
                    if (std::find(combo.sourceNodes.begin(), combo.sourceNodes.end(), node) == combo.sourceNodes.end()) combo.sourceNodes.push_back(node);
                keys.push_back(k.bufferIds);
                parts.push_back(k.kernel);
            }
            const std::string name = fmt::format("{}_{}", kernelBaseName("cwb_for_fused", combo.members, graph), out.kernels.size());
            for (size_t p = 0; p < run.size(); ++p) {
                const ScheduledKernel& k = schedule.kernels[run[p]];
                renamed[k.kernel.name] = name;
                comboDecisions.push_back(FusionDecision{memberNames(k, graph), name, true,
                    fmt::format("independent kernel over {} points (combo kernel, part {})", toString(product(k.kernel.outerRanges)), p)});
                parts[p].name = fmt::format("{}_part{}", name, p);
            }
            combo.kernel = makeComboKernel(name, std::move(parts), keys);
            combo.bufferIds.assign(combo.kernel.buffers.size(), -1);
            for (size_t p = 0; p < keys.size(); ++p)
                for (size_t j = 0; j < keys[p].size(); ++j) combo.bufferIds[static_cast<size_t>(combo.kernel.parts[p].buffers[j])] = keys[p][j];
            combo.outerNumel = combo.kernel.outerRanges.at(0);
            verifyKernel(combo.kernel);
            place(std::move(combo));
        }
        run.clear();
        runAccesses = {};
    };

    for (const ScheduleStep& step : schedule.steps) {
        if (step.kind == ScheduleStep::Kind::Extern) {
            flush();
            out.steps.push_back(step);
            continue;
        }
        const ScheduledKernel& k = schedule.kernels[static_cast<size_t>(step.index)];
        if (k.kernel.isReduction() || k.kernel.isCombo()) {
            flush();
            run.push_back(static_cast<size_t>(step.index));
            flush();
            continue;
        }
        const Accesses a = accessesOf(k);
        if (!run.empty()) {
            std::string why;
            if (intersects(a.reads, runAccesses.writes) || intersects(a.writes, runAccesses.all))
                why = "depends on a kernel of the combo kernel being gathered";
            std::set<int> all = runAccesses.all;
            all.insert(a.all.begin(), a.all.end());
            if (why.empty() && all.size() > kMaxComboBuffers) why = fmt::format("a combo kernel takes at most {} buffers", kMaxComboBuffers);
            if (!why.empty()) {
                comboDecisions.push_back(FusionDecision{memberNames(k, graph), schedule.kernels[run.back()].kernel.name, false, why});
                flush();
            }
        }
        run.push_back(static_cast<size_t>(step.index));
        runAccesses.reads.insert(a.reads.begin(), a.reads.end());
        runAccesses.writes.insert(a.writes.begin(), a.writes.end());
        runAccesses.all.insert(a.all.begin(), a.all.end());
    }
    flush();
    out.decisions = std::move(schedule.decisions);
    out.decisions.insert(out.decisions.end(), comboDecisions.begin(), comboDecisions.end());
    for (FusionDecision& d : out.decisions)
        if (auto found = renamed.find(d.kernel); found != renamed.end()) d.kernel = found->second;
    schedule = std::move(out);
}

}  // namespace eng::inductor
