// `cwb import PATH -o OUT.db`: TORCH_TRACE log(s) into a trace file, with a report of what was malformed.
#include <fmt/core.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>

#include "commands/commands.h"
#include "commands/progress_line.h"
#include "importers/import_path.h"

namespace cwb {
namespace {

struct ImportOptions {
    std::string input;
    std::string output;
    bool quiet = false;
};

int runImport(const ImportOptions& options) {
    keepImportMemoryFlat();
    ProgressLine progress;
    auto start = std::chrono::steady_clock::now();
    auto results = traces::importPath(options.input, options.output,
                                      [&](const std::string& file, uint64_t done, uint64_t total) {
                                          progress.update(std::filesystem::path(file).filename().string(), done,
                                                          total);
                                      });
    progress.finish();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    uint64_t bytes = 0;
    int64_t malformed = 0;
    for (const auto& r : results) {
        bytes += r.bytes;
        malformed += r.malformedRecords;
        if (options.quiet) continue;
        fmt::print("{}: {} records, {} malformed{}\n", r.sourceFile, r.records, r.malformedRecords,
                   r.malformedRecords ? ":" : "");
        for (const auto& issue : r.firstIssues) {
            fmt::print("  {}:{}:{}: {}: {}\n", r.sourceFile, issue.line, issue.column, issue.kind, issue.message);
        }
        if (r.malformedRecords > static_cast<int64_t>(r.firstIssues.size()))
            fmt::print("  ... {} more (all are listed in the trace's import_issues table)\n",
                       r.malformedRecords - static_cast<int64_t>(r.firstIssues.size()));
    }
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    fmt::print("imported {} file(s), {:.1f} MB in {:.2f} s ({:.0f} MB/s, peak memory {} MB), {} malformed "
               "record(s), into {}\n",
               results.size(), static_cast<double>(bytes) / 1e6, seconds,
               seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0.0, usage.ru_maxrss / 1024, malformed,
               options.output);
    return 0;
}

}  // namespace

void registerImportCommand(CLI::App& app) {
    auto options = std::make_shared<ImportOptions>();
    CLI::App* cmd = app.add_subcommand("import", "Import TORCH_TRACE log(s) into a trace file (.db)");
    cmd->add_option("PATH", options->input, "A TORCH_TRACE log file, or a directory of per-rank logs")->required();
    cmd->add_option("-o,--output", options->output, "The trace file to write (replaced if it exists)")->required();
    cmd->add_flag("-q,--quiet", options->quiet, "Print only the final line");
    cmd->callback([options] { throw CLI::RuntimeError(runImport(*options)); });
}

}  // namespace cwb
