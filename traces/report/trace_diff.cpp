// diffTraces (see trace_diff.h): compiles are matched by compile id, each compared through its last attempt.
#include "report/trace_diff.h"

#include "report/compile_insights.h"
#include "report/report_common.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

namespace traces {
namespace {

constexpr double kPhaseChangeRatio = 0.10;
constexpr double kPhaseChangeSeconds = 0.010;

/// One side of a diff: a trace with its indexes, built once.
struct Side {
    const TraceData& trace;
    TraceIndex index;
    InsightIndex insights;
    explicit Side(const TraceData& t) : trace(t), index(t), insights(t) {}
};

/// Compile id -> last attempt of that occurrence, in input order; a reset's repeats get "#2", "#3".
std::vector<std::pair<std::string, const Compile*>> occurrences(const Side& side, const Session& session) {
    std::vector<std::pair<std::string, const Compile*>> list;
    std::map<std::string, int> seen;
    for (const Compile* compile : side.index.session(session.id).compiles) {
        if (side.index.occurrenceHead(*compile) != compile) continue;
        CompileKey key = compile->key;
        key.attempt = 0;
        std::string id = key.str();
        if (int n = ++seen[id]; n > 1) id += "#" + std::to_string(n);
        list.emplace_back(id, side.index.attempts(*compile).back());
    }
    return list;
}

/// Items of `b` not in `a`, as multisets, in b's order; `a` minus `b` goes to `removed`.
void multisetDiff(const std::vector<std::string>& a, const std::vector<std::string>& b,
                  std::vector<std::string>& added, std::vector<std::string>& removed) {
    std::map<std::string, int> counts;
    for (const std::string& item : a) ++counts[item];
    for (const std::string& item : b)
        if (--counts[item] < 0) added.push_back(item);
    std::map<std::string, int> left;
    for (const std::string& item : b) ++left[item];
    for (const std::string& item : a)
        if (--left[item] < 0) removed.push_back(item);
}

std::vector<std::string> withCounts(const std::vector<std::string>& items) {
    std::map<std::string, int> counts;
    std::vector<std::string> order;
    for (const std::string& item : items)
        if (counts[item]++ == 0) order.push_back(item);
    for (std::string& item : order)
        if (int n = counts[item]; n > 1) item += " x" + std::to_string(n);
    return order;
}

std::vector<std::string> callTargets(const Graph& graph) {
    std::vector<std::string> targets;
    for (const GraphNode& node : graph.nodes)
        if (node.op.starts_with("call_")) targets.push_back(node.target);
    return targets;
}

/// Guard text without what changes on every run: the object and type ids of ID_MATCH / TYPE_MATCH guards and
/// the addresses in the objects' printed forms (`<code object inner at 0x7f1b...>`).
std::string stableGuardText(const std::string& text) {
    static const std::regex ids(R"((___check_(?:obj|type)_id\([^,]+, )\d+)");
    static const std::regex addresses(R"( at 0x[0-9a-f]+)");
    return std::regex_replace(std::regex_replace(text, ids, "$1<id>"), addresses, " at 0x<address>");
}

/// What a graph computes, node by node: op, target, and the shape and dtype it makes (names and comments aside).
std::vector<std::string> graphSignature(const Graph& graph) {
    std::vector<std::string> nodes;
    for (const GraphNode& n : graph.nodes) nodes.push_back(n.op + " " + n.target + " " + n.shape + " " + n.dtype);
    if (nodes.empty()) nodes.push_back(graph.text);  // text the parser could not read: compare it whole
    return nodes;
}

bool phaseChanged(double a, double b) {
    double larger = std::max(std::abs(a), std::abs(b));
    return std::abs(a - b) >= kPhaseChangeSeconds && std::abs(a - b) >= kPhaseChangeRatio * larger;
}

std::optional<CompileChange> compareCompiles(const std::string& id, const Side& a, const Compile& ca, const Side& b,
                                             const Compile& cb) {
    CompileChange change;
    change.compileId = id;
    change.function = !cb.function.empty() ? cb.function : ca.function;
    change.statusA = toString(ca.status);
    change.statusB = toString(cb.status);
    change.cachesA = cacheSummaryText(a.insights.compile(ca.id));
    change.cachesB = cacheSummaryText(b.insights.compile(cb.id));
    const CompileRows& ra = a.index.compile(ca.id);
    const CompileRows& rb = b.index.compile(cb.id);

    std::vector<std::string> guardsA, guardsB;
    for (const Guard* g : ra.guards) guardsA.push_back(stableGuardText(g->text));
    for (const Guard* g : rb.guards) guardsB.push_back(stableGuardText(g->text));
    multisetDiff(guardsA, guardsB, change.guardsAdded, change.guardsRemoved);

    // The last graph of each kind is what that stage handed on (after its passes).
    std::map<std::string, const Graph*> graphsA, graphsB;
    std::vector<std::string> kindOrder;  // kinds in A's order, then those only B has
    for (const auto* rows : {&ra, &rb})
        for (const Graph* g : rows->graphs) {
            (rows == &ra ? graphsA : graphsB)[toString(g->kind)] = g;
            if (std::find(kindOrder.begin(), kindOrder.end(), toString(g->kind)) == kindOrder.end())
                kindOrder.push_back(toString(g->kind));
        }
    for (const std::string& kind : kindOrder) {
        const Graph* ga = graphsA.contains(kind) ? graphsA[kind] : nullptr;
        const Graph* gb = graphsB.contains(kind) ? graphsB[kind] : nullptr;
        if (ga && gb && graphSignature(*ga) == graphSignature(*gb)) continue;
        GraphChange g{kind, ga ? static_cast<int64_t>(ga->nodes.size()) : 0,
                      gb ? static_cast<int64_t>(gb->nodes.size()) : 0, {}, {}};
        std::vector<std::string> added, removed;
        multisetDiff(ga ? callTargets(*ga) : std::vector<std::string>{}, gb ? callTargets(*gb) : std::vector<std::string>{},
                     added, removed);
        g.opsAdded = withCounts(added);
        g.opsRemoved = withCounts(removed);
        change.graphs.push_back(std::move(g));
    }

    std::vector<std::string> kernelsA, kernelsB;
    for (const OutputCode* code : ra.outputCode)
        for (const Kernel& k : code->kernels) kernelsA.push_back(k.name);
    for (const OutputCode* code : rb.outputCode)
        for (const Kernel& k : code->kernels) kernelsB.push_back(k.name);
    multisetDiff(kernelsA, kernelsB, change.kernelsAdded, change.kernelsRemoved);

    std::map<std::string, double> phasesB;
    for (const PhaseTime& p : cb.phases) phasesB[p.phase] = p.seconds;
    for (const PhaseTime& p : ca.phases) {
        double other = phasesB.contains(p.phase) ? phasesB[p.phase] : 0.0;
        if (phaseChanged(p.seconds, other)) change.phases.push_back({p.phase, p.seconds, other});
    }

    bool same = change.statusA == change.statusB && change.cachesA == change.cachesB &&
                change.guardsAdded.empty() && change.guardsRemoved.empty() && change.graphs.empty() &&
                change.kernelsAdded.empty() && change.kernelsRemoved.empty() && change.phases.empty();
    if (same) return std::nullopt;
    return change;
}

std::map<std::string, BreakCountChange> breakCounts(const SessionSummary& summary, bool sideB) {
    std::map<std::string, BreakCountChange> counts;
    for (const BreakReasonSummary& reason : summary.breakReasons) {
        std::string where = reason.userFile.empty() ? "" : report_detail::fileLine(reason.userFile, reason.userLine);
        BreakCountChange& c = counts[reason.breakType + "\n" + where];
        c.breakType = reason.breakType;
        c.where = where;
        (sideB ? c.countB : c.countA) += reason.count;
    }
    return counts;
}

SessionDiff diffSessions(const Side& a, const Session& sa, const Side& b, const Session& sb) {
    SessionDiff diff;
    diff.labelA = report_detail::sessionTitle(sa);
    diff.labelB = report_detail::sessionTitle(sb);
    auto listA = occurrences(a, sa), listB = occurrences(b, sb);
    std::map<std::string, const Compile*> byIdA(listA.begin(), listA.end()), byIdB(listB.begin(), listB.end());
    for (const auto& [id, compile] : listA)
        if (!byIdB.contains(id)) diff.compilesRemoved.push_back(id);
    for (const auto& [id, compile] : listB) {
        auto other = byIdA.find(id);
        if (other == byIdA.end()) {
            diff.compilesAdded.push_back(id);
        } else if (auto change = compareCompiles(id, a, *other->second, b, *compile)) {
            diff.compiles.push_back(std::move(*change));
        }
    }

    SessionSummary summaryA = summarizeSession(a.index, sa), summaryB = summarizeSession(b.index, sb);
    auto breaks = breakCounts(summaryA, false);
    for (auto& [key, c] : breakCounts(summaryB, true)) {
        BreakCountChange& merged = breaks[key];
        merged.breakType = c.breakType;
        merged.where = c.where;
        merged.countB = c.countB;
    }
    for (const auto& [key, c] : breaks) {
        if (c.countB == 0) diff.breaksFixed.push_back(c);
        else if (c.countA == 0) diff.breaksNew.push_back(c);
        else if (c.countA != c.countB) diff.breaksChanged.push_back(c);
    }

    for (const PhaseTime& p : summaryA.phaseTotals) diff.phaseTotals.push_back({p.phase, p.seconds, 0.0});
    for (const PhaseTime& p : summaryB.phaseTotals) {
        auto it = std::find_if(diff.phaseTotals.begin(), diff.phaseTotals.end(),
                               [&](const PhaseChange& c) { return c.phase == p.phase; });
        if (it == diff.phaseTotals.end()) diff.phaseTotals.push_back({p.phase, 0.0, p.seconds});
        else it->secondsB = p.seconds;
    }
    for (const OutputCode* code : a.index.session(sa.id).outputCode)
        diff.kernelsA += static_cast<int64_t>(code->kernels.size());
    for (const OutputCode* code : b.index.session(sb.id).outputCode)
        diff.kernelsB += static_cast<int64_t>(code->kernels.size());
    return diff;
}

bool allRanked(const TraceData& t) {
    return !t.sessions.empty() &&
           std::all_of(t.sessions.begin(), t.sessions.end(), [](const Session& s) { return s.rank.has_value(); });
}

}  // namespace

TraceDiff diffTraces(const TraceData& a, const TraceData& b) {
    TraceDiff diff;
    diff.pathA = a.path;
    diff.pathB = b.path;
    Side sideA(a), sideB(b);
    std::vector<std::pair<const Session*, const Session*>> pairs;
    std::vector<bool> usedB(b.sessions.size(), false);
    bool byRank = allRanked(a) && allRanked(b) && (a.sessions.size() > 1 || b.sessions.size() > 1);
    for (size_t i = 0; i < a.sessions.size(); ++i) {
        const Session& s = a.sessions[i];
        std::optional<size_t> match;
        for (size_t j = 0; j < b.sessions.size() && !match; ++j)
            if (!usedB[j] && (byRank ? b.sessions[j].rank == s.rank : j == i)) match = j;
        if (!match) {
            diff.unpaired.push_back("A: " + report_detail::sessionTitle(s));
            continue;
        }
        usedB[*match] = true;
        pairs.emplace_back(&s, &b.sessions[*match]);
    }
    for (size_t j = 0; j < b.sessions.size(); ++j)
        if (!usedB[j]) diff.unpaired.push_back("B: " + report_detail::sessionTitle(b.sessions[j]));
    for (const auto& [sa, sb] : pairs) diff.sessions.push_back(diffSessions(sideA, *sa, sideB, *sb));
    return diff;
}

}  // namespace traces
