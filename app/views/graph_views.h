// The graph view (captured graphs, one tab each, laid out by Graphviz and drawn on a canvas) and the fusion
// diagram (kernels as clusters of the nodes they fused). The workbench registers both (see all_views.cpp).
#pragma once

#include <chrono>
#include <memory>

#include "views/view.h"

namespace app {

std::unique_ptr<View> makeGraphView();
std::unique_ptr<View> makeFusionView();
/// Pre-grad graph, post-grad graph and output code side by side, linked line to line by Inductor's provenance.
std::unique_ptr<View> makeProvenanceView();

/// True while a graph layout or export is queued or running on the Graphviz worker.
bool graphLayoutsPending();
/// For scripted screenshots: waits until the graphs the views asked for are laid out (or `timeout` passes), so
/// that the next frame shows them instead of "laying out...". True when nothing is pending any more.
bool waitForGraphLayouts(std::chrono::milliseconds timeout);

}  // namespace app
