// Follow mode of the workbench (`cwb open --follow`, `cwb trace --follow`): what the logs gain is imported in the
// background, and the grown trace replaces the old one in place, each pane keeping what it selected.
#include <chrono>

#include "gui/workbench.h"
#include "importers/import_path.h"

namespace app {
namespace {

constexpr auto kFollowInterval = std::chrono::seconds(1);

}  // namespace

void Workbench::followLogs() {
    auto now = std::chrono::steady_clock::now();
    if (now < nextFollowCheck_) return;
    nextFollowCheck_ = now + kFollowInterval;
    for (size_t i = 0; i < slots_.size(); ++i) {
        TraceSlot& slot = slots_[i];
        if (slot.load || slot.refresh || !slot.follower) continue;
        slot.refresh = std::make_unique<TraceLoad>(traces_[i].path, slot.follower, true);
    }
}

void Workbench::takeRefresh(size_t index) {
    TraceSlot& slot = slots_[index];
    LoadedTrace loaded;
    try {
        loaded = slot.refresh->take();
    } catch (const std::exception& e) {
        // A log cut mid-record still imports; anything else (no log yet) waits for the logs to grow again.
        if (!traces_[index].data) slot.error = e.what();
        slot.refresh.reset();
        return;
    }
    slot.refresh.reset();
    if (!loaded.data) return;  // nothing new
    std::shared_ptr<const traces::TraceData> old = traces_[index].data;
    forgetTraces();
    traces_[index].data = loaded.data;
    traces_[index].analysis = loaded.analysis;
    slot.note = loaded.importNote;
    slot.error.clear();
    status_ = "Updated " + traces_[index].path + " (" + slot.note + ")";
    // Row ids follow input order, so a session's ids move when an earlier log of the folder grows: selections are
    // carried over by the session's source path and the compile's key.
    for (Pane& pane : panes_) {
        Selection& selection = pane.selection;
        if (selection.traceIndex != static_cast<int>(index) || !old) continue;
        std::string sourcePath, key;
        for (const traces::Session& s : old->sessions)
            if (s.id == selection.sessionId) sourcePath = s.sourcePath;
        for (const traces::Compile& c : old->compiles)
            if (selection.compileId && c.id == *selection.compileId) key = c.key.str();
        std::optional<traces::RowId> sessionId, compileId;
        for (const traces::Session& s : loaded.data->sessions)
            if (s.sourcePath == sourcePath) sessionId = s.id;
        for (const traces::Compile& c : loaded.data->compiles)
            if (sessionId && c.sessionId == *sessionId && !key.empty() && c.key.str() == key && !compileId) compileId = c.id;
        if (sessionId == selection.sessionId && compileId == selection.compileId) continue;  // graph, node, kernel too
        Selection carried;
        carried.traceIndex = selection.traceIndex;
        if (sessionId) carried.sessionId = *sessionId;
        carried.compileId = compileId;
        selection = carried;  // a session that went away is replaced by ensureSession
    }
}

void Workbench::forgetTraces() {
    for (Pane& pane : panes_) {
        for (auto& view : pane.views) view->forgetTrace();
        // Places name rows of the old trace, whose ids may mean other rows in the new one.
        pane.back.clear();
        pane.forward.clear();
        pane.here.reset();
    }
}

}  // namespace app
