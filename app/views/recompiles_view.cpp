// Recompile stepper: pick a function, step through its compiles [N/0], [N/1], ... with Prev/Next (or the arrow
// keys), read why each one happened in Dynamo's words, and see that entry's guards with the changes highlighted.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "graph/graph_diff.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

class RecompilesView : public View {
public:
    ViewId id() const override { return ViewId::Recompiles; }
    const char* title() const override { return "Recompiles"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { bound_ = nullptr; }

private:
    void bind(const viz::SessionAnalysis& session);
    void followSelection(ViewContext& context);
    void publishStep(ViewContext& context);
    void drawFunctions(const viz::SessionAnalysis& session, ViewContext& context);
    void drawFunctionRow(const std::vector<viz::FunctionHistory>& functions, size_t index, ViewContext& context);
    void drawStepBar(ViewContext& context);
    void drawReason(const viz::RecompileStep& step, ViewContext& context);
    void drawGuards(const viz::RecompileStep& step, ViewContext& context);
    void drawGraphChange(const viz::RecompileStep& step, ViewContext& context);

    const viz::SessionAnalysis* bound_ = nullptr;
    viz::RecompileStepper stepper_;
    std::optional<traces::RowId> followed_;
    bool onlyRecompiled_ = true;
    bool onlyChanges_ = false;
    traces::RowId diffedStep_ = 0;  ///< the step graphSummary_ is of
    std::string graphSummary_;      ///< what changed in its Dynamo graph since the previous step
};

void RecompilesView::bind(const viz::SessionAnalysis& session) {
    if (bound_ == &session) return;
    bound_ = &session;
    stepper_.reset(&session.functions);
    followed_.reset();
    // Start on the first function that recompiled: that is what this view is for.
    for (size_t f = 0; f < session.functions.size(); ++f) {
        if (session.functions[f].recompiles == 0) continue;
        stepper_.selectFunction(f);
        break;
    }
}

void RecompilesView::followSelection(ViewContext& context) {
    if (context.selection.compileId == followed_) return;
    followed_ = context.selection.compileId;
    if (followed_) stepper_.selectCompile(*followed_);
}

void RecompilesView::publishStep(ViewContext& context) {
    const viz::RecompileStep* step = stepper_.step();
    if (!step) return;
    selectCompile(context, step->compileId);
    if (step->dynamoGraphId) context.selection.graphId = step->dynamoGraphId;
    followed_ = step->compileId;
}

void RecompilesView::draw(ViewContext& context) {
    const viz::SessionAnalysis* session = currentSession(context);
    if (!session) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return;
    }
    bind(*session);
    followSelection(context);
    if (widgets::keyPressed(ImGuiKey_LeftArrow) && stepper_.previous()) publishStep(context);
    if (widgets::keyPressed(ImGuiKey_RightArrow) && stepper_.next()) publishStep(context);

    float listWidth = std::min(ImGui::GetFontSize() * 22.0f, ImGui::GetContentRegionAvail().x * 0.3f);
    ImGui::BeginChild("Functions", ImVec2(listWidth, 0), true);
    drawFunctions(*session, context);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("Recompile stepper", ImVec2(0, 0), true);
    const viz::FunctionHistory* function = stepper_.function();
    const viz::RecompileStep* step = stepper_.step();
    if (!function || !step) {
        ImGui::TextDisabled("This session compiled no function.");
    } else {
        ImGui::Text("%s", function->function.c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("%s:%d  frame %s  %zu compile(s)", function->file.c_str(), function->firstLine,
                            function->frameId ? std::to_string(*function->frameId).c_str() : "-", function->steps.size());
        if (function->recompileLimit && function->recompileLimit->hit) {
            ImGui::SameLine();
            ImGui::TextColored(theme::kErrorText, "%s (%lld) hit", function->recompileLimit->limitType.c_str(),
                               static_cast<long long>(function->recompileLimit->limit));
        }
        if (context.uiDump) context.uiDump->add("function", function->label());
        drawStepBar(context);
        drawReason(*step, context);
        drawGraphChange(*step, context);
        drawGuards(*step, context);
    }
    ImGui::EndChild();
}

void RecompilesView::drawFunctions(const viz::SessionAnalysis& session, ViewContext& context) {
    ImGui::Checkbox("Only functions that recompiled", &onlyRecompiled_);
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                            ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("functions", 3, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Function", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Frame", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("Compiles", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    // Large traces compile thousands of functions: list the kept ones, draw only the visible rows.
    std::vector<size_t> listed;
    for (size_t f = 0; f < session.functions.size(); ++f)
        if (!onlyRecompiled_ || session.functions[f].recompiles > 0 || stepper_.function() == &session.functions[f])
            listed.push_back(f);
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(listed.size()));
    while (clipper.Step())
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row)
            drawFunctionRow(session.functions, listed[static_cast<size_t>(row)], context);
    ImGui::EndTable();
}

void RecompilesView::drawFunctionRow(const std::vector<viz::FunctionHistory>& functions, size_t index,
                                     ViewContext& context) {
    const viz::FunctionHistory& history = functions[index];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(index));
    if (ImGui::Selectable(history.function.empty() ? "(unknown)" : history.function.c_str(), stepper_.function() == &history,
                          ImGuiSelectableFlags_SpanAllColumns)) {
        stepper_.selectFunction(index);
        publishStep(context);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", history.label().c_str());
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", history.frameId ? std::to_string(*history.frameId).c_str() : "-");
    ImGui::TableNextColumn();
    bool limited = history.recompileLimit && history.recompileLimit->hit;
    if (limited) ImGui::TextColored(theme::kErrorText, "%zu!", history.steps.size());
    else ImGui::Text("%zu", history.steps.size());
    if (ImGui::IsItemHovered() && limited) ImGui::SetTooltip("%s", history.recompileLimit->warning.c_str());
    if (context.uiDump) context.uiDump->add("function-row", history.function + " " + std::to_string(history.steps.size()));
}

void RecompilesView::drawStepBar(ViewContext& context) {
    const viz::FunctionHistory& function = *stepper_.function();
    ImGui::BeginDisabled(!stepper_.hasPrevious());
    if (ImGui::Button("< Prev") && stepper_.previous()) publishStep(context);
    ImGui::EndDisabled();
    ImGui::SameLine();
    for (size_t s = 0; s < function.steps.size(); ++s) {
        const viz::RecompileStep& step = function.steps[s];
        if (widgets::compileChip(step.display.c_str(), step.state, s == stepper_.stepIndex())) {
            stepper_.selectStep(s);
            publishStep(context);
        }
        if (ImGui::IsItemHovered() && !step.diffCounts.empty())
            ImGui::SetTooltip("%d changed, %d added, %d removed guard(s)", step.diffCounts.changed, step.diffCounts.added,
                              step.diffCounts.removed);
        ImGui::SameLine();
    }
    ImGui::BeginDisabled(!stepper_.hasNext());
    if (ImGui::Button("Next >") && stepper_.next()) publishStep(context);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled("step %zu of %zu  (Left/Right arrows)", stepper_.stepIndex() + 1, function.steps.size());
    if (context.uiDump)
        context.uiDump->add("step", stepper_.step()->display + " " + std::to_string(stepper_.stepIndex() + 1) + " of " +
                                        std::to_string(function.steps.size()));
}

void RecompilesView::drawReason(const viz::RecompileStep& step, ViewContext& context) {
    ImGui::Separator();
    ImGui::TextColored(step.reason.starts_with("Recompiling") ? theme::kWarningText : theme::kDimText,
                       step.reason.starts_with("Recompiling") ? "Why it recompiled (Dynamo's guard failures)"
                                                             : "First compile");
    ImGui::PushFont(theme::codeFont());
    // Dynamo's message can list many cache entries; cap its box so the guards stay in view.
    float lineHeight = ImGui::GetTextLineHeightWithSpacing();
    int lines = 1;
    for (char c : step.reason) lines += c == '\n';
    const ImGuiStyle& style = ImGui::GetStyle();
    float height = std::min(static_cast<float>(lines) * lineHeight + style.WindowPadding.y * 2 + style.ScrollbarSize,
                            lineHeight * 9);
    ImGui::BeginChild("reason", ImVec2(0, height), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(step.reason.c_str());
    ImGui::EndChild();
    if (!step.limitWarning.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, theme::kErrorText);
        ImGui::TextUnformatted(step.limitWarning.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::PopFont();
    if (context.uiDump) {
        context.uiDump->add("reason", step.reason.substr(0, step.reason.find('\n')));
        for (const traces::GuardFailureText& failure : step.guardFailures)
            context.uiDump->add("guard-failure", failure.failedCompile + ": " + failure.reason.substr(0, failure.reason.find('\n')));
        if (!step.limitWarning.empty()) context.uiDump->add("limit", step.limitWarning.substr(0, step.limitWarning.find('\n')));
    }
    if (step.dynamoGraphId) {
        if (widgets::linkButton("Open this compile's graph", 'G', context.hasKeyboard)) {
            context.selection.graphId = step.dynamoGraphId;
            context.focusRequest = ViewId::Graph;
        }
        ImGui::SameLine();
    }
    if (widgets::linkButton("Generated code", 'C', context.hasKeyboard)) context.focusRequest = ViewId::Code;
    ImGui::SameLine();
    if (widgets::linkButton("Compile site", 'S', context.hasKeyboard)) context.focusRequest = ViewId::Sites;
}

/// One line on what the recompile changed in the captured graph; the graph view marks and lists the nodes.
void RecompilesView::drawGraphChange(const viz::RecompileStep& step, ViewContext& context) {
    if (stepper_.stepIndex() == 0 || !step.dynamoGraphId) return;
    const viz::RecompileStep& previous = stepper_.function()->steps[stepper_.stepIndex() - 1];
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    const traces::Graph* before = previous.dynamoGraphId && analysis ? analysis->graph(*previous.dynamoGraphId) : nullptr;
    const traces::Graph* after = analysis ? analysis->graph(*step.dynamoGraphId) : nullptr;
    if (!before || !after) return;
    if (diffedStep_ != step.compileId) {
        diffedStep_ = step.compileId;
        graphSummary_ = viz::diffGraphModels(viz::buildGraphModel(*before), viz::buildGraphModel(*after)).summary();
    }
    ImGui::TextDisabled("Dynamo graph since %s:", previous.display.c_str());
    ImGui::SameLine();
    ImGui::TextColored(graphSummary_ == "no change" ? theme::kDimText : theme::kWarningText, "%s", graphSummary_.c_str());
    ImGui::SameLine();
    if (widgets::linkButton("Show the changes on the graph")) {
        context.selection.graphId = step.dynamoGraphId;
        context.selection.nodeName.clear();
        context.focusRequest = ViewId::Graph;
    }
    if (context.uiDump) context.uiDump->add("graph-diff", "since " + previous.display + ": " + graphSummary_);
}

const char* changeMark(viz::GuardChangeKind kind) {
    switch (kind) {
        case viz::GuardChangeKind::Unchanged: return "";
        case viz::GuardChangeKind::Added: return "+ added";
        case viz::GuardChangeKind::Removed: return "- removed";
        case viz::GuardChangeKind::Changed: return "~ changed";
    }
    return "";
}

ImU32 changeBackground(viz::GuardChangeKind kind) {
    switch (kind) {
        case viz::GuardChangeKind::Unchanged: return 0;
        case viz::GuardChangeKind::Added: return theme::kAddedRow;
        case viz::GuardChangeKind::Removed: return theme::kRemovedRow;
        case viz::GuardChangeKind::Changed: return theme::kChangedRow;
    }
    return 0;
}

/// A changed guard as "...size=[8, None], stride=[None, 1])   was: size=[8, 16], stride=[16, 1])" with the
/// differing characters in colour, so the change is visible without scrolling along a long guard.
void drawChangedText(const traces::Guard& before, const traces::Guard& after) {
    viz::TextDifference difference = viz::differingSpan(before.text, after.text);
    auto drawExcerpt = [&](const std::string& text, ImVec4 changedColor) {
        size_t changedEnd = text.size() - difference.suffix;
        std::string_view view(text);
        ImGui::TextUnformatted(difference.excerptStart > 0 ? "..." : "");
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(view.substr(difference.excerptStart, difference.prefix - difference.excerptStart).data(),
                               text.data() + difference.prefix);
        ImGui::SameLine(0, 0);
        ImGui::PushStyleColor(ImGuiCol_Text, changedColor);
        ImGui::TextUnformatted(text.data() + difference.prefix, text.data() + changedEnd);
        ImGui::PopStyleColor();
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(text.data() + changedEnd, text.data() + text.size());
    };
    drawExcerpt(after.text, theme::kWarningText);
    ImGui::SameLine();
    ImGui::TextDisabled("  was:");
    ImGui::SameLine();
    drawExcerpt(before.text, theme::kErrorText);
}

void RecompilesView::drawGuards(const viz::RecompileStep& step, ViewContext& context) {
    ImGui::Separator();
    ImGui::Text("Guards of %s (%zu)", step.display.c_str(), step.guards.size());
    if (!step.guardDiff.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(step.diffCounts.empty() ? theme::kDimText : theme::kWarningText,
                           "since the previous entry: %d changed, %d added, %d removed", step.diffCounts.changed,
                           step.diffCounts.added, step.diffCounts.removed);
        ImGui::SameLine();
        ImGui::Checkbox("Only changes", &onlyChanges_);
    }
    // The first entry has nothing to compare with: show its guards as they are.
    std::vector<viz::GuardChange> plain;
    const std::vector<viz::GuardChange>* changes = &step.guardDiff;
    if (step.guardDiff.empty()) {
        for (const traces::Guard* guard : step.guards) plain.push_back({viz::GuardChangeKind::Unchanged, nullptr, guard});
        changes = &plain;
    }
    std::vector<const viz::GuardChange*> rows;
    for (const viz::GuardChange& change : *changes)
        if (!onlyChanges_ || change.kind != viz::GuardChangeKind::Unchanged) rows.push_back(&change);

    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                            ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable;
    if (!ImGui::BeginTable("guards", 4, flags)) return;
    float charWidth = ImGui::CalcTextSize("M").x;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Change", ImGuiTableColumnFlags_WidthFixed, charWidth * 7);
    ImGui::TableSetupColumn("Kind", ImGuiTableColumnFlags_WidthFixed, charWidth * 16);
    ImGui::TableSetupColumn("Source", ImGuiTableColumnFlags_WidthFixed, charWidth * 7);
    // Guard texts run long (the global-state guard is a JSON object): a wide column, scrolled sideways.
    ImGui::TableSetupColumn("Guard (and what it was in the previous entry)", ImGuiTableColumnFlags_WidthFixed, charWidth * 160);
    ImGui::TableHeadersRow();
    ImGui::PushFont(theme::codeFont());
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(rows.size()));
    while (clipper.Step()) {
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            const viz::GuardChange& change = *rows[static_cast<size_t>(r)];
            const traces::Guard& guard = change.after ? *change.after : *change.before;
            ImGui::TableNextRow();
            if (ImU32 background = changeBackground(change.kind)) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, background);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(changeMark(change.kind));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(guard.kind.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(guard.source.c_str());
            ImGui::TableNextColumn();
            ImGui::Indent(static_cast<float>(guard.depth) * charWidth);
            if (change.kind == viz::GuardChangeKind::Changed) drawChangedText(*change.before, guard);
            else if (change.kind == viz::GuardChangeKind::Removed) ImGui::TextDisabled("%s", guard.text.c_str());
            else ImGui::TextUnformatted(guard.text.c_str());
            ImGui::Unindent(static_cast<float>(guard.depth) * charWidth);
            if (ImGui::IsItemHovered()) {
                std::string tip = guard.text + (guard.checks.empty() ? "" : "\n\n" + guard.checks);
                if (change.kind == viz::GuardChangeKind::Changed) tip += "\n\nPrevious entry:\n" + change.before->text;
                ImGui::SetTooltip("%s", tip.c_str());
            }
            if (context.uiDump && change.kind != viz::GuardChangeKind::Unchanged)
                context.uiDump->add("guard", std::string(viz::guardChangeName(change.kind)) + " " + guard.kind + " " + guard.text);
        }
    }
    ImGui::PopFont();
    ImGui::EndTable();
}

}  // namespace

std::unique_ptr<View> makeRecompilesView() { return std::make_unique<RecompilesView>(); }

}  // namespace app
