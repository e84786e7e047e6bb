// Explain reports of a loaded trace in Markdown, self-contained HTML, or JSON (schema: REPORT_JSON.md).
// Writers stream session by session and compile by compile, so memory stays bounded by the largest compile.
#pragma once

#include "model/trace_model.h"

#include <optional>
#include <ostream>
#include <string_view>

namespace traces {

/// Perfetto is the compile-time events as chrome trace event JSON (compile_timeline.h), not an explain report.
enum class ReportFormat { Markdown, Html, Json, Perfetto };

/// Accepts "md"/"markdown", "html"/"htm", "json" and "perfetto", in any letter case.
std::optional<ReportFormat> reportFormatFromString(std::string_view text);

/// Writes the whole report of `trace` to `out` in `format`.
void writeReport(const TraceData& trace, ReportFormat format, std::ostream& out);

void writeMarkdownReport(const TraceData& trace, std::ostream& out);
void writeHtmlReport(const TraceData& trace, std::ostream& out);
void writeJsonReport(const TraceData& trace, std::ostream& out);

}  // namespace traces
