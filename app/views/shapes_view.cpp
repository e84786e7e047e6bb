// Shapes: every symbol ShapeEnv created in the session (create_symbol / create_unbacked_symbol) with the user
// code that created it; for the selected symbol, where it was specialised, the shape guards that use it, and
// the later guard failures that name its source.
#include <imgui.h>

#include <algorithm>
#include <memory>
#include <regex>
#include <string>

#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "report/compile_insights.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

struct SymbolRow {
    const traces::Compile* compile = nullptr;
    const traces::ShapeSymbol* symbol = nullptr;
};

std::string frameText(const traces::Stack& stack) {
    if (stack.empty()) return "(no user frame)";
    const traces::Frame& f = stack.back();
    return f.file + ":" + std::to_string(f.line) + " in " + f.function;
}

/// "x" from "L['x'].size()[0]": Dynamo's tensor guard failures name the tensor, not the source.
std::string tensorName(const std::string& source) {
    static const std::regex local(R"(^L\['([^']+)'\])");
    std::smatch m;
    return std::regex_search(source, m, local) ? m[1].str() : "";
}

bool mentionsSymbol(const std::string& expr, const std::string& symbol) {
    return std::regex_search(expr, std::regex("\\b" + symbol + "\\b"));
}

class ShapesView : public View {
public:
    ViewId id() const override { return ViewId::Shapes; }
    const char* title() const override { return "Shapes"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { builtFor_ = nullptr; }

private:
    void drawDetails(const SymbolRow& row, ViewContext& context);

    const traces::TraceData* builtFor_ = nullptr;
    std::unique_ptr<traces::InsightIndex> insights_;
    int selectedRow_ = -1;
    traces::RowId rowsForSession_ = 0;
};

void ShapesView::draw(ViewContext& context) {
    const traces::TraceData* trace = context.currentTrace();
    const viz::SessionAnalysis* session = currentSession(context);
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    if (!trace || !session || !analysis) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return;
    }
    if (builtFor_ != trace) {
        builtFor_ = trace;
        insights_ = std::make_unique<traces::InsightIndex>(*trace);
        selectedRow_ = -1;
    }
    if (rowsForSession_ != session->session->id) {
        rowsForSession_ = session->session->id;
        selectedRow_ = -1;
    }
    std::vector<SymbolRow> rows;
    for (const traces::Compile* compile : analysis->index().session(session->session->id).compiles)
        for (const traces::ShapeSymbol& symbol : insights_->compile(compile->id).symbols) rows.push_back({compile, &symbol});
    if (rows.empty()) {
        drawEmptyState("No symbolic shapes in this session: every size was static (no create_symbol records)");
        return;
    }
    ImGui::Text("%zu symbols created in this session", rows.size());
    if (context.uiDump) context.uiDump->add("symbols", std::to_string(rows.size()));
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                            ImGuiTableFlags_Resizable;
    // As tall as its rows (a few symbols leave the details room), at most 45% of the view.
    float rowsHeight = ImGui::GetFrameHeightWithSpacing() * static_cast<float>(rows.size() + 2);
    float tableHeight = std::min(rowsHeight, ImGui::GetContentRegionAvail().y * 0.45f);
    if (ImGui::BeginTable("symbols", 6, flags, ImVec2(0, tableHeight))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        for (const char* name : {"Compile", "Symbol", "Source", "Value", "Range", "Created by"})
            ImGui::TableSetupColumn(name);
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < rows.size(); ++i) {
            const SymbolRow& row = rows[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushID(static_cast<int>(i));
            if (ImGui::Selectable(row.compile->key.display().c_str(), selectedRow_ == static_cast<int>(i),
                                  ImGuiSelectableFlags_SpanAllColumns)) {
                selectedRow_ = static_cast<int>(i);
                selectCompile(context, row.compile->id);
            }
            ImGui::PopID();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.symbol->symbol.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.symbol->source.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.symbol->value.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.symbol->range.c_str());
            ImGui::TableNextColumn();
            // Site-packages paths fill the column before the file name: the cell names the file, the tooltip the path.
            std::string frame = frameText(row.symbol->userStack);
            size_t slash = frame.rfind('/', frame.find(':'));
            ImGui::TextUnformatted(slash == std::string::npos ? frame.c_str() : frame.c_str() + slash + 1);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", frame.c_str());
            if (context.uiDump)
                context.uiDump->add("symbol", row.compile->key.display() + " " + row.symbol->symbol + " = " +
                                                  row.symbol->source + " (" + row.symbol->value + ") from " + frame);
        }
        ImGui::EndTable();
    }
    if (selectedRow_ < 0 || selectedRow_ >= static_cast<int>(rows.size())) selectedRow_ = 0;
    ImGui::Separator();
    drawDetails(rows[static_cast<size_t>(selectedRow_)], context);
}

void ShapesView::drawDetails(const SymbolRow& row, ViewContext& context) {
    const traces::ShapeSymbol& symbol = *row.symbol;
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    ImGui::BeginChild("symbol details", ImVec2(0, 0), false);
    ImGui::Text("%s = %s, created in %s with value %s, range %s", symbol.symbol.c_str(), symbol.source.c_str(),
                row.compile->key.display().c_str(), symbol.value.c_str(), symbol.range.c_str());
    ImGui::TextDisabled("Created by (outermost first):");
    ImGui::PushFont(theme::codeFont());
    for (const traces::Frame& f : symbol.userStack)
        ImGui::BulletText("%s:%d in %s: %s", f.file.c_str(), f.line, f.function.c_str(), f.source.c_str());
    ImGui::PopFont();

    const traces::CompileInsights& facts = insights_->compile(row.compile->id);
    int specialized = 0;
    for (const traces::ShapeSpecialization& s : facts.specializations) {
        if (s.symbol != symbol.symbol) continue;
        if (specialized++ == 0) ImGui::TextColored(theme::kWarningText, "Specialised:");
        ImGui::BulletText("to %s (%s) at %s", s.value.c_str(), s.reason.c_str(), frameText(s.userStack).c_str());
    }
    int guards = 0;
    for (const traces::FastGuard& g : facts.guardsAddedFast) {
        if (!mentionsSymbol(g.expr, symbol.symbol)) continue;
        if (guards++ == 0) ImGui::Text("Shape guards that use it:");
        ImGui::BulletText("%s%s%s", g.expr.c_str(), g.userStack.empty() ? "" : "  from ",
                          g.userStack.empty() ? "" : frameText(g.userStack).c_str());
    }
    // A later call that broke a guard on this input: Dynamo names the source or the tensor in the failure.
    std::string tensor = tensorName(symbol.source);
    int failures = 0;
    for (const traces::Compile* compile : analysis->index().session(row.compile->sessionId).compiles) {
        if (compile->seq <= row.compile->seq) continue;
        for (const traces::GuardFailure* f : analysis->index().compile(compile->id).guardFailures) {
            bool names = (!symbol.source.empty() && f->reason.find(symbol.source) != std::string::npos) ||
                         (!tensor.empty() && f->reason.find("tensor '" + tensor + "'") != std::string::npos);
            if (!names) continue;
            if (failures++ == 0) ImGui::TextColored(theme::kWarningText, "Later guard failures on this input:");
            std::string text = compile->key.display() + " after " + f->failedCompile + ": " + f->reason;
            if (widgets::linkButton(text.c_str())) {
                selectCompile(context, compile->id);
                context.focusRequest = ViewId::Recompiles;
            }
            if (context.uiDump) context.uiDump->add("guard failure", text);
        }
    }
    if (specialized + guards + failures == 0) ImGui::TextDisabled("Never specialised, guarded on or failed later.");
    if (context.uiDump)
        context.uiDump->add("selected symbol", symbol.symbol + ": " + std::to_string(specialized) + " specializations, " +
                                                   std::to_string(guards) + " guards, " + std::to_string(failures) +
                                                   " later failures");
    ImGui::EndChild();
}

}  // namespace

std::unique_ptr<View> makeShapesView() { return std::make_unique<ShapesView>(); }

}  // namespace app
