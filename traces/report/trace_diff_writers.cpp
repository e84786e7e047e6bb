// writeDiff (see trace_diff.h): the same facts as JSON, Markdown or one self-contained HTML page.
#include "report/trace_diff.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

namespace traces {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kDiffJsonVersion = 1;

Json breaksJson(const std::vector<BreakCountChange>& breaks) {
    Json list = Json::array();
    for (const BreakCountChange& b : breaks)
        list.push_back({{"break_type", b.breakType}, {"where", b.where}, {"count_a", b.countA}, {"count_b", b.countB}});
    return list;
}

Json phasesJson(const std::vector<PhaseChange>& phases) {
    Json list = Json::array();
    for (const PhaseChange& p : phases)
        list.push_back({{"phase", p.phase}, {"seconds_a", p.secondsA}, {"seconds_b", p.secondsB}});
    return list;
}

void writeJson(const TraceDiff& diff, const std::string& producedBy, std::ostream& out) {
    Json sessions = Json::array();
    for (const SessionDiff& s : diff.sessions) {
        Json compiles = Json::array();
        for (const CompileChange& c : s.compiles) {
            Json graphs = Json::array();
            for (const GraphChange& g : c.graphs)
                graphs.push_back({{"kind", g.kind}, {"nodes_a", g.nodesA}, {"nodes_b", g.nodesB},
                                  {"ops_added", g.opsAdded}, {"ops_removed", g.opsRemoved}});
            compiles.push_back({{"compile_id", c.compileId}, {"function", c.function}, {"status_a", c.statusA},
                                {"status_b", c.statusB}, {"caches_a", c.cachesA}, {"caches_b", c.cachesB},
                                {"guards_added", c.guardsAdded}, {"guards_removed", c.guardsRemoved},
                                {"graphs", std::move(graphs)}, {"kernels_added", c.kernelsAdded},
                                {"kernels_removed", c.kernelsRemoved}, {"phases", phasesJson(c.phases)}});
        }
        sessions.push_back({{"a", s.labelA}, {"b", s.labelB}, {"compiles_added", s.compilesAdded},
                            {"compiles_removed", s.compilesRemoved}, {"breaks_fixed", breaksJson(s.breaksFixed)},
                            {"breaks_new", breaksJson(s.breaksNew)}, {"breaks_changed", breaksJson(s.breaksChanged)},
                            {"compiles_changed", std::move(compiles)}, {"kernels_a", s.kernelsA},
                            {"kernels_b", s.kernelsB}, {"phase_times", phasesJson(s.phaseTotals)}});
    }
    Json root = {{"format", "cwb-diff"}, {"version", kDiffJsonVersion}, {"produced_by", producedBy},
                 {"a", diff.pathA},      {"b", diff.pathB},             {"unpaired_sessions", diff.unpaired},
                 {"sessions", std::move(sessions)}};
    out << root.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

/// The Markdown and HTML writers differ only in markup; both walk the diff through these hooks.
struct Markup {
    std::function<void(int, const std::string&)> heading;
    std::function<void(const std::string&)> paragraph;
    std::function<void(const std::vector<std::string>&, const std::vector<std::vector<std::string>>&)> table;
    std::function<std::string(const std::string&)> code;
};

std::string seconds(double s) { return fmt::format("{:.3f} s", s); }

std::string list(const std::vector<std::string>& items, const Markup& m) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + m.code(item);
    return text.empty() ? "none" : text;
}

void writeBreakTable(const std::string& title, const std::vector<BreakCountChange>& breaks, const Markup& m) {
    if (breaks.empty()) return;
    m.heading(4, title);
    std::vector<std::vector<std::string>> rows;
    for (const BreakCountChange& b : breaks)
        rows.push_back({m.code(b.breakType), b.where.empty() ? "" : m.code(b.where), std::to_string(b.countA),
                        std::to_string(b.countB)});
    m.table({"Break", "Where", "A", "B"}, rows);
}

void writeDocument(const TraceDiff& diff, const std::string& producedBy, const Markup& m) {
    m.heading(1, "Trace diff");
    m.paragraph("A: " + m.code(diff.pathA) + ", B: " + m.code(diff.pathB) + ". Made by " + m.code(producedBy) + ".");
    if (!diff.unpaired.empty()) m.paragraph("Sessions without a partner: " + list(diff.unpaired, m) + ".");
    for (const SessionDiff& s : diff.sessions) {
        m.heading(2, s.labelA == s.labelB ? s.labelA : s.labelA + " vs " + s.labelB);
        m.paragraph("Compile ids only in B (added): " + list(s.compilesAdded, m) + ". Only in A (removed): " +
                    list(s.compilesRemoved, m) + ". Kernels: " + std::to_string(s.kernelsA) + " in A, " +
                    std::to_string(s.kernelsB) + " in B.");
        if (s.breaksFixed.empty() && s.breaksNew.empty() && s.breaksChanged.empty())
            m.paragraph("Graph breaks: the same in both.");
        writeBreakTable("Graph breaks fixed (only in A)", s.breaksFixed, m);
        writeBreakTable("New graph breaks (only in B)", s.breaksNew, m);
        writeBreakTable("Graph breaks logged a different number of times", s.breaksChanged, m);
        if (!s.phaseTotals.empty()) {
            m.heading(4, "Compile time per phase");
            std::vector<std::vector<std::string>> rows;
            for (const PhaseChange& p : s.phaseTotals)
                rows.push_back({m.code(p.phase), seconds(p.secondsA), seconds(p.secondsB),
                                fmt::format("{:+.3f} s", p.secondsB - p.secondsA)});
            m.table({"Phase", "A", "B", "B - A"}, rows);
        }
        m.heading(3, "Compiles in both that changed (" + std::to_string(s.compiles.size()) + ")");
        if (s.compiles.empty()) m.paragraph("None.");
        for (const CompileChange& c : s.compiles) {
            m.heading(4, "[" + c.compileId + "] " + c.function);
            std::vector<std::vector<std::string>> rows;
            if (c.statusA != c.statusB) rows.push_back({"status", c.statusA, c.statusB});
            if (c.cachesA != c.cachesB) rows.push_back({"caches", m.code(c.cachesA), m.code(c.cachesB)});
            if (!c.guardsAdded.empty() || !c.guardsRemoved.empty())
                rows.push_back({"guards", "removed: " + list(c.guardsRemoved, m), "added: " + list(c.guardsAdded, m)});
            for (const GraphChange& g : c.graphs)
                rows.push_back({m.code(g.kind) + " graph",
                                std::to_string(g.nodesA) + " nodes; removed ops: " + list(g.opsRemoved, m),
                                std::to_string(g.nodesB) + " nodes; added ops: " + list(g.opsAdded, m)});
            if (!c.kernelsAdded.empty() || !c.kernelsRemoved.empty())
                rows.push_back({"kernels (fusion)", "removed: " + list(c.kernelsRemoved, m),
                                "added: " + list(c.kernelsAdded, m)});
            for (const PhaseChange& p : c.phases)
                rows.push_back({m.code(p.phase), seconds(p.secondsA), seconds(p.secondsB)});
            m.table({"What", "A", "B"}, rows);
        }
    }
}

std::string escapeHtml(const std::string& raw) {
    std::string out;
    for (char c : raw) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string markdownCode(const std::string& raw) {
    std::string flat = raw;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    std::replace(flat.begin(), flat.end(), '|', '/');  // a pipe would split a table cell even inside a span
    size_t ticks = 0, run = 0;
    for (char c : flat) ticks = std::max(ticks, run = c == '`' ? run + 1 : 0);
    std::string fence(ticks + 1, '`');
    return fence + (flat.empty() ? " " : flat) + fence;
}

}  // namespace

void writeDiff(const TraceDiff& diff, ReportFormat format, const std::string& producedBy, std::ostream& out) {
    if (format == ReportFormat::Json) return writeJson(diff, producedBy, out);
    Markup m;
    if (format == ReportFormat::Markdown) {
        m.code = markdownCode;
        m.heading = [&out](int level, const std::string& text) { out << std::string(level, '#') << ' ' << text << "\n\n"; };
        m.paragraph = [&out](const std::string& text) { out << text << "\n\n"; };
        m.table = [&out](const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
            for (const std::string& h : header) out << "| " << h << ' ';
            out << "|\n";
            for (size_t i = 0; i < header.size(); ++i) out << "|---";
            out << "|\n";
            for (const auto& row : rows) {
                for (const std::string& cell : row) out << "| " << cell << ' ';
                out << "|\n";
            }
            out << '\n';
        };
        writeDocument(diff, producedBy, m);
        return;
    }
    m.code = [](const std::string& raw) { return "<code>" + escapeHtml(raw) + "</code>"; };
    m.heading = [&out](int level, const std::string& text) {
        out << "<h" << level << ">" << escapeHtml(text) << "</h" << level << ">\n";
    };
    m.paragraph = [&out](const std::string& text) { out << "<p>" << text << "</p>\n"; };
    m.table = [&out](const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
        out << "<table><tr>";
        for (const std::string& h : header) out << "<th>" << h << "</th>";
        out << "</tr>";
        for (const auto& row : rows) {
            out << "<tr>";
            for (const std::string& cell : row) out << "<td>" << cell << "</td>";
            out << "</tr>";
        }
        out << "</table>\n";
    };
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Trace diff</title><style>"
        << "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:.5em 0}"
        << "td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}code{background:#f4f4f4}"
        << "</style></head><body>\n";
    writeDocument(diff, producedBy, m);
    out << "</body></html>\n";
}

}  // namespace traces
