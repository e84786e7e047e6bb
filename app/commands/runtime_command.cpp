// `cwb runtime PATH [--profile FILE] [--format md|json] [-o FILE]`: hit counts and time per compiled frame from a
// torch.profiler chrome trace, eager time between compiled regions, and breaks and recompiles ranked by cost.
#include <fmt/core.h>

#include <filesystem>
#include <iostream>

#include "commands/command_io.h"
#include "commands/commands.h"
#include "importers/import_path.h"
#include "report/runtime_join.h"

namespace cwb {
namespace {

struct RuntimeOptions {
    std::string input;
    std::string profile;
    std::string format = "md";
    std::string output;
};

/// A profile.json beside the log (in the log's directory, or in the given directory or its parent).
std::string profileBeside(const std::string& input) {
    namespace fs = std::filesystem;
    fs::path path(input);
    for (fs::path dir : {fs::is_directory(path) ? path : path.parent_path(),
                         (fs::is_directory(path) ? path : path.parent_path()).parent_path()})
        if (fs::exists(dir / "profile.json")) return (dir / "profile.json").string();
    return "";
}

int runRuntime(const RuntimeOptions& options) {
    keepImportMemoryFlat();
    auto format = traces::reportFormatFromString(options.format);
    if (!format || (*format != traces::ReportFormat::Markdown && *format != traces::ReportFormat::Json))
        throw CLI::ValidationError("--format", "expected md or json, got '" + options.format + "'");
    std::string profile = options.profile.empty() ? profileBeside(options.input) : options.profile;
    traces::TraceData trace = openTraceWithProgress(options.input);
    traces::RuntimeJoin join = traces::joinRuntime(trace, profile);
    std::string producedBy = fmt::format("cwb {} runtime {}{} --format {}", CWB_VERSION, options.input,
                                         profile.empty() ? "" : " --profile " + profile, options.format);
    if (!writeCommandOutput(options.output, "runtime report",
                            [&](std::ostream& out) { traces::writeRuntimeJoin(join, *format, producedBy, out); }))
        return 0;
    fmt::print(stderr, "wrote {} runtime report to {}\n", options.format, options.output);
    return 0;
}

}  // namespace

void registerRuntimeCommand(CLI::App& app) {
    auto options = std::make_shared<RuntimeOptions>();
    CLI::App* cmd = app.add_subcommand(
        "runtime", "Join a torch.profiler trace with a compile trace: time per compiled frame, what to fix first");
    cmd->add_option("PATH", options->input, "A trace file, a TORCH_TRACE log or a directory of logs")->required();
    cmd->add_option("--profile", options->profile,
                    "torch.profiler chrome trace (default: profile.json beside the log, if any; without one, breaks "
                    "and recompiles are ranked by compile time)");
    cmd->add_option("-f,--format", options->format, "md or json")->capture_default_str();
    cmd->add_option("-o,--output", options->output, "Write to this file instead of standard output");
    cmd->callback([options] { throw CLI::RuntimeError(runRuntime(*options)); });
}

}  // namespace cwb
