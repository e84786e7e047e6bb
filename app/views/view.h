// The contract between the workbench and its views: what is open, what is selected, and how a view asks for
// another one. Views read the loaded traces (never SQL per frame) and talk to each other only through this.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/trace_model.h"

namespace viz {
class TraceAnalysis;
}

namespace app {

class UiDump;

/// One trace the user opened (a .db file, or a log/directory imported in the background).
struct OpenTrace {
    std::string path;                               ///< as the user gave it
    std::shared_ptr<const traces::TraceData> data;  ///< null while loading
    /// Site trees, recompile histories, break groups and metrics, built once on the loading thread.
    std::shared_ptr<const viz::TraceAnalysis> analysis;  ///< null while loading
};

/// What the user is looking at. Views write it on click and read it every frame.
struct Selection {
    int traceIndex = 0;                     ///< into ViewContext::traces
    traces::RowId sessionId = 0;
    std::optional<traces::RowId> compileId; ///< a Compile row (one attempt of a compile id)
    std::optional<traces::RowId> graphId;   ///< a Graph row
    std::string nodeName;                   ///< a node of that graph ("" for none)
    std::optional<traces::RowId> kernelId;  ///< a Kernel row
    std::optional<traces::RowId> outputCodeId;
    std::optional<traces::RowId> graphBreakId;
};

enum class ViewId { Sites, Recompiles, Graph, Fusion, Code, Breaks, Metrics, Timeline, Shapes, Diff, Provenance };

/// The view names used on the command line (`cwb open --view NAME`) and in the config file.
const char* viewName(ViewId id);
std::optional<ViewId> viewFromName(std::string_view name);
/// "sites, recompiles, ... or provenance", for help and error texts.
std::string viewNameList();

struct ViewContext {
    const std::vector<OpenTrace>& traces;
    Selection& selection;
    /// Set by a view to bring another view to the front next frame (e.g. a kernel link opens the code view).
    std::optional<ViewId> focusRequest;
    /// Set on the last frame of `cwb open --dump-ui`: views list what they show there, for tests and bug reports.
    UiDump* uiDump = nullptr;
    /// This pane takes the views' shortcut keys (links with a key, see widgets::linkButton): the focused pane.
    bool hasKeyboard = true;

    const traces::TraceData* currentTrace() const {
        if (selection.traceIndex < 0 || selection.traceIndex >= static_cast<int>(traces.size())) return nullptr;
        return traces[static_cast<size_t>(selection.traceIndex)].data.get();
    }
    const viz::TraceAnalysis* currentAnalysis() const {
        if (selection.traceIndex < 0 || selection.traceIndex >= static_cast<int>(traces.size())) return nullptr;
        return traces[static_cast<size_t>(selection.traceIndex)].analysis.get();
    }
};

/// A view owns its own state (filters, scroll, zoom) and draws itself inside the workbench's view area.
class View {
public:
    virtual ~View() = default;
    virtual ViewId id() const = 0;
    virtual const char* title() const = 0;
    /// Draws the view's content into the current ImGui window region.
    virtual void draw(ViewContext& context) = 0;
    /// A trace was replaced by a newer import of its logs (`--follow`) or closed: drop everything built from it,
    /// even while hidden, since a new trace may reuse the address of the old one.
    virtual void forgetTrace() {}
};

}  // namespace app
