// `cwb report PATH --format md|html|json|perfetto [-o FILE]`: an explain report of a trace file, log or directory
// (perfetto: its compile-time events as a chrome trace, for Perfetto or chrome://tracing).
#include <fmt/core.h>

#include <iostream>

#include "commands/command_io.h"
#include "commands/commands.h"
#include "importers/import_path.h"
#include "report/report.h"

namespace cwb {
namespace {

struct ReportOptions {
    std::string input;
    std::string format = "md";
    std::string output;
};

int runReport(const ReportOptions& options) {
    keepImportMemoryFlat();
    auto format = traces::reportFormatFromString(options.format);
    if (!format)
        throw CLI::ValidationError("--format", "expected md, html, json or perfetto, got '" + options.format + "'");
    traces::TraceData trace = openTraceWithProgress(options.input);
    std::string producedBy = fmt::format("cwb {} report {} --format {}", CWB_VERSION, options.input, options.format);
    if (!writeCommandOutput(options.output, "report",
                            [&](std::ostream& out) { traces::writeReport(trace, *format, out, producedBy); }))
        return 0;
    fmt::print(stderr, "wrote {} report of {} session(s) to {}\n", options.format, trace.sessions.size(),
               options.output);
    return 0;
}

}  // namespace

void registerReportCommand(CLI::App& app) {
    auto options = std::make_shared<ReportOptions>();
    CLI::App* cmd = app.add_subcommand("report", "Write an explain report of a trace (.db), log or directory");
    cmd->add_option("PATH", options->input, "A trace file, a TORCH_TRACE log or a directory of logs")->required();
    cmd->add_option("-f,--format", options->format,
                    "md, html, json, or perfetto (the compile-time events as chrome trace JSON)")
        ->capture_default_str();
    cmd->add_option("-o,--output", options->output, "Write to this file instead of standard output");
    cmd->callback([options] { throw CLI::RuntimeError(runReport(*options)); });
}

}  // namespace cwb
