// `cwb trace [-o DIR] [--report FILE [--format md|html|json] | --follow] -- CMD ARGS...`: runs CMD with
// TORCH_TRACE=DIR, shows how far its logs have grown while it runs, imports them into DIR/trace.db when it ends (a
// run that crashed included), then writes the report or opens the workbench on it; with --follow the workbench
// opens at once and shows the logs as they grow.
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "commands/command_io.h"
#include "commands/commands.h"
#include "commands/progress_line.h"
#include "importers/import_path.h"
#include "report/report.h"

namespace cwb {
namespace {

namespace fs = std::filesystem;

struct TraceOptions {
    std::string dir;
    std::string report;
    std::string format = "html";
    bool follow = false;
    std::string view;              ///< passed on to `cwb open`
    std::string snapshotPrefix;    ///< passed on to `cwb open` (--snapshot-on-sigusr1)
    std::vector<std::string> command;
};

/// Replaces this process with `cwb open PATH [--follow] [the workbench options given to trace]`.
[[noreturn]] void execWorkbench(const TraceOptions& options, const std::string& path, bool follow) {
    std::string self = fs::read_symlink("/proc/self/exe").string();
    std::vector<std::string> args{"cwb", "open", path};
    if (follow) args.emplace_back("--follow");
    if (!options.view.empty()) args.insert(args.end(), {"--view", options.view});
    if (!options.snapshotPrefix.empty()) args.insert(args.end(), {"--snapshot-on-sigusr1", options.snapshotPrefix});
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(self.c_str(), argv.data());
    throw std::runtime_error("cannot open the workbench: " + std::string(std::strerror(errno)));
}

std::string defaultDir() {
    std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    return std::string("cwb-trace-") + stamp;
}

uint64_t logBytes(const std::string& dir) {
    uint64_t bytes = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file(ec) && entry.path().extension() == ".log") bytes += entry.file_size(ec);
    return bytes;
}

/// Runs the command with TORCH_TRACE set; returns its exit status (128 + signal when killed).
int runTraced(const TraceOptions& options, const std::string& dir) {
    pid_t child = fork();
    if (child < 0) throw std::runtime_error("cannot start the command: fork failed");
    if (child == 0) {
        setenv("TORCH_TRACE", dir.c_str(), 1);
        std::vector<char*> argv;
        for (const std::string& arg : options.command) argv.push_back(const_cast<char*>(arg.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        fmt::print(stderr, "cwb trace: cannot run {}: {}\n", options.command[0], std::strerror(errno));
        _exit(127);
    }
    int status = 0;
    uint64_t shown = 0;
    while (waitpid(child, &status, WNOHANG) == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        if (uint64_t bytes = logBytes(dir); bytes != shown && isatty(STDERR_FILENO)) {
            shown = bytes;
            fmt::print(stderr, "\rcwb trace: {:.1f} MB of TORCH_TRACE logs so far", static_cast<double>(bytes) / 1e6);
        }
    }
    if (shown) fmt::print(stderr, "\n");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// The workbench in follow mode on the logs' folder, as a process of its own beside the command.
pid_t startFollowingWorkbench(const TraceOptions& options, const std::string& dir) {
    pid_t child = fork();
    if (child < 0) throw std::runtime_error("cannot open the workbench: fork failed");
    if (child == 0) {
        try {
            execWorkbench(options, dir, true);
        } catch (const std::exception& e) {
            fmt::print(stderr, "cwb trace: {}\n", e.what());
        }
        _exit(127);
    }
    return child;
}

int runTrace(const TraceOptions& options) {
    keepImportMemoryFlat();
    std::string dir = options.dir.empty() ? defaultDir() : options.dir;
    fs::create_directories(dir);
    std::optional<traces::ReportFormat> format;
    if (!options.report.empty()) {
        format = traces::reportFormatFromString(options.format);
        if (!format) throw CLI::ValidationError("--format", "expected md, html, json or perfetto, got '" + options.format + "'");
    }
    if (options.follow && format) throw CLI::ValidationError("--follow", "opens the workbench; it cannot go with --report");
    std::optional<pid_t> workbench;
    if (options.follow) workbench = startFollowingWorkbench(options, dir);
    int exitCode = runTraced(options, dir);
    if (exitCode != 0) fmt::print(stderr, "cwb trace: {} exited with status {}\n", options.command[0], exitCode);
    if (logBytes(dir) == 0) {
        fmt::print(stderr, "cwb trace: no TORCH_TRACE log was written in {} (did the command compile anything?)\n", dir);
        return exitCode != 0 ? exitCode : 1;
    }
    std::string db = (fs::path(dir) / "trace.db").string();
    ProgressLine progress;
    traces::importPath(dir, db, [&](const std::string&, uint64_t done, uint64_t total) {
        progress.update("importing", done, total);
    });
    progress.finish();
    fmt::print(stderr, "cwb trace: imported the logs of {} into {}\n", dir, db);
    if (workbench) {
        fmt::print(stderr, "cwb trace: the workbench shows the final logs; close it to finish\n");
        int status = 0;
        waitpid(*workbench, &status, 0);
        return exitCode;
    }
    if (format) {
        traces::TraceData trace = traces::openAsTrace(db);
        std::string producedBy = "cwb " CWB_VERSION " trace";
        for (const std::string& arg : options.command) producedBy += " " + arg;
        writeCommandOutput(options.report, "report",
                           [&](std::ostream& out) { traces::writeReport(trace, *format, out, producedBy); });
        fmt::print(stderr, "cwb trace: wrote {} report to {}\n", options.format, options.report);
        return exitCode;
    }
    execWorkbench(options, db, false);
}

}  // namespace

void registerTraceCommand(CLI::App& app) {
    auto options = std::make_shared<TraceOptions>();
    CLI::App* cmd = app.add_subcommand(
        "trace", "Run a command with TORCH_TRACE set, import its logs and open them (or write a report)");
    cmd->add_option("-o,--dir", options->dir, "Folder for the logs and trace.db (default: cwb-trace-DATE-TIME)");
    cmd->add_option("--report", options->report, "Write the report to this file instead of opening the workbench");
    cmd->add_option("-f,--format", options->format, "Report format: md, html, json or perfetto")->capture_default_str();
    cmd->add_flag("--follow", options->follow,
                  "Open the workbench at once and update it live as the logs grow (for long jobs)");
    cmd->add_option("--view", options->view, "The workbench's first view (as `cwb open --view`)");
    cmd->add_option("--snapshot-on-sigusr1", options->snapshotPrefix,
                    "The workbench writes its frame and what it shows to PREFIX.png and PREFIX.txt on SIGUSR1");
    cmd->add_option("command", options->command, "The command to run, after --: cwb trace -- python train.py")
        ->required()
        ->expected(-1);
    cmd->callback([options] { throw CLI::RuntimeError(runTrace(*options)); });
}

}  // namespace cwb
