// Helpers shared by the workbench views (see view_support.h).
#include "views/view_support.h"

#include <imgui.h>

namespace app {

const viz::SessionAnalysis* currentSession(const ViewContext& context) {
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    return analysis ? analysis->session(context.selection.sessionId) : nullptr;
}

void selectCompile(ViewContext& context, traces::RowId compileId) {
    Selection& selection = context.selection;
    selection.compileId = compileId;
    selection.graphId.reset();
    selection.outputCodeId.reset();
    selection.kernelId.reset();
    selection.graphBreakId.reset();
    selection.nodeName.clear();
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    const traces::Compile* compile = analysis ? analysis->compile(compileId) : nullptr;
    if (!compile) return;
    viz::CompileLinks links = viz::linksOfCompile(analysis->index(), *compile);
    if (const traces::Graph* graph = viz::primaryGraph(links)) selection.graphId = graph->id;
    if (!links.outputCode.empty()) selection.outputCodeId = links.outputCode.front()->id;
}

const traces::Compile* selectedHead(const ViewContext& context) {
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    if (!analysis || !context.selection.compileId) return nullptr;
    const traces::Compile* compile = analysis->compile(*context.selection.compileId);
    return compile ? analysis->index().occurrenceHead(*compile) : nullptr;
}

void drawEmptyState(const char* message) {
    ImVec2 available = ImGui::GetContentRegionAvail();
    ImVec2 size = ImGui::CalcTextSize(message);
    ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPosX() + (available.x - size.x) * 0.5f,
                               ImGui::GetCursorPosY() + available.y * 0.4f));
    ImGui::TextDisabled("%s", message);
}

}  // namespace app
