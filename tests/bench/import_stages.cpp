// Benchmark (not a test): where `cwb import` spends its time, stage by stage, on one log. Usage:
// build/tests/import_stages_bench LOG [OUT.db]: reading records only, importing into a sink that drops rows
// (parsing without storing), and importing into a trace file (OUT.db, default a temporary file).
#include <fmt/core.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <functional>

#include "importers/torch_trace/log_records.h"
#include "importers/torch_trace/torch_trace_importer.h"
#include "store/trace_writer.h"

namespace {

/// Counts rows and drops them: the importer's own cost without any storage.
class DroppingSink : public traces::RowSink {
public:
    traces::RowId addSession(const traces::Session&) override { return ++next_; }
    void updateSession(const traces::Session&) override {}
    void addImportIssue(const traces::ImportIssue&) override {}
    void addInternedString(traces::RowId, int64_t, std::string_view) override {}
    traces::RowId addCompileSite(const traces::CompileSite&) override { return ++next_; }
    traces::RowId addCompile(const traces::Compile&) override { return ++next_; }
    using RowSink::updateCompile;
    void updateCompile(const traces::Compile&) override {}
    using RowSink::addGraph;
    traces::RowId addGraph(const traces::Graph&) override { return ++next_; }
    void addGuards(traces::RowId, const std::vector<traces::Guard>&) override {}
    void addGuardFailures(traces::RowId, const std::vector<traces::GuardFailure>&) override {}
    traces::RowId addGraphBreak(const traces::GraphBreak&) override { return ++next_; }
    using RowSink::addOutputCode;
    traces::RowId addOutputCode(const traces::OutputCode&) override { return ++next_; }
    using RowSink::addArtifact;
    traces::RowId addArtifact(const traces::Artifact&, std::string_view) override { return ++next_; }
    traces::RowId addSpan(const traces::Span&) override { return ++next_; }
    traces::RowId addRecordWithoutCompileId(const traces::RecordWithoutCompileId&) override { return ++next_; }
    void commit() override {}

private:
    traces::RowId next_ = 0;
};

double cpuSeconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void stage(const char* name, double megabytes, const std::function<void()>& run) {
    auto start = std::chrono::steady_clock::now();
    double cpuStart = cpuSeconds();
    run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu = cpuSeconds() - cpuStart;
    fmt::print("{:<28} wall {:6.2f} s {:6.0f} MB/s   cpu {:6.2f} s {:6.0f} MB per cpu-s\n", name, wall,
               megabytes / wall, cpu, megabytes / cpu);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        fmt::print(stderr, "usage: {} LOG [OUT.db]\n", argv[0]);
        return 2;
    }
    std::string log = argv[1];
    std::string out = argc > 2 ? argv[2]
                               : (std::filesystem::temp_directory_path() / "cwb-import-stages.db").string();
    double megabytes = static_cast<double>(std::filesystem::file_size(log)) / 1e6;
    fmt::print("{}: {:.0f} MB\n", log, megabytes);
    stage("read records", megabytes, [&] {
        traces::LogRecordReader reader(log, [](traces::LogProblem) {});
        traces::LogRecord record;
        while (reader.next(record)) {
        }
    });
    stage("parse (rows dropped)", megabytes, [&] {
        DroppingSink sink;
        traces::importTorchTraceLog(log, sink);
    });
    stage("import into a trace file", megabytes, [&] {
        traces::TraceWriter writer(out, traces::TraceWriter::Open::CreateNewExclusive);  // as cwb import
        traces::importTorchTraceLog(log, writer);
        writer.commit();
    });
    if (argc <= 2) {
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(out + suffix, ec);
    }
    return 0;
}
