// Fusion by greedy placement in graph order: a buffer joins the latest kernel whose iteration space it shares
// (same sizes, the rows of a reduction, or its input with the rows reshaped), reading fused producers at the same point as registers (their
// expression, or a finished reduction's value) instead of memory; otherwise it starts a kernel of its own.
#include "inductor/scheduler.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <variant>

#include <fmt/format.h>

#include "inductor/lowering_context.h"
#include "inductor/reshaped_rows.h"

namespace eng::inductor {

namespace {

using lowering::offsetOf;
using lowering::sameIndex;
using lowering::sameSizes;

std::string reducedText(const std::vector<bool>& reduced) {
    std::string text;
    for (size_t d = 0; d < reduced.size(); ++d)
        if (reduced[d]) text += (text.empty() ? "" : ", ") + std::to_string(d);
    return "{" + text + "}";
}

/// Rebuilds an expression bottom-up through `rewrite` (called on each node with rebuilt operands), keeping
/// shared subexpressions shared so that code generators can still see common subexpressions.
ExprPtr rewriteExpr(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& rewrite,
                    std::unordered_map<const Expr*, ExprPtr>& memo) {
    if (!e) return e;
    if (auto found = memo.find(e.get()); found != memo.end()) return found->second;
    ExprPtr a = rewriteExpr(e->a, rewrite, memo), b = rewriteExpr(e->b, rewrite, memo), c = rewriteExpr(e->c, rewrite, memo);
    ExprPtr rebuilt = e;
    if (a != e->a || b != e->b || c != e->c) {
        auto copy = std::make_shared<Expr>(*e);
        copy->a = a;
        copy->b = b;
        copy->c = c;
        rebuilt = copy;
    }
    ExprPtr result = rewrite(rebuilt);
    memo[e.get()] = result;
    return result;
}

struct Group {
    bool isExtern = false;
    std::vector<int> members;
    bool reduction = false;
    std::vector<Index> sizes;  // pointwise: iteration sizes; reduction: the reduced input's full sizes
    std::vector<bool> reducedDims;
};

/// One member of a planned group, in the group's variables.
struct PlannedMember {
    int buffer = -1;
    // AcrossReduction: reduces the group's outer dims, keeping its reduced ones (a column sum in a kernel over
    // rows), in the same pass; FinalStore: a pointwise buffer computed from such results after every row.
    enum class Role { FullStore, OuterStore, Reduction, AcrossReduction, FinalStore } role = Role::FullStore;
    ExprPtr value;     // stored value, or the reduction's per-element value
    Index storeIndex;  // where the buffer is written (outer variables only for OuterStore/Reduction)
    int level = 0;     // pass level: reductions read earlier levels only
    int sameAs = -1;   // Reduction: the earlier member reducing the same values with the same op (softmax and
                       // log_softmax of one row both take its max): that one's result serves both
};

struct GroupPlan {
    Group group;
    std::vector<PlannedMember> members;
    std::set<int> externalLoads;
    std::unordered_map<int, size_t> planned;    // buffer -> index in members
    std::unordered_map<int, int> reductionLevel;  // reduction member -> the pass level it is computed in
    // The group's variables: pointwise groups index every dim; reduction groups put kept dims first, reduced
    // dims after. acrossKeepdimIndex indexes a result over the reduced dims, keepdim.
    std::vector<Index> fullIndex, rowIndex, keepdimIndex, outerVars, redVars, acrossKeepdimIndex;
};

class Scheduler {
public:
    Scheduler(const LoweredGraph& graph, const ScheduleOptions& options)
        : graph_(graph), fuseWithoutSharedData_(options.aggressiveFusion), comboKernels_(options.comboKernels), options_(options),
          withoutSharedDataReason_(options.aggressiveFusion ? "no shared data, same iteration space (aggressive_fusion)"
                                                           : "no shared data, one dataflow over the same iteration space (a combo kernel's part)") {}

    Schedule run();

private:
    const GraphBuffer& buf(int id) const { return graph_.buffers.at(static_cast<size_t>(id)); }
    std::variant<GroupPlan, std::string> plan(const Group& group) const;
    GroupPlan startPlan(const Group& group) const;
    std::optional<std::string> addMember(GroupPlan& plan, int id) const;
    std::optional<Group> signatureWith(const Group& group, const GraphBuffer& b, std::string& why) const;
    void assemble(const GroupPlan& plan, const std::vector<bool>& stored, Schedule& schedule) const;

    bool hasAcross(const Group& g) const;
    bool acrossGenerated(const Group& g) const;

    const LoweredGraph& graph_;
    const bool fuseWithoutSharedData_;
    const bool comboKernels_;
    const ScheduleOptions options_;  // max_fusion_size, kernel names
    const std::string withoutSharedDataReason_;
};

std::vector<Index> keptSizes(const Group& g) {
    std::vector<Index> kept;
    for (size_t d = 0; d < g.sizes.size(); ++d)
        if (!g.reducedDims[d]) kept.push_back(g.sizes[d]);
    return kept;
}

std::vector<Index> keepdimSizes(const Group& g) {
    std::vector<Index> sizes = g.sizes;
    for (size_t d = 0; d < sizes.size(); ++d)
        if (g.reducedDims[d]) sizes[d] = indexConstant(1);
    return sizes;
}

// The results of a reduction over the group's outer dims (keeping its reduced dims), without and with keepdim.
std::vector<Index> acrossSizes(const Group& g) {
    std::vector<Index> sizes;
    for (size_t d = 0; d < g.sizes.size(); ++d)
        if (g.reducedDims[d]) sizes.push_back(g.sizes[d]);
    return sizes;
}

std::vector<Index> acrossKeepdimSizes(const Group& g) {
    std::vector<Index> sizes = g.sizes;
    for (size_t d = 0; d < sizes.size(); ++d)
        if (!g.reducedDims[d]) sizes[d] = indexConstant(1);
    return sizes;
}

std::vector<bool> complement(const std::vector<bool>& dims) {
    std::vector<bool> other(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) other[d] = !dims[d];
    return other;
}

bool reducesAcross(const Group& g, const GraphBuffer& b) {
    return g.reduction && b.kind == BufferKind::Reduction && b.reducedDims != g.reducedDims;
}

// Whether two groups plan their members alike: the same variables, so a member's plan does not change.
bool sameSignature(const Group& a, const Group& b) {
    return a.reduction == b.reduction && a.reducedDims == b.reducedDims && sameSizes(a.sizes, b.sizes);
}

bool Scheduler::hasAcross(const Group& g) const {
    for (int id : g.members)
        if (reducesAcross(g, buf(id))) return true;
    return false;
}

// Reductions over a kernel's outer range (Reduction::overOuterRange) are generated for the CPU, and for CUDA when
// the kernel's rows are its input's last dims: each CUDA thread keeps the partials of the columns it reads, the
// same ones in every row, which needs rows read along their contiguous dims. Elsewhere a column reduction beside
// row reductions gets a kernel of its own.
bool Scheduler::acrossGenerated(const Group& g) const {
    if (graph_.device.isCpu()) return true;
    if (graph_.device.type() != tensor::DeviceType::CUDA) return false;
    const auto firstReduced = std::find(g.reducedDims.begin(), g.reducedDims.end(), true);
    return std::find(firstReduced, g.reducedDims.end(), false) == g.reducedDims.end();
}

/// The signature of `group` once `b` joins it, or nullopt with the reason.
std::optional<Group> Scheduler::signatureWith(const Group& group, const GraphBuffer& b, std::string& why) const {
    if (group.members.size() >= options_.maxFusionSize) {
        why = fmt::format("exceeds max fusion: the kernel has {} buffers already", group.members.size());
        return std::nullopt;
    }
    Group joined = group;
    joined.members.push_back(b.id);
    const bool isReduction = b.kind == BufferKind::Reduction;
    if (!group.reduction) {
        if (!isReduction) {
            if (sameSizes(group.sizes, b.sizes)) return joined;
            why = fmt::format("iteration spaces differ: {} vs {}", rangesText(b.sizes), rangesText(group.sizes));
            return std::nullopt;
        }
        joined.reduction = true;
        joined.sizes = b.fullSizes;
        joined.reducedDims = b.reducedDims;
        if (sameSizes(group.sizes, joined.sizes) || sameSizes(group.sizes, keptSizes(joined)) || sameSizes(group.sizes, keepdimSizes(joined)))
            return joined;
        why = fmt::format("the kernel's pointwise range {} is neither the reduction's input {} nor its rows", rangesText(group.sizes),
                          rangesText(b.fullSizes));
        return std::nullopt;
    }
    if (isReduction) {
        if (sameSizes(group.sizes, b.fullSizes) && group.reducedDims == b.reducedDims) return joined;
        // The other dims of the same input (x.sum(dim=1) beside x.sum(dim=0)): one read of the input for both.
        const bool across = sameSizes(group.sizes, b.fullSizes) && b.reducedDims == complement(group.reducedDims) &&
                            b.reductionOp != ReductionOp::ArgMax && b.reductionOp != ReductionOp::ArgMin;
        if (across && acrossGenerated(group)) return joined;
        why = fmt::format("reductions over different ranges: dims {} of {} vs dims {} of {}{}", reducedText(b.reducedDims),
                          rangesText(b.fullSizes), reducedText(group.reducedDims), rangesText(group.sizes),
                          across ? " (one pass over both is generated only where the kernel's rows are the input's last dims, or on the CPU)" : "");
        return std::nullopt;
    }
    if (sameSizes(b.sizes, group.sizes) || sameSizes(b.sizes, keptSizes(group)) || sameSizes(b.sizes, keepdimSizes(group))) return joined;
    std::vector<Index> outer, red;  // the kernel's variables, as startPlan numbers them
    for (bool reduced : group.reducedDims) (reduced ? red : outer).push_back(indexVar(0));
    for (size_t v = 0; v < outer.size() + red.size(); ++v) (v < outer.size() ? outer[v] : red[v - outer.size()]) = indexVar(static_cast<int>(v));
    if (reshapedRowsIndex(group.sizes, group.reducedDims, outer, red, b.sizes)) return joined;
    if (hasAcross(group) && (sameSizes(b.sizes, acrossSizes(group)) || sameSizes(b.sizes, acrossKeepdimSizes(group)))) return joined;
    why = fmt::format("iteration space {} is not the reduction's input {} or its rows", rangesText(b.sizes), rangesText(group.sizes));
    return std::nullopt;
}

// Whether pointwise buffer `b` is over the results of the group's reductions across its outer range and reads
// one of them (or a value computed from them): then it is computed after every outer point.
bool readsAcross(const GroupPlan& plan, const GraphBuffer& b) {
    const Group& g = plan.group;
    if (!g.reduction) return false;
    const bool sameRank = b.sizes.size() == g.sizes.size();
    if (!sameSizes(b.sizes, sameRank ? acrossKeepdimSizes(g) : acrossSizes(g))) return false;
    std::vector<Index> probe;
    for (size_t d = 0; d < b.sizes.size(); ++d) probe.push_back(indexVar(static_cast<int>(d)));
    const std::set<int> loads = loadedBuffers(b.body(probe));
    for (const PlannedMember& m : plan.members)
        if ((m.role == PlannedMember::Role::AcrossReduction || m.role == PlannedMember::Role::FinalStore) && loads.count(m.buffer)) return true;
    return false;
}

GroupPlan Scheduler::startPlan(const Group& group) const {
    GroupPlan result;
    result.group = group;
    const size_t rank = group.sizes.size();
    result.fullIndex.resize(rank);
    result.keepdimIndex.resize(rank);
    result.acrossKeepdimIndex.resize(rank);
    int kept = 0;
    if (group.reduction)
        for (bool r : group.reducedDims) kept += r ? 0 : 1;
    int nextKept = 0, nextReduced = kept;
    for (size_t d = 0; d < rank; ++d) {
        const bool reduced = group.reduction && group.reducedDims[d];
        result.fullIndex[d] = indexVar(reduced ? nextReduced++ : nextKept++);
        if (reduced) {
            result.redVars.push_back(result.fullIndex[d]);
            result.keepdimIndex[d] = indexConstant(0);
            result.acrossKeepdimIndex[d] = result.fullIndex[d];
        } else {
            result.outerVars.push_back(result.fullIndex[d]);
            result.rowIndex.push_back(result.fullIndex[d]);
            result.keepdimIndex[d] = result.fullIndex[d];
            result.acrossKeepdimIndex[d] = indexConstant(0);
        }
    }
    return result;
}

// Plans buffer `id` as the next member of `result`: a member's plan depends only on the group's signature and
// the members before it, so a buffer joining a group of unchanged signature is planned alone, in time of its own
// body (re-planning every member for every join made a chain of N buffers cost N squared times the chain).
std::optional<std::string> Scheduler::addMember(GroupPlan& result, int id) const {
    const Group& group = result.group;
    const GraphBuffer& b = buf(id);
    PlannedMember m;
    m.buffer = id;
    const bool sameRank = b.sizes.size() == group.sizes.size();
    if (reducesAcross(group, b)) {
        // Its kept dims are the group's reduced ones: r variables index its result, x variables its input.
        m.role = PlannedMember::Role::AcrossReduction;
        m.value = b.reductionBody(result.redVars, result.outerVars);
        m.storeIndex = offsetOf(sameRank ? result.acrossKeepdimIndex : result.redVars, b.strides);
    } else if (b.kind == BufferKind::Reduction) {
        m.role = PlannedMember::Role::Reduction;
        m.value = b.reductionBody(result.outerVars, result.redVars);
        m.storeIndex = offsetOf(sameRank ? result.keepdimIndex : result.rowIndex, b.strides);
    } else if (readsAcross(result, b)) {
        std::vector<Index> index = sameRank ? result.acrossKeepdimIndex : result.redVars;
        m.role = PlannedMember::Role::FinalStore;
        m.value = b.body(index);
        m.storeIndex = offsetOf(index, b.strides);
    } else {
        std::vector<Index> index;
        if (!group.reduction || sameSizes(b.sizes, group.sizes)) {
            index = result.fullIndex;
            m.role = group.reduction ? PlannedMember::Role::FullStore : PlannedMember::Role::OuterStore;
        } else if (sameSizes(b.sizes, keptSizes(group)) || sameSizes(b.sizes, keepdimSizes(group))) {
            index = sameSizes(b.sizes, keptSizes(group)) ? result.rowIndex : result.keepdimIndex;
            m.role = PlannedMember::Role::OuterStore;
        } else if (auto reshaped = reshapedRowsIndex(group.sizes, group.reducedDims, result.outerVars, result.redVars, b.sizes)) {
            index = *reshaped;  // the rows reshaped: computed at each row's point
            m.role = PlannedMember::Role::FullStore;
        } else {  // over the column results' sizes without reading them
            return fmt::format("iteration space {} is not the reduction's input {} or its rows", rangesText(b.sizes), rangesText(group.sizes));
        }
        m.value = b.body(index);
        m.storeIndex = offsetOf(index, b.strides);
    }
    // Reads of fused members at the point being computed become registers. The level of a value is one past the
    // latest reduction it reads, directly or through a substituted member (whose level already counts its own).
    std::string failure;
    std::unordered_map<const Expr*, ExprPtr> memo;
    std::set<int> loads;
    int level = 0;
    m.value = rewriteExpr(m.value, [&](const ExprPtr& e) -> ExprPtr {
        if (e->kind != Expr::Kind::Load) return e;
        auto found = result.planned.find(e->buffer);
        if (found == result.planned.end()) {
            loads.insert(e->buffer);
            return e;
        }
        const PlannedMember& producer = result.members[found->second];
        if (!sameIndex(e->index, producer.storeIndex)) {
            if (failure.empty()) failure = fmt::format("reads {} at {}, not where it is computed ({})", buf(e->buffer).name, toString(e->index), toString(producer.storeIndex));
            return e;
        }
        const bool producerLast = producer.role == PlannedMember::Role::AcrossReduction || producer.role == PlannedMember::Role::FinalStore;
        if (producerLast != (m.role == PlannedMember::Role::FinalStore)) {
            if (failure.empty())
                failure = producerLast ? fmt::format("reads {}, which is finished only after every outer point", buf(e->buffer).name)
                                       : fmt::format("reads {} of one outer point after every outer point", buf(e->buffer).name);
            return e;
        }
        if (producer.role == PlannedMember::Role::AcrossReduction || producer.role == PlannedMember::Role::Reduction) {
            level = std::max(level, result.reductionLevel.at(producer.buffer) + 1);
            return reductionValue(producer.sameAs >= 0 ? producer.sameAs : producer.buffer, e->dtype);
        }
        level = std::max(level, producer.level);
        return producer.value;
    }, memo);
    if (!failure.empty()) return failure;
    m.level = level;
    if (m.role == PlannedMember::Role::AcrossReduction) result.reductionLevel[id] = level;
    if (m.role == PlannedMember::Role::Reduction) {
        result.reductionLevel[id] = level;
        for (const PlannedMember& other : result.members)
            if (other.role == PlannedMember::Role::Reduction && other.sameAs < 0 && other.level == level &&
                buf(other.buffer).reductionOp == b.reductionOp && buf(other.buffer).dtype == b.dtype && exprEqual(other.value, m.value, sameIndex)) {
                m.sameAs = other.buffer;
                break;
            }
    }
    // Loads inside substituted members are those members' own, counted when they were planned.
    result.externalLoads.insert(loads.begin(), loads.end());
    result.planned[id] = result.members.size();
    result.members.push_back(m);
    return std::nullopt;
}

std::variant<GroupPlan, std::string> Scheduler::plan(const Group& group) const {
    GroupPlan result = startPlan(group);
    for (int id : group.members)
        if (auto failure = addMember(result, id)) return *failure;
    return result;
}

}  // namespace

std::string kernelBaseName(const std::string& prefix, const std::vector<int>& members, const LoweredGraph& graph) {
    std::set<std::string> ops;
    for (int id : members)
        for (const std::string& origin : graph.buffers[static_cast<size_t>(id)].originNodes) {
            auto found = graph.opOfNode.find(origin);
            if (found == graph.opOfNode.end()) continue;  // graph inputs
            std::string op = found->second;
            while (!op.empty() && op.back() == '_') op.pop_back();  // in-place ops and operator.and_
            if (!op.empty() && op != "getitem") ops.insert(op);
        }
    std::string name = prefix;
    for (const std::string& op : ops) name += "_" + op;
    return name;
}

namespace {

void Scheduler::assemble(const GroupPlan& plan, const std::vector<bool>& stored, Schedule& schedule) const {
    ScheduledKernel sk;
    Kernel& k = sk.kernel;
    const Group& g = plan.group;
    for (size_t d = 0; d < g.sizes.size(); ++d) {
        if (g.reduction && g.reducedDims[d]) k.reductionRanges.push_back(g.sizes[d]);
        else k.outerRanges.push_back(g.sizes[d]);
    }
    // A reduction of a 0-d tensor (`x.sum()` of a scalar) reduces over no dimension: one element, r0 in [0, 1).
    if (g.reduction && k.reductionRanges.empty()) k.reductionRanges.push_back(indexConstant(1));
    std::map<int, int> param;
    auto paramOf = [&](int id) {
        auto [it, added] = param.try_emplace(id, static_cast<int>(k.buffers.size()));
        if (added) {
            k.buffers.push_back(KernelBuffer{buf(id).name, buf(id).dtype, false, false});
            sk.bufferIds.push_back(id);
        }
        return it->second;
    };
    std::unordered_map<const Expr*, ExprPtr> memo;
    auto renumber = [&](const ExprPtr& value) {
        return rewriteExpr(value, [&](const ExprPtr& e) -> ExprPtr {
            if (e->kind != Expr::Kind::Load) return e;
            int p = paramOf(e->buffer);
            k.buffers[static_cast<size_t>(p)].read = true;
            auto copy = std::make_shared<Expr>(*e);
            copy->buffer = p;
            return copy;
        }, memo);
    };
    int maxLevel = 0;
    for (const PlannedMember& m : plan.members)
        if (m.role != PlannedMember::Role::FinalStore) maxLevel = std::max(maxLevel, m.level + (m.role == PlannedMember::Role::Reduction ? 1 : 0));
    auto write = [&](int buffer) {
        int p = paramOf(buffer);
        k.buffers[static_cast<size_t>(p)].written = true;
        return p;
    };
    // Passes by level: outer stores of level L run before the reduction pass of level L.
    for (int level = 0; level <= maxLevel; ++level) {
        KernelPass outer{false, {}, {}}, rows{true, {}, {}};
        for (const PlannedMember& m : plan.members) {
            const GraphBuffer& b = buf(m.buffer);
            const bool isStored = stored[static_cast<size_t>(m.buffer)];
            if (m.role == PlannedMember::Role::Reduction) {
                if (m.level == level && m.sameAs < 0) rows.reductions.push_back(Reduction{m.buffer, b.reductionOp, renumber(m.value)});
                if (m.level + 1 == level && isStored)
                    outer.stores.push_back(Store{write(m.buffer), m.storeIndex, reductionValue(m.sameAs >= 0 ? m.sameAs : m.buffer, b.dtype)});
            } else if (m.role == PlannedMember::Role::AcrossReduction) {
                if (m.level != level) continue;
                rows.reductions.push_back(Reduction{m.buffer, b.reductionOp, renumber(m.value), true});
                if (isStored) k.finalStores.push_back(Store{write(m.buffer), m.storeIndex, reductionValue(m.buffer, b.dtype)});
            } else if (m.role == PlannedMember::Role::FinalStore) {
                if (level == 0 && isStored) k.finalStores.push_back(Store{write(m.buffer), m.storeIndex, renumber(m.value)});
            } else if (m.level == level && isStored) {
                (m.role == PlannedMember::Role::FullStore ? rows : outer).stores.push_back(Store{write(m.buffer), m.storeIndex, renumber(m.value)});
            }
        }
        if (!outer.stores.empty()) k.passes.push_back(std::move(outer));
        if (!rows.reductions.empty() || !rows.stores.empty()) k.passes.push_back(std::move(rows));
    }
    bool writes = false;
    for (const KernelBuffer& b : k.buffers) writes = writes || b.written;
    if (!writes) return;  // every result is consumed elsewhere through registers only: nothing to run
    for (const Index& r : k.outerRanges) collectSymbols(r, k.symbols);
    for (const Index& r : k.reductionRanges) collectSymbols(r, k.symbols);
    std::unordered_set<const Expr*> seen;
    auto visit = [&](const Expr& x) { if (x.index) collectSymbols(x.index, k.symbols); };
    auto storeSymbols = [&](const std::vector<Store>& stores) {
        for (const Store& s : stores) {
            collectSymbols(s.index, k.symbols);
            forEachExprOnce(s.value, visit, seen);
        }
    };
    for (const KernelPass& pass : k.passes) {
        storeSymbols(pass.stores);
        for (const Reduction& r : pass.reductions) forEachExprOnce(r.value, visit, seen);
    }
    storeSymbols(k.finalStores);
    const std::string kind = g.reduction ? "cwb_red" : "cwb_poi";
    k.name = fmt::format("{}_{}", options_.opsInKernelNames ? kernelBaseName(kind + "_fused", g.members, graph_) : kind, schedule.kernels.size());
    std::set<std::string> seenNodes;
    for (int id : plan.group.members)
        for (const std::string& origin : buf(id).originNodes)
            if (seenNodes.insert(origin).second) sk.sourceNodes.push_back(origin);
    sk.members = plan.group.members;
    sk.outerNumel = product(k.outerRanges);
    verifyKernel(k);
    schedule.steps.push_back(ScheduleStep{ScheduleStep::Kind::Kernel, static_cast<int>(schedule.kernels.size())});
    schedule.kernels.push_back(std::move(sk));
}

Schedule Scheduler::run() {
    Schedule schedule;
    std::vector<Group> groups;
    std::vector<GroupPlan> plans;
    std::vector<int> groupOf(graph_.buffers.size(), -1);
    std::vector<std::optional<GroupPlan>> alonePlans(graph_.buffers.size());  // each buffer in a kernel of its own
    for (const GraphBuffer& b : graph_.buffers)
        if (const bool reduction = b.kind == BufferKind::Reduction; b.kind != BufferKind::Input && b.kind != BufferKind::Extern)
            alonePlans[static_cast<size_t>(b.id)] = std::get<GroupPlan>(plan(Group{false, {b.id}, reduction, reduction ? b.fullSizes : b.sizes, b.reducedDims}));
    const std::vector<int> components = comboKernels_ ? comboFusionComponents(graph_, [&](int id) { return alonePlans[static_cast<size_t>(id)]->externalLoads; })
                                                      : std::vector<int>{};
    for (const GraphBuffer& b : graph_.buffers) {
        if (b.kind == BufferKind::Input) continue;
        if (b.kind == BufferKind::Extern) {
            Group g;
            g.isExtern = true;
            g.members = {b.id};
            groupOf[static_cast<size_t>(b.id)] = static_cast<int>(groups.size());
            groups.push_back(g);
            GroupPlan externPlan;
            externPlan.group = g;
            plans.push_back(std::move(externPlan));
            schedule.decisions.push_back(FusionDecision{b.name, b.name, false, "extern kernel (" + b.extern_.op + "): runs on its own"});
            if (!b.extern_.epilogue.empty())
                schedule.decisions.push_back(FusionDecision{fmt::format("{}", fmt::join(b.extern_.epilogueNodes, ", ")), b.name, true, b.extern_.epilogue});
            continue;
        }
        // b in a kernel of its own: what it reads directly (before any fusion) tells which kernels it must
        // follow, and it is the new kernel when it joins none.
        const Group alone = alonePlans[static_cast<size_t>(b.id)]->group;
        GroupPlan alonePlan = std::move(*alonePlans[static_cast<size_t>(b.id)]);
        const std::set<int> reads = alonePlan.externalLoads;
        bool placed = false;
        for (size_t p = groups.size(); p-- > 0;) {
            bool producer = false;
            for (int r : reads) producer = producer || groupOf[static_cast<size_t>(r)] == static_cast<int>(p);
            if (groups[p].isExtern) {
                if (producer) break;
                continue;
            }
            // Shared data: b reads what kernel p computes, or a buffer kernel p reads too.
            bool sharesReads = false;
            for (int r : reads) sharesReads = sharesReads || plans[p].externalLoads.count(r) > 0;
            const bool sharesData = producer || sharesReads;
            const bool sameComponent = !components.empty() && components[static_cast<size_t>(b.id)] >= 0 &&
                                       components[static_cast<size_t>(b.id)] == components[static_cast<size_t>(groups[p].members[0])];
            if (!sharesData && !(((fuseWithoutSharedData_ && b.kind != BufferKind::Reduction) || sameComponent) && !groups[p].reduction)) continue;
            std::string why;
            auto joined = signatureWith(groups[p], b, why);
            if (joined) {
                std::variant<GroupPlan, std::string> planned;
                if (sameSignature(*joined, groups[p])) {
                    GroupPlan extended = plans[p];
                    extended.group = *joined;
                    if (auto failure = addMember(extended, b.id)) planned = *failure;
                    else planned = std::move(extended);
                } else {
                    planned = plan(*joined);
                }
                if (auto* ok = std::get_if<GroupPlan>(&planned)) {
                    bool ordered = true;
                    for (int load : ok->externalLoads)
                        if (groupOf[static_cast<size_t>(load)] > static_cast<int>(p)) {
                            ordered = false;
                            why = fmt::format("needs {}, which a later kernel computes", buf(load).name);
                        }
                    if (ordered) {
                        groups[p] = *joined;
                        plans[p] = std::move(*ok);
                        groupOf[static_cast<size_t>(b.id)] = static_cast<int>(p);
                        schedule.decisions.push_back(FusionDecision{b.name, fmt::format("kernel {}", p), true,
                            producer ? "consumer fused with its producer (same iteration space)"
                            : reducesAcross(groups[p], b) ? "reduction over the other dims of the same input, in the same pass (one read for both)"
                            : sharesReads ? "reads what the kernel reads, over the same iteration space (horizontal fusion)"
                                          : withoutSharedDataReason_});
                        placed = true;
                        break;
                    }
                } else {
                    why = std::get<std::string>(planned);
                }
            }
            // Failed candidates worth telling: the producer's kernel, and kernels reading the same inputs (where
            // horizontal fusion would have saved a read).
            if (sharesData) schedule.decisions.push_back(FusionDecision{b.name, fmt::format("kernel {}", p), false, why});
            if (producer) break;
        }
        if (placed) continue;
        groupOf[static_cast<size_t>(b.id)] = static_cast<int>(groups.size());
        groups.push_back(std::move(alone));
        plans.push_back(std::move(alonePlan));
        schedule.decisions.push_back(FusionDecision{b.name, fmt::format("kernel {}", groups.size() - 1), false, kStartsNewKernel});
    }

    // A buffer is stored when it is an output, written back into an input, or read outside its own kernel.
    schedule.stored.assign(graph_.buffers.size(), false);
    for (const GraphOutput& out : graph_.outputs)
        if (out.kind == GraphOutput::Kind::Buffer) schedule.stored[static_cast<size_t>(out.buffer)] = true;
    for (const GraphBuffer& b : graph_.buffers) {
        if (b.kind == BufferKind::Input || b.kind == BufferKind::Extern) schedule.stored[static_cast<size_t>(b.id)] = true;
        if (b.mutatesInput >= 0) schedule.stored[static_cast<size_t>(b.id)] = true;
        if (b.kind == BufferKind::Extern)
            for (int in : b.extern_.inputBuffers) schedule.stored[static_cast<size_t>(in)] = true;
    }
    for (const GroupPlan& p : plans)
        for (int load : p.externalLoads) schedule.stored[static_cast<size_t>(load)] = true;

    std::map<std::string, std::string> kernelNames;
    for (size_t p = 0; p < groups.size(); ++p) {
        if (groups[p].isExtern) {
            schedule.steps.push_back(ScheduleStep{ScheduleStep::Kind::Extern, groups[p].members[0]});
            continue;
        }
        size_t before = schedule.kernels.size();
        assemble(plans[p], schedule.stored, schedule);
        kernelNames[fmt::format("kernel {}", p)] = schedule.kernels.size() > before ? schedule.kernels.back().kernel.name : "(nothing stored)";
    }
    for (FusionDecision& d : schedule.decisions)
        if (auto found = kernelNames.find(d.kernel); found != kernelNames.end()) d.kernel = found->second;
    return schedule;
}

}  // namespace

Schedule scheduleGraph(const LoweredGraph& graph, ScheduleOptions options) {
    Schedule schedule = Scheduler(graph, options).run();
    if (options.comboKernels) fuseComboKernels(graph, schedule);
    return schedule;
}

}  // namespace eng::inductor
