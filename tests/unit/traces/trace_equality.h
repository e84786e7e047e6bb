// Compares two loaded models table by table and row by row through the trace's column tables, so a column added
// there is compared too: the first difference as text, for tests that two ways of loading agree.
#pragma once

#include <string>
#include <vector>

#include "store/trace_tables.h"

namespace testsupport {

namespace detail {

template <class Row, size_t N>
std::string firstRowDifference(const traces::Table<Row, N>& table, const std::vector<Row>& a,
                               const std::vector<Row>& b, const std::string& where) {
    if (a.size() != b.size())
        return where + table.name + ": " + std::to_string(a.size()) + " rows vs " + std::to_string(b.size());
    for (size_t i = 0; i < a.size(); ++i)
        if (const char* column = traces::firstDifferentColumn(table, a[i], b[i]))
            return where + table.name + " row " + std::to_string(i) + ": column " + column + " differs";
    return {};
}

}  // namespace detail

/// Empty when both models hold the same rows in the same order (payloads included); else the first difference.
inline std::string firstTraceDifference(const traces::TraceData& a, const traces::TraceData& b) {
    namespace t = traces::tables;
    using detail::firstRowDifference;
    std::string d;
    auto check = [&](std::string difference) {
        if (d.empty()) d = std::move(difference);
        return d.empty();
    };
    check(firstRowDifference(t::kSessions, a.sessions, b.sessions, ""));
    check(firstRowDifference(t::kImportIssues, a.issues, b.issues, ""));
    check(firstRowDifference(t::kCompileSites, a.sites, b.sites, ""));
    if (check(firstRowDifference(t::kCompiles, a.compiles, b.compiles, "")))
        for (size_t i = 0; i < a.compiles.size() && d.empty(); ++i)
            check(firstRowDifference(t::kCompilePhases, a.compiles[i].phases, b.compiles[i].phases,
                                     "compile " + std::to_string(i) + ": "));
    if (check(firstRowDifference(t::kGraphs, a.graphs, b.graphs, "")))
        for (size_t i = 0; i < a.graphs.size() && d.empty(); ++i)
            check(firstRowDifference(t::kGraphNodes, a.graphs[i].nodes, b.graphs[i].nodes,
                                     "graph " + std::to_string(i) + ": "));
    check(firstRowDifference(t::kGuards, a.guards, b.guards, ""));
    check(firstRowDifference(t::kGuardFailures, a.guardFailures, b.guardFailures, ""));
    check(firstRowDifference(t::kGraphBreaks, a.graphBreaks, b.graphBreaks, ""));
    if (check(firstRowDifference(t::kOutputCode, a.outputCode, b.outputCode, "")))
        for (size_t i = 0; i < a.outputCode.size() && d.empty(); ++i)
            check(firstRowDifference(t::kKernels, a.outputCode[i].kernels, b.outputCode[i].kernels,
                                     "output code " + std::to_string(i) + ": "));
    if (check(firstRowDifference(t::kArtifacts, a.artifacts, b.artifacts, "")))
        for (size_t i = 0; i < a.artifacts.size() && d.empty(); ++i)
            if (a.artifacts[i].payload != b.artifacts[i].payload)
                check("artifacts row " + std::to_string(i) + ": payload differs");
    check(firstRowDifference(t::kSpans, a.spans, b.spans, ""));
    check(firstRowDifference(t::kRecordsWithoutCompileId, a.recordsWithoutCompileId, b.recordsWithoutCompileId, ""));
    if (d.empty() && a.internedStrings != b.internedStrings) d = "interned strings differ";
    return d;
}

}  // namespace testsupport
