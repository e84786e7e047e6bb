// What every workbench view needs besides its own state: the selected session's precomputed analysis, one way
// to select a compile (so all views agree on what follows from it), and the "nothing to show" placeholder text.
#pragma once

#include <optional>
#include <string>

#include "core/trace_analysis.h"
#include "views/view.h"

namespace app {

/// The analysis of the selected trace and session, or null while nothing is loaded.
const viz::SessionAnalysis* currentSession(const ViewContext& context);

/// Selects `compileId` and what goes with it: its primary graph and its first generated code. Node, kernel and
/// break selections are cleared, since they belonged to the previous compile.
void selectCompile(ViewContext& context, traces::RowId compileId);

/// The occurrence head of the selected compile (so "[0/0_1]" selects the same tree leaf as "[0/0]").
const traces::Compile* selectedHead(const ViewContext& context);

/// Greyed centred text for views with nothing to show yet.
void drawEmptyState(const char* message);

}  // namespace app
