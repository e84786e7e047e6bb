// The difference of two traces (two runs, two versions, two ranks): compile ids added and removed, graph
// breaks fixed and new, and per compile id present in both what changed in status, caches, guards, graphs,
// kernels and compile time. Sessions are paired by rank, else by position.
#pragma once

#include "model/trace_model.h"
#include "report/report.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace traces {

/// A graph break location (break type and innermost user frame) and how often each side logged it.
struct BreakCountChange {
    std::string breakType;
    std::string where;  ///< "file:line", "" when unknown
    int64_t countA = 0;
    int64_t countB = 0;
};

/// One graph kind of a compile whose FX graph differs between the sides.
struct GraphChange {
    std::string kind;  ///< "dynamo", "aot_forward", ...
    int64_t nodesA = 0;
    int64_t nodesB = 0;
    std::vector<std::string> opsAdded;    ///< call targets with their extra count on B ("aten.mul.Tensor x2")
    std::vector<std::string> opsRemoved;
};

struct PhaseChange {
    std::string phase;
    double secondsA = 0;
    double secondsB = 0;
};

/// A compile id present on both sides (its last attempt compared) with at least one difference.
struct CompileChange {
    std::string compileId;  ///< "0/1" (attempts folded; "#2" marks a second occurrence after a reset)
    std::string function;
    std::string statusA, statusB;
    std::string cachesA, cachesB;  ///< cacheSummaryText of each side
    std::vector<std::string> guardsAdded, guardsRemoved;
    std::vector<GraphChange> graphs;
    std::vector<std::string> kernelsAdded, kernelsRemoved;
    std::vector<PhaseChange> phases;  ///< phases whose time changed by 10% or more, and at least 10 ms
};

/// One pair of sessions (same rank, or same position).
struct SessionDiff {
    std::string labelA, labelB;  ///< file name and rank of each session
    std::vector<std::string> compilesAdded;    ///< compile ids only B has
    std::vector<std::string> compilesRemoved;  ///< compile ids only A has
    std::vector<BreakCountChange> breaksFixed;  ///< breaks A logged and B did not
    std::vector<BreakCountChange> breaksNew;    ///< breaks B logged and A did not
    std::vector<BreakCountChange> breaksChanged;  ///< logged by both, a different number of times
    std::vector<CompileChange> compiles;
    std::vector<PhaseChange> phaseTotals;  ///< every phase of either side, summed over the session
    int64_t kernelsA = 0, kernelsB = 0;
};

struct TraceDiff {
    std::string pathA, pathB;
    std::vector<SessionDiff> sessions;
    std::vector<std::string> unpaired;  ///< sessions only one side has
};

TraceDiff diffTraces(const TraceData& a, const TraceData& b);

/// `producedBy` (cwb's version and command line) heads the output so a diff says what made it.
void writeDiff(const TraceDiff& diff, ReportFormat format, const std::string& producedBy, std::ostream& out);

}  // namespace traces
