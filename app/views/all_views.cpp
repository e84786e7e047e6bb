// The list of views a workbench pane shows, in ViewId order (the graph and fusion views from graph_views.h).
#include "views/graph_views.h"
#include "views/workbench_views.h"

namespace app {

std::vector<std::unique_ptr<View>> makeAllViews() {
    std::vector<std::unique_ptr<View>> views;
    views.push_back(makeSitesView());
    views.push_back(makeRecompilesView());
    views.push_back(makeGraphView());
    views.push_back(makeFusionView());
    views.push_back(makeCodeView());
    views.push_back(makeBreaksView());
    views.push_back(makeMetricsView());
    views.push_back(makeTimelineView());
    views.push_back(makeShapesView());
    views.push_back(makeDiffView());
    views.push_back(makeProvenanceView());
    return views;
}

}  // namespace app
