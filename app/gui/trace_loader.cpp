// Background loading and importing (see trace_loader.h).
#include "gui/trace_loader.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "importers/import_path.h"

namespace app {
namespace {

namespace fs = std::filesystem;

// Import and load share one progress bar: importing is most of the work for a raw log.
constexpr float kImportShare = 0.7f;
constexpr float kAnalysisStart = 0.95f;

std::string nextTempDb() {
    static std::atomic<int> counter{0};
    return (fs::temp_directory_path() /
            ("cwb-open-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)) + ".db"))
        .string();
}

void removeDb(const std::string& path) {
    std::error_code error;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, error);
}

LoadedTrace loadPath(const std::string& path, const std::string& tempDb, traces::LoadProgress& progress) {
    LoadedTrace loaded;
    std::string dbPath = path;
    float loadShare = 1.0f;
    if (!traces::isTraceDatabase(path)) {
        progress.report(0, "importing");
        auto results = traces::importPath(path, tempDb, [&](const std::string& file, uint64_t done, uint64_t total) {
            if (progress.cancelRequested()) throw traces::LoadCancelled();
            float fraction = total == 0 ? 0.0f : static_cast<float>(done) / static_cast<float>(total);
            progress.report(fraction * kImportShare, "importing " + fs::path(file).filename().string());
        });
        int64_t malformed = 0;
        for (const auto& result : results) malformed += result.malformedRecords;
        loaded.importNote = "imported " + std::to_string(results.size()) + " log file(s)" +
                            (malformed > 0 ? ", " + std::to_string(malformed) + " malformed record(s)" : "");
        dbPath = tempDb;
        loadShare = 1.0f - kImportShare;
    }
    // loadTrace reports 0..1 of its own work; squeeze it into what is left of the bar.
    auto loadProgress = std::make_shared<traces::LoadProgress>();
    float base = 1.0f - loadShare;
    traces::TraceData data;
    {
        auto future = traces::loadTraceAsync(dbPath, loadProgress);
        while (future.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
            if (progress.cancelRequested()) loadProgress->requestCancel();
            progress.report(base + loadProgress->fraction() * loadShare * kAnalysisStart, "loading " + loadProgress->stage());
        }
        data = future.get();
    }
    data.path = path;
    auto shared = std::make_shared<const traces::TraceData>(std::move(data));
    progress.report(kAnalysisStart, "analysing");
    loaded.analysis = std::make_shared<const viz::TraceAnalysis>(shared);
    loaded.data = std::move(shared);
    progress.report(1.0f, "ready");
    return loaded;
}

}  // namespace

TraceLoad::TraceLoad(std::string path)
    : path_(std::move(path)), tempDb_(nextTempDb()), progress_(std::make_shared<traces::LoadProgress>()) {
    future_ = std::async(std::launch::async, [path = path_, tempDb = tempDb_, progress = progress_] {
        return loadPath(path, tempDb, *progress);
    });
}

TraceLoad::~TraceLoad() {
    if (future_.valid()) {
        progress_->requestCancel();
        future_.wait();
    }
    removeDb(tempDb_);
}

bool TraceLoad::ready() const {
    return future_.valid() && future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

LoadedTrace TraceLoad::take() { return future_.get(); }

}  // namespace app
