// Factories of the workbench's views that live in this folder (graph and fusion come from graph_views.h), and
// the one list the workbench instantiates per pane.
#pragma once

#include <memory>
#include <vector>

#include "views/view.h"

namespace app {

std::unique_ptr<View> makeSitesView();
std::unique_ptr<View> makeRecompilesView();
std::unique_ptr<View> makeCodeView();
std::unique_ptr<View> makeBreaksView();
std::unique_ptr<View> makeMetricsView();
std::unique_ptr<View> makeTimelineView();
std::unique_ptr<View> makeShapesView();
std::unique_ptr<View> makeDiffView();

/// Every view this build has, in tab order (ViewId order).
std::vector<std::unique_ptr<View>> makeAllViews();

}  // namespace app
