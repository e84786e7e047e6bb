// Background loading and importing (see trace_loader.h).
#include "gui/trace_loader.h"

#include <filesystem>

#include "importers/import_path.h"
#include "store/memory_sink.h"

namespace app {
namespace {

namespace fs = std::filesystem;

// Import and load share one progress bar: importing is most of the work for a raw log.
constexpr float kImportShare = 0.7f;
constexpr float kAnalysisStart = 0.95f;

/// The analysis of a loaded trace, as the last step of a load.
LoadedTrace analysed(traces::TraceData data, std::string importNote, traces::LoadProgress& progress) {
    LoadedTrace loaded;
    loaded.importNote = std::move(importNote);
    auto shared = std::make_shared<const traces::TraceData>(std::move(data));
    progress.report(kAnalysisStart, "analysing");
    loaded.analysis = std::make_shared<const viz::TraceAnalysis>(shared);
    loaded.data = std::move(shared);
    progress.report(1.0f, "ready");
    return loaded;
}

std::string importNote(size_t files, int64_t malformed) {
    return "imported " + std::to_string(files) + " log file(s)" +
           (malformed > 0 ? ", " + std::to_string(malformed) + " malformed record(s)" : "");
}

LoadedTrace loadFollowed(traces::FollowedPath& follower, bool onlyIfChanged, traces::LoadProgress& progress) {
    progress.report(0, "importing");
    if (!follower.update() && onlyIfChanged) return {};
    traces::TraceData data = follower.load(&progress);
    int64_t malformed = 0;
    for (const traces::Session& session : data.sessions) malformed += session.malformedRecords;
    return analysed(std::move(data), importNote(follower.logCount(), malformed), progress);
}

LoadedTrace loadPath(const std::string& path, traces::LoadProgress& progress) {
    std::string note;
    // loadTrace reports 0..1 of its own work; squeeze it into what is left of the bar.
    auto loadProgress = std::make_shared<traces::LoadProgress>();
    std::future<traces::TraceData> future;
    float loadShare = 1.0f;
    if (traces::isTraceDatabase(path)) {
        future = traces::loadTraceAsync(path, loadProgress);
    } else {
        progress.report(0, "importing");
        traces::MemorySink sink(traces::MemorySink::Payloads::ModelOnly);
        auto results = traces::importPath(path, sink, [&](const std::string& file, uint64_t done, uint64_t total) {
            if (progress.cancelRequested()) throw traces::LoadCancelled();
            float fraction = total == 0 ? 0.0f : static_cast<float>(done) / static_cast<float>(total);
            progress.report(fraction * kImportShare, "importing " + fs::path(file).filename().string());
        });
        int64_t malformed = 0;
        for (const auto& result : results) malformed += result.malformedRecords;
        note = importNote(results.size(), malformed);
        loadShare = 1.0f - kImportShare;
        future = std::async(std::launch::async, [rows = sink.take(), loadProgress]() mutable {
            return traces::loadTrace(std::move(rows), loadProgress.get());
        });
    }
    float base = 1.0f - loadShare;
    while (future.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
        if (progress.cancelRequested()) loadProgress->requestCancel();
        progress.report(base + loadProgress->fraction() * loadShare * kAnalysisStart, "loading " + loadProgress->stage());
    }
    traces::TraceData data = future.get();
    data.path = path;
    return analysed(std::move(data), std::move(note), progress);
}

}  // namespace

TraceLoad::TraceLoad(std::string path)
    : path_(std::move(path)), progress_(std::make_shared<traces::LoadProgress>()) {
    future_ = std::async(std::launch::async, [path = path_, progress = progress_] { return loadPath(path, *progress); });
}

TraceLoad::TraceLoad(std::string path, std::shared_ptr<traces::FollowedPath> follower, bool onlyIfChanged)
    : path_(std::move(path)), progress_(std::make_shared<traces::LoadProgress>()) {
    future_ = std::async(std::launch::async, [follower = std::move(follower), onlyIfChanged, progress = progress_] {
        return loadFollowed(*follower, onlyIfChanged, *progress);
    });
}

TraceLoad::~TraceLoad() {
    if (future_.valid()) {
        progress_->requestCancel();
        future_.wait();
    }
}

bool TraceLoad::ready() const {
    return future_.valid() && future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

LoadedTrace TraceLoad::take() { return future_.get(); }

}  // namespace app
