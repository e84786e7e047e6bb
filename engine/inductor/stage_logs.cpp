// The inductor's stage logs (see stage_logs.h), made only when TORCH_LOGS asks for them.
#include "inductor/stage_logs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

namespace eng::inductor {

namespace {

/// Loop variables numbered from `first`, one per size.
std::vector<Index> variables(size_t count, int first) {
    std::vector<Index> index;
    for (size_t i = 0; i < count; ++i) index.push_back(indexVar(first + static_cast<int>(i)));
    return index;
}

/// What an extern call runs: its op, or the graph node's target where the op is left empty.
std::string externName(const ExternCall& call) { return call.op.empty() && call.node ? call.node->target : call.op; }

const char* kindName(BufferKind kind) {
    switch (kind) {
        case BufferKind::Input: return "Input";
        case BufferKind::Pointwise: return "Pointwise";
        case BufferKind::Reduction: return "Reduction";
        case BufferKind::Extern: return "Extern";
    }
    return "?";
}

template <typename Ids>
std::string namesOf(const Ids& ids, const LoweredGraph& graph) {
    std::vector<std::string> names;
    for (int id : ids) names.push_back(id >= 0 && id < static_cast<int>(graph.buffers.size()) ? graph.buffers[id].name : fmt::format("#{}", id));
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string preFusionText(const LoweredGraph& graph) {
    std::string text;
    for (const GraphBuffer& buffer : graph.buffers) {
        std::set<int> reads;
        std::string what;
        switch (buffer.kind) {
            case BufferKind::Input: what = fmt::format("input {}", buffer.inputIndex); break;
            case BufferKind::Pointwise:
                if (buffer.body) reads = loadedBuffers(buffer.body(variables(buffer.sizes.size(), 0)));
                break;
            case BufferKind::Reduction:
                if (buffer.reductionBody)
                    reads = loadedBuffers(buffer.reductionBody(variables(buffer.sizes.size(), 0),
                                                               variables(buffer.reductionSizes.size(), static_cast<int>(buffer.sizes.size()))));
                what = fmt::format("{} over {}", reductionOpName(buffer.reductionOp), rangesText(buffer.reductionSizes));
                break;
            case BufferKind::Extern:
                reads.insert(buffer.extern_.inputBuffers.begin(), buffer.extern_.inputBuffers.end());
                what = externName(buffer.extern_);
                break;
        }
        text += fmt::format("{}: {} {}{}", buffer.name, kindName(buffer.kind), dtypeName(buffer.dtype), rangesText(buffer.sizes));
        if (!what.empty()) text += " " + what;
        if (!reads.empty()) text += " reads " + namesOf(reads, graph);
        if (!buffer.originNodes.empty()) text += fmt::format(" ({})", fmt::join(buffer.originNodes, ", "));
        text += "\n";
    }
    return text;
}

std::string postFusionText(const Schedule& schedule, const LoweredGraph& graph) {
    std::string text;
    for (const ScheduleStep& step : schedule.steps) {
        if (step.kind == ScheduleStep::Kind::Kernel) {
            const ScheduledKernel& kernel = schedule.kernels.at(step.index);
            text += fmt::format("# fused: {}\n{}", fmt::join(kernel.sourceNodes, ", "), kernelText(kernel.kernel));
            continue;
        }
        const GraphBuffer& buffer = graph.buffers.at(step.index);
        const ExternCall& call = buffer.extern_;
        text += fmt::format("extern {} = {}({})\n", buffer.name, externName(call),
                            namesOf(call.inputBuffers, graph));
    }
    return text;
}

std::string fusionLogText(const Schedule& schedule, const LoweredGraph& graph) {
    size_t nodes = 0;
    for (const GraphBuffer& buffer : graph.buffers) nodes += buffer.kind == BufferKind::Input ? 0 : 1;
    std::string text = fmt::format("===== attempting fusion (1/10): {} nodes =====\n", nodes);
    for (const FusionDecision& d : schedule.decisions) {
        if (d.fused) text += fmt::format("fusing {} with {}\n", d.buffer, d.kernel);
        // A node that opens a kernel, or an extern kernel on its own, is no refused fusion.
        else if (d.buffer != d.kernel && d.reason != kStartsNewKernel) text += fmt::format("cannot fuse {} with {}: {}\n", d.buffer, d.kernel, d.reason);
    }
    text += fmt::format("completed fusion round (1/10): fused {} nodes into {} nodes\n\n", nodes, schedule.steps.size());
    return text + "===== fusion complete (1 iterations) =====";
}

std::vector<std::string> scheduleLogTexts(const Schedule& schedule, const LoweredGraph& graph) {
    std::vector<std::string> texts;
    for (const ScheduleStep& step : schedule.steps) {
        if (step.kind != ScheduleStep::Kind::Kernel) continue;
        std::vector<std::string> nodes;
        for (int member : schedule.kernels.at(step.index).members) nodes.push_back(fmt::format("SchedulerNode(name='{}')", graph.buffers.at(member).name));
        texts.push_back(fmt::format("Schedule:\n [{}]", fmt::join(nodes, ", ")));
    }
    return texts;
}

}  // namespace eng::inductor
