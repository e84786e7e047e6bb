// `cwb diff A B [--format md|html|json] [-o FILE]`: what changed between two traces, logs or log directories.
#include <fmt/core.h>

#include <iostream>

#include "commands/command_io.h"
#include "commands/commands.h"
#include "importers/import_path.h"
#include "report/trace_diff.h"

namespace cwb {
namespace {

struct DiffOptions {
    std::string a, b;
    std::string format = "md";
    std::string output;
};

traces::TraceData openSide(const std::string& path) {
    traces::TraceData trace = openTraceWithProgress(path, "importing " + path);
    trace.path = path;  // a log imported into a temporary trace is named by what the user passed
    return trace;
}

int runDiff(const DiffOptions& options) {
    keepImportMemoryFlat();
    auto format = traces::reportFormatFromString(options.format);
    if (!format || *format == traces::ReportFormat::Perfetto)
        throw CLI::ValidationError("--format", "expected md, html or json, got '" + options.format + "'");
    traces::TraceData a = openSide(options.a);
    traces::TraceData b = openSide(options.b);
    traces::TraceDiff diff = traces::diffTraces(a, b);
    std::string producedBy = fmt::format("cwb {} diff {} {} --format {}", CWB_VERSION, options.a, options.b,
                                         options.format);
    if (!writeCommandOutput(options.output, "diff",
                            [&](std::ostream& out) { traces::writeDiff(diff, *format, producedBy, out); }))
        return 0;
    fmt::print(stderr, "wrote {} diff of {} session pair(s) to {}\n", options.format, diff.sessions.size(),
               options.output);
    return 0;
}

}  // namespace

void registerDiffCommand(CLI::App& app) {
    auto options = std::make_shared<DiffOptions>();
    CLI::App* cmd = app.add_subcommand("diff", "Compare two traces (.db), logs or directories: two runs, two ranks");
    cmd->add_option("A", options->a, "The trace, log or directory to compare from")->required();
    cmd->add_option("B", options->b, "The trace, log or directory to compare to")->required();
    cmd->add_option("-f,--format", options->format, "md, html or json")->capture_default_str();
    cmd->add_option("-o,--output", options->output, "Write to this file instead of standard output");
    cmd->callback([options] { throw CLI::RuntimeError(runDiff(*options)); });
}

}  // namespace cwb
