// Compares two loaded models table by table and row by row through the trace's column tables, so a column added
// there is compared too: the first difference as text, for tests that two ways of loading agree.
#pragma once

#include <string>
#include <type_traits>
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

namespace detail {

/// forEachModelTable's visit that keeps the first difference between two models.
struct TraceComparison {
    const traces::TraceData& a;
    const traces::TraceData& b;
    std::string difference;

    template <class Table, class Member>
    void rows(const Table& table, Member member, const char*) {
        if (!difference.empty()) return;
        difference = firstRowDifference(table, a.*member, b.*member, "");
        if constexpr (std::is_same_v<Member, std::vector<traces::Artifact> traces::TraceData::*>)
            for (size_t i = 0; i < a.artifacts.size() && difference.empty(); ++i)
                if (a.artifacts[i].payload != b.artifacts[i].payload)
                    difference = "artifacts row " + std::to_string(i) + ": payload differs";
    }
    template <class Table, class Parents, class Children>
    void children(const Table& table, const char*, Parents parents, Children children, const char* stage) {
        for (size_t i = 0; i < (a.*parents).size() && i < (b.*parents).size() && difference.empty(); ++i)
            difference = firstRowDifference(table, (a.*parents)[i].*children, (b.*parents)[i].*children,
                                            std::string(stage) + " of row " + std::to_string(i) + ": ");
    }
};

}  // namespace detail

/// Empty when both models hold the same rows in the same order (payloads included); else the first difference.
inline std::string firstTraceDifference(const traces::TraceData& a, const traces::TraceData& b) {
    detail::TraceComparison compare{a, b, {}};
    traces::tables::forEachModelTable(compare);
    if (compare.difference.empty() && a.internedStrings != b.internedStrings) return "interned strings differ";
    return compare.difference;
}

}  // namespace testsupport
