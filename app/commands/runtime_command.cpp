// `cwb runtime PATH [--profile FILE]... [--format md|json] [-o FILE]`: hit counts and time per compiled frame from a
// torch.profiler chrome trace, eager time between compiled regions, and breaks and recompiles ranked by cost; one
// join per session (per rank of a distributed run), each with its own profile.
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
    std::vector<std::string> profiles;
    std::string format = "md";
    std::string output;
};

/// The profile of a session beside the log (in the log's directory, or in the given directory or its parent):
/// `profile_rank<N>.json` for rank N, else `profile.json` for the first session.
std::string profileBeside(const std::string& input, const traces::Session& session, bool first) {
    namespace fs = std::filesystem;
    fs::path path(input);
    std::vector<std::string> names;
    if (session.rank) names.push_back("profile_rank" + std::to_string(*session.rank) + ".json");
    if (first) names.push_back("profile.json");
    for (const std::string& name : names)
        for (fs::path dir : {fs::is_directory(path) ? path : path.parent_path(),
                             (fs::is_directory(path) ? path : path.parent_path()).parent_path()})
            if (fs::exists(dir / name)) return (dir / name).string();
    return "";
}

int runRuntime(const RuntimeOptions& options) {
    keepImportMemoryFlat();
    auto format = traces::reportFormatFromString(options.format);
    if (!format || (*format != traces::ReportFormat::Markdown && *format != traces::ReportFormat::Json))
        throw CLI::ValidationError("--format", "expected md or json, got '" + options.format + "'");
    traces::TraceData trace = openTraceWithProgress(options.input);
    if (options.profiles.size() > std::max<size_t>(trace.sessions.size(), 1))
        throw CLI::ValidationError("--profile", fmt::format("{} profiles for {} session(s): give one per rank, in rank order",
                                                            options.profiles.size(), trace.sessions.size()));
    std::vector<traces::RuntimeJoin> joins;
    std::string profilesUsed;
    for (size_t i = 0; i < trace.sessions.size(); ++i) {
        const traces::Session& session = trace.sessions[i];
        std::string profile = i < options.profiles.size() ? options.profiles[i]
                              : options.profiles.empty() ? profileBeside(options.input, session, i == 0)
                                                         : "";
        if (!profile.empty()) profilesUsed += " --profile " + profile;
        joins.push_back(traces::joinRuntime(trace, profile, session.id));
    }
    std::string producedBy =
        fmt::format("cwb {} runtime {}{} --format {}", CWB_VERSION, options.input, profilesUsed, options.format);
    if (!writeCommandOutput(options.output, "runtime report",
                            [&](std::ostream& out) { traces::writeRuntimeJoins(joins, *format, producedBy, out); }))
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
    cmd->add_option("--profile", options->profiles,
                    "torch.profiler chrome trace, once per session in rank order (default: profile_rank<N>.json, or "
                    "profile.json for the first, beside the logs; without one, breaks and recompiles are ranked by "
                    "compile time)");
    cmd->add_option("-f,--format", options->format, "md or json")->capture_default_str();
    cmd->add_option("-o,--output", options->output, "Write to this file instead of standard output");
    cmd->callback([options] { throw CLI::RuntimeError(runRuntime(*options)); });
}

}  // namespace cwb
