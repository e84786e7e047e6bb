// One laid-out graph as the graph and fusion views show it: model, fusion map, folding, the layout request to
// the shared Graphviz worker, the canvas, search, and exports (DOT here, SVG/PNG through the worker).
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "draw/graph_canvas.h"
#include "draw/graph_search_bar.h"
#include "graph/display_graph.h"
#include "graph/graph_diff.h"
#include "graph/fusion_map.h"
#include "graph/graph_fold.h"
#include "graph/graph_model.h"
#include "layout/layout_worker.h"
#include "model/trace_model.h"

namespace app {

/// The process's one Graphviz thread (Graphviz keeps global state, so every view shares it).
viz::LayoutWorker& layoutWorker();

struct ViewContext;
/// The selected compile the graph and fusion views draw (before any is selected, the trace's first compile
/// with a graph), or null after drawing why there is none (no trace, or no graph: `selectHint` says what to do).
const traces::Compile* selectedCompileOrHint(ViewContext& context, const char* selectHint);

class UiDump;

class GraphPane {
public:
    /// `codes`: the output code the graph's kernels are looked up in. Kernels mode draws each kernel as a
    /// cluster of its nodes (the fusion diagram); otherwise big graphs fold and expanded folds are clusters.
    /// `donors`: module paths from the compile's other graphs (see viz::ModuleDonors), null for none;
    /// `kernelCalls`: the compile's provenance records (see viz::KernelCallNodes).
    GraphPane(const traces::Graph& graph, const std::vector<const traces::OutputCode*>& codes, viz::ClusterMode mode,
              const viz::ModuleDonors* donors = nullptr, const std::vector<viz::KernelCallNodes>& kernelCalls = {});

    const traces::Graph& graph() const { return *graph_; }
    const viz::GraphModel& model() const { return model_; }
    const viz::FusionMap& fusion() const { return fusion_; }
    const viz::DisplayGraph& display() const { return display_; }
    viz::GraphCanvas& canvas() { return canvas_; }

    /// "Dynamo", "AOT forward", "post-grad (backward)", ...
    std::string title() const;

    /// The toolbar: fit, fold, search, export and the status line. Returns the model node a search jumped to
    /// (now selected and shown), else -1.
    int drawToolbar(UiDump* dump);
    /// The canvas, or a progress line while the worker lays the graph out. Returns the canvas's events with
    /// node and cluster indices of the display graph.
    viz::CanvasEvents drawCanvas(ImVec2 size, UiDump* dump);

    /// Asks the worker for this pane's layout unless it has it or asked already (the shown tab asks first; the
    /// view then asks for the other tabs' so that switching to them is instant).
    void requestLayout();
    bool laidOut() const { return shownLayout_ != nullptr; }

    /// Shows a model node: expands its folded group if needed and centres it once the layout is there.
    void focusNode(int modelNode);
    void selectNode(int modelNode);
    void selectKernel(int kernel);
    /// Toggles a folded group (double click on it, or the side panel's button).
    void toggleGroup(int group);
    bool folded() const { return folding_.has_value(); }

    /// What the user made of the pane (groups opened, where they look): kept across a reload of the same graph.
    struct State {
        bool folded = false;
        std::vector<bool> expanded;
        viz::CanvasView view;
    };
    State state() const { return {folding_.has_value(), expanded_, canvas_.view()}; }
    /// Opens the same groups and looks at the same place; the next layout keeps that view rather than fitting.
    void restoreState(const State& state);

    /// Compares this graph with the same graph of the function's previous compile (`since`: "[0/0]"): the
    /// toolbar says what changed and the canvas marks added and changed nodes until the user turns it off.
    void setComparison(const traces::Graph& previous, std::string since);
    /// The diff while it is shown, else null.
    const viz::GraphDiff* shownDiff() const { return comparison_ && showChanges_ ? &comparison_->diff : nullptr; }
    const viz::GraphModel* previousModel() const { return comparison_ ? &comparison_->before : nullptr; }
    const std::string& comparedWith() const { return comparison_->since; }
    const viz::Folding* folding() const { return folding_ ? &*folding_ : nullptr; }

private:
    /// Folds by module, opened to the overview, or shows every node.
    void setFolded(bool folded);
    void rebuildDisplay();
    void pollLayout();
    void applyMarks();
    void updateSearch();
    void drawExportPopup(UiDump* dump);
    void startExport(const std::string& format);
    void pollExport();

    /// When the pane was made (the user opened the graph; first member, so that building the model counts), and
    /// how long until its first layout was drawn.
    std::chrono::steady_clock::time_point openedAt_ = std::chrono::steady_clock::now();
    double firstShownSeconds_ = -1;
    const traces::Graph* graph_;  ///< owned by the loaded trace; views drop their panes when the trace changes
    viz::GraphModel model_;
    viz::FusionMap fusion_;
    viz::ClusterMode mode_;
    std::optional<viz::Folding> folding_;
    std::vector<bool> expanded_;
    viz::DisplayGraph display_;
    std::shared_ptr<const viz::LayoutGraph> layoutGraph_;
    uint64_t layoutKey_ = 0;
    bool requested_ = false;  ///< layoutGraph_ went to the worker
    bool bumped_ = false;     ///< re-submitted once while shown, to move it to the front of the queue
    std::shared_ptr<const viz::GraphLayout> shownLayout_;

    struct Comparison {
        viz::GraphModel before;
        viz::GraphDiff diff;
        std::string since;
    };
    std::optional<Comparison> comparison_;
    bool showChanges_ = true;

    viz::GraphCanvas canvas_;
    viz::GraphSearchBar search_;
    std::vector<int> matches_;  ///< display nodes
    std::vector<int> matchedModelNodes_;  ///< parallel to matches_: the first model node matched in each
    int selectedModelNode_ = -1;
    int selectedKernel_ = -1;
    int pendingFocus_ = -1;     ///< model node to centre once laid out

    std::string exportPath_;
    std::string exportMessage_;
    bool exportFailed_ = false;
    std::optional<std::future<viz::RenderResult>> exportJob_;
    std::string exportJobPath_;
};

}  // namespace app
