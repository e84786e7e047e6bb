// Diff: two open traces compared (two runs, two versions, two ranks; what `cwb diff A B` writes): compile ids
// added and removed, graph breaks fixed and new, and what changed in each compile both have. A compile id
// selects that compile in trace B.
#include <imgui.h>

#include <string>

#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "report/trace_diff.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
    return text.empty() ? "none" : text;
}

class DiffView : public View {
public:
    ViewId id() const override { return ViewId::Diff; }
    const char* title() const override { return "Diff"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { diffedA_ = diffedB_ = nullptr; }

private:
    void drawSession(const traces::SessionDiff& s, ViewContext& context);
    void selectInB(ViewContext& context, const std::string& compileId);

    int a_ = 0, b_ = 1;
    const traces::TraceData* diffedA_ = nullptr;
    const traces::TraceData* diffedB_ = nullptr;
    traces::TraceDiff diff_;
};

void DiffView::draw(ViewContext& context) {
    int loaded = 0;
    for (const OpenTrace& t : context.traces) loaded += t.data ? 1 : 0;
    if (loaded < 2) {
        drawEmptyState("Open two traces to compare them (File > Open, or cwb open A B --view diff)");
        return;
    }
    int count = static_cast<int>(context.traces.size());
    a_ = std::clamp(a_, 0, count - 1);
    b_ = std::clamp(b_, 0, count - 1);
    auto picker = [&](const char* label, int& index) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
        if (ImGui::BeginCombo(label, context.traces[static_cast<size_t>(index)].path.c_str())) {
            for (int i = 0; i < count; ++i)
                if (ImGui::Selectable(context.traces[static_cast<size_t>(i)].path.c_str(), i == index)) index = i;
            ImGui::EndCombo();
        }
    };
    picker("A", a_);
    ImGui::SameLine();
    picker("B", b_);
    const traces::TraceData* a = context.traces[static_cast<size_t>(a_)].data.get();
    const traces::TraceData* b = context.traces[static_cast<size_t>(b_)].data.get();
    if (!a || !b) {
        ImGui::TextDisabled("still loading");
        return;
    }
    if (a != diffedA_ || b != diffedB_) {
        diff_ = traces::diffTraces(*a, *b);
        diffedA_ = a;
        diffedB_ = b;
    }
    if (context.uiDump) context.uiDump->add("diff", context.traces[static_cast<size_t>(a_)].path + " vs " +
                                                        context.traces[static_cast<size_t>(b_)].path);
    ImGui::BeginChild("diff body", ImVec2(0, 0), false);
    for (const std::string& unpaired : diff_.unpaired) ImGui::TextDisabled("No partner: %s", unpaired.c_str());
    for (const traces::SessionDiff& s : diff_.sessions) drawSession(s, context);
    ImGui::EndChild();
}

void DiffView::selectInB(ViewContext& context, const std::string& compileId) {
    const viz::TraceAnalysis* analysis = context.traces[static_cast<size_t>(b_)].analysis.get();
    auto key = traces::parseCompileKey(compileId.substr(0, compileId.find('#')));
    if (!analysis || !key) return;
    if (const traces::Compile* compile = analysis->findCompile(*key)) {
        context.selection.traceIndex = b_;
        context.selection.sessionId = compile->sessionId;
        selectCompile(context, compile->id);
        context.focusRequest = ViewId::Sites;
    }
}

void DiffView::drawSession(const traces::SessionDiff& s, ViewContext& context) {
    std::string title = s.labelA == s.labelB ? s.labelA : s.labelA + " vs " + s.labelB;
    if (!ImGui::CollapsingHeader(title.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
    std::string added = "Compile ids added (only in B): " + joined(s.compilesAdded);
    std::string removed = "Compile ids removed (only in A): " + joined(s.compilesRemoved);
    ImGui::TextColored(s.compilesAdded.empty() ? ImVec4(0.7f, 0.7f, 0.7f, 1) : theme::kWarningText, "%s", added.c_str());
    ImGui::TextUnformatted(removed.c_str());
    ImGui::Text("Kernels: %lld in A, %lld in B", static_cast<long long>(s.kernelsA), static_cast<long long>(s.kernelsB));
    if (context.uiDump) {
        context.uiDump->add("added", joined(s.compilesAdded));
        context.uiDump->add("removed", joined(s.compilesRemoved));
    }
    auto breaks = [&](const char* label, const std::vector<traces::BreakCountChange>& list) {
        for (const traces::BreakCountChange& b : list) {
            std::string text = std::string(label) + ": " + b.breakType + (b.where.empty() ? "" : " at " + b.where) +
                               " (" + std::to_string(b.countA) + " in A, " + std::to_string(b.countB) + " in B)";
            ImGui::BulletText("%s", text.c_str());
            if (context.uiDump) context.uiDump->add("break", text);
        }
    };
    breaks("fixed", s.breaksFixed);
    breaks("new", s.breaksNew);
    breaks("count changed", s.breaksChanged);

    ImGui::Text("Compiles in both that changed: %zu", s.compiles.size());
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable;
    if (!s.compiles.empty() && ImGui::BeginTable("changed", 4, flags)) {
        for (const char* name : {"Compile", "What", "A", "B"}) ImGui::TableSetupColumn(name);
        ImGui::TableHeadersRow();
        for (const traces::CompileChange& c : s.compiles) {
            auto row = [&](const std::string& what, const std::string& inA, const std::string& inB, bool first) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                if (first) {
                    std::string label = "[" + c.compileId + "] " + c.function;
                    if (widgets::linkButton(label.c_str())) selectInB(context, c.compileId);
                }
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(what.c_str());
                ImGui::TableNextColumn();
                ImGui::TextWrapped("%s", inA.c_str());
                ImGui::TableNextColumn();
                ImGui::TextWrapped("%s", inB.c_str());
                if (context.uiDump) context.uiDump->add("change", "[" + c.compileId + "] " + what + ": " + inA + " -> " + inB);
            };
            bool first = true;
            auto add = [&](const std::string& what, const std::string& inA, const std::string& inB) {
                row(what, inA, inB, first);
                first = false;
            };
            if (c.statusA != c.statusB) add("status", c.statusA, c.statusB);
            if (c.cachesA != c.cachesB) add("caches", c.cachesA, c.cachesB);
            if (!c.guardsAdded.empty() || !c.guardsRemoved.empty())
                add("guards", "removed: " + joined(c.guardsRemoved), "added: " + joined(c.guardsAdded));
            for (const traces::GraphChange& g : c.graphs)
                add(g.kind + " graph", std::to_string(g.nodesA) + " nodes; removed ops: " + joined(g.opsRemoved),
                    std::to_string(g.nodesB) + " nodes; added ops: " + joined(g.opsAdded));
            if (!c.kernelsAdded.empty() || !c.kernelsRemoved.empty())
                add("kernels", "removed: " + joined(c.kernelsRemoved), "added: " + joined(c.kernelsAdded));
            for (const traces::PhaseChange& p : c.phases)
                add(p.phase, widgets::formatSeconds(p.secondsA), widgets::formatSeconds(p.secondsB));
        }
        ImGui::EndTable();
    }
    if (!s.phaseTotals.empty() && ImGui::TreeNode("Compile time per phase")) {
        for (const traces::PhaseChange& p : s.phaseTotals)
            ImGui::BulletText("%s: %s in A, %s in B", p.phase.c_str(), widgets::formatSeconds(p.secondsA).c_str(),
                              widgets::formatSeconds(p.secondsB).c_str());
        ImGui::TreePop();
    }
}

}  // namespace

std::unique_ptr<View> makeDiffView() { return std::make_unique<DiffView>(); }

}  // namespace app
