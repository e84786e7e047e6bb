// `cwb report PATH --format md|html|json|perfetto [-o FILE]`: an explain report of a trace file, log or directory
// (perfetto: its compile-time events as a chrome trace, for Perfetto or chrome://tracing).
#include <fmt/core.h>

#include <fstream>
#include <iostream>

#include "commands/commands.h"
#include "commands/progress_line.h"
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
    ProgressLine progress;
    traces::TraceData trace = traces::openAsTrace(options.input, nullptr,
                                                  [&](const std::string&, uint64_t done, uint64_t total) {
                                                      progress.update("importing", done, total);
                                                  });
    progress.finish();
    if (options.output.empty() || options.output == "-") {
        traces::writeReport(trace, *format, std::cout);
        std::cout.flush();
        return 0;
    }
    std::ofstream out(options.output, std::ios::binary);
    if (!out) throw std::runtime_error(options.output + ": cannot write the report");
    traces::writeReport(trace, *format, out);
    out.close();
    if (!out) throw std::runtime_error(options.output + ": writing the report failed");
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
