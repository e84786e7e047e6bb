// Path-level import and open (see import_path.h).
#include "importers/import_path.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "schema/schema.h"
#include "store/memory_sink.h"
#include "store/trace_writer.h"

namespace fs = std::filesystem;

namespace traces {

std::vector<std::string> listTraceLogs(const std::string& path) {
    if (!fs::exists(path)) throw std::runtime_error(path + ": no such file or directory");
    if (!fs::is_directory(path)) return {path};
    std::vector<std::string> named, other;
    for (const auto& entry : fs::directory_iterator(path)) {
        if (!entry.is_regular_file()) continue;
        std::string name = entry.path().filename().string();
        if (name.starts_with(".")) continue;
        if (name.starts_with("dedicated_log_torch_trace")) named.push_back(entry.path().string());
        else if (name.ends_with(".log") || name.ends_with(".txt")) other.push_back(entry.path().string());
    }
    std::vector<std::string>& chosen = named.empty() ? other : named;
    std::sort(chosen.begin(), chosen.end());
    if (chosen.empty()) throw std::runtime_error(path + ": directory holds no TORCH_TRACE logs (*.log)");
    return chosen;
}

std::vector<ImportResult> importPath(const std::string& path, const std::string& outDb,
                                     const PathProgressFn& progress) {
    // Nobody reads the file before the import ends: written exclusively, each page once (no WAL copy).
    TraceWriter writer(outDb, TraceWriter::Open::CreateNewExclusive);
    return importPath(path, writer, progress);
}

std::vector<ImportResult> importPath(const std::string& path, RowSink& sink, const PathProgressFn& progress) {
    std::vector<std::string> files = listTraceLogs(path);
    uint64_t total = 0;
    for (const std::string& f : files) total += fs::file_size(f);
    std::vector<ImportResult> results;
    uint64_t before = 0;
    for (const std::string& file : files) {
        ImportProgressFn perFile;
        if (progress) perFile = [&](uint64_t done, uint64_t) { progress(file, before + done, total); };
        results.push_back(importTorchTraceLog(file, sink, perFile));
        before += fs::file_size(file);
    }
    sink.commit();
    return results;
}

bool isTraceDatabase(const std::string& path) {
    return fs::is_regular_file(path) && looksLikeSqliteFile(path);
}

TraceData openAsTrace(const std::string& path, std::vector<ImportResult>* importResults,
                      const PathProgressFn& progress) {
    if (isTraceDatabase(path)) return loadTrace(path);
    MemorySink sink(MemorySink::Payloads::ModelOnly);
    std::vector<ImportResult> results = importPath(path, sink, progress);
    TraceData trace = loadTrace(sink.take());
    trace.path = path;
    if (importResults) *importResults = std::move(results);
    return trace;
}

}  // namespace traces
