// The workbench's window content: trace loading, the sidebar, panes of views side by side and the status
// bar (menus, dialogs and shortcuts are in workbench_menus.cpp, follow mode in workbench_follow.cpp).
#include "gui/workbench.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/selection_links.h"
#include "core/trace_analysis.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "importers/import_path.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

std::string displayName(const std::string& path) {
    std::filesystem::path p(path);
    std::string name = p.filename().string();
    if (name.empty()) name = p.parent_path().filename().string();
    return name.empty() ? path : name;
}

}  // namespace

Workbench::Workbench(UserConfig& config, bool persistent) : config_(config), persistent_(persistent) {
    ensurePanes();
    panes_[0].active = viewFromName(config_.leftView).value_or(ViewId::Sites);
    panes_[1].active = viewFromName(config_.rightView).value_or(ViewId::Recompiles);
    panes_[0].pendingFocus = panes_[0].active;
    panes_[1].pendingFocus = panes_[1].active;
}

Workbench::~Workbench() = default;

void Workbench::ensurePanes() {
    while (panes_.size() < 2) {
        Pane pane;
        pane.views = makeAllViews();
        panes_.push_back(std::move(pane));
    }
}

void Workbench::open(const std::string& path) { openInPane(path, focusedPane_); }

void Workbench::openInPane(const std::string& path, size_t pane) {
    OpenTrace trace;
    trace.path = path;
    traces_.push_back(std::move(trace));
    TraceSlot slot;
    if (follow_ && !traces::isTraceDatabase(path)) {
        slot.follower = std::make_shared<traces::FollowedPath>(path);
        slot.load = std::make_unique<TraceLoad>(path, slot.follower, false);
    } else {
        slot.load = std::make_unique<TraceLoad>(path);
    }
    slot.targetPane = std::min<size_t>(pane, panes_.size() - 1);
    slots_.push_back(std::move(slot));
    if (pane == 1) config_.splitView = true;
    if (persistent_) {
        config_.rememberRecent(path);
        markConfigDirty();
    }
    status_ = "Opening " + path;
}

bool Workbench::loading() const {
    return std::any_of(slots_.begin(), slots_.end(), [](const TraceSlot& slot) { return slot.load != nullptr; });
}

void Workbench::queueDrop(std::vector<std::string> paths, float x, float y) {
    drops_.push_back(Drop{std::move(paths), x, y});
}

std::vector<std::string> Workbench::loadErrors() const {
    std::vector<std::string> errors;
    for (const TraceSlot& slot : slots_)
        if (!slot.error.empty()) errors.push_back(slot.error);
    return errors;
}

void Workbench::pollLoads() {
    for (const Drop& drop : drops_) {
        size_t pane = focusedPane_;
        for (size_t p = 0; p < (config_.splitView ? paneRects_.size() : 1); ++p) {
            const auto& rect = paneRects_[p];
            if (drop.x >= rect[0] && drop.y >= rect[1] && drop.x < rect[2] && drop.y < rect[3]) pane = p;
        }
        for (const std::string& path : drop.paths) openInPane(path, pane);
    }
    drops_.clear();
    for (size_t i = 0; i < slots_.size(); ++i) {
        TraceSlot& slot = slots_[i];
        if (!slot.load || !slot.load->ready()) continue;
        try {
            LoadedTrace loaded = slot.load->take();
            traces_[i].data = loaded.data;
            traces_[i].analysis = loaded.analysis;
            slot.note = loaded.importNote;
            status_ = "Loaded " + traces_[i].path + (slot.note.empty() ? "" : " (" + slot.note + ")");
            if (slot.targetPane && !loaded.data->sessions.empty()) {
                Selection& selection = panes_[*slot.targetPane].selection;
                selection = Selection{};
                selection.traceIndex = static_cast<int>(i);
                selection.sessionId = loaded.data->sessions.front().id;
            }
        } catch (const traces::LoadCancelled&) {
            slot.error = traces_[i].path + ": cancelled";
        } catch (const std::exception& e) {
            slot.error = e.what();
            status_ = "Could not open " + traces_[i].path;
        }
        slot.load.reset();
    }
    if (!follow_) return;
    for (size_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].refresh && slots_[i].refresh->ready()) takeRefresh(i);
    followLogs();
}

void Workbench::closeTrace(size_t index) {
    forgetTraces();
    traces_.erase(traces_.begin() + static_cast<std::ptrdiff_t>(index));
    slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(index));
    for (Pane& pane : panes_) {
        int& shown = pane.selection.traceIndex;
        if (shown == static_cast<int>(index)) {
            pane.selection = Selection{};
            // Fall back to any loaded trace so the pane is not left empty.
            for (size_t t = 0; t < traces_.size(); ++t) {
                if (!traces_[t].data || traces_[t].data->sessions.empty()) continue;
                pane.selection.traceIndex = static_cast<int>(t);
                pane.selection.sessionId = traces_[t].data->sessions.front().id;
                break;
            }
        } else if (shown > static_cast<int>(index)) {
            --shown;
        }
    }
}

void Workbench::showView(ViewId view) {
    panes_[focusedPane_].pendingFocus = view;
    panes_[focusedPane_].active = view;
}

bool Workbench::selectCompile(const std::string& key, std::string& error) {
    auto parsed = traces::parseCompileKey(key);
    if (!parsed) {
        error = "--select: '" + key + "' is not a compile id (expected e.g. 0/1 or [0/1])";
        return false;
    }
    for (size_t t = 0; t < traces_.size(); ++t) {
        const viz::TraceAnalysis* analysis = traces_[t].analysis.get();
        const traces::Compile* compile = analysis ? analysis->findCompile(*parsed) : nullptr;
        if (!compile) continue;
        Pane& pane = panes_[focusedPane_];
        pane.selection = Selection{};
        pane.selection.traceIndex = static_cast<int>(t);
        pane.selection.sessionId = compile->sessionId;
        std::vector<OpenTrace> const& traces = traces_;
        ViewContext context{traces, pane.selection, std::nullopt, nullptr};
        app::selectCompile(context, compile->id);
        return true;
    }
    error = "--select: no compile " + parsed->display() + " in the opened trace(s)";
    return false;
}

bool Workbench::selectKernel(const std::string& name, std::string& error) {
    Pane& pane = panes_[focusedPane_];
    ViewContext context{traces_, pane.selection, std::nullopt, nullptr};
    const traces::TraceData* trace = context.currentTrace();
    for (size_t t = 0; t < traces_.size() && !trace; ++t) {
        // Nothing selected yet: look through the first trace that is loaded.
        if (!traces_[t].analysis) continue;
        pane.selection.traceIndex = static_cast<int>(t);
        trace = context.currentTrace();
    }
    if (!trace) {
        error = "--kernel: no trace is loaded";
        return false;
    }
    const std::optional<traces::RowId> compileId = pane.selection.compileId;
    // The selected compile's code may belong to a later attempt of it ([1/0_1] after a restart).
    std::vector<const traces::OutputCode*> compileCode;
    const traces::Compile* compile = compileId ? context.currentAnalysis()->compile(*compileId) : nullptr;
    if (compile) compileCode = viz::linksOfCompile(context.currentAnalysis()->index(), *compile).outputCode;
    for (const traces::OutputCode& code : trace->outputCode) {
        if (compileId && std::find(compileCode.begin(), compileCode.end(), &code) == compileCode.end()) continue;
        for (const traces::Kernel& kernel : code.kernels) {
            if (kernel.name != name) continue;
            if (!compileId && code.compileId) app::selectCompile(context, *code.compileId);
            pane.selection.outputCodeId = code.id;
            pane.selection.kernelId = kernel.id;
            return true;
        }
    }
    error = "--kernel: no kernel " + name + (compileId ? " in the selected compile's generated code" : " in the opened trace");
    return false;
}

bool Workbench::selectGraphKind(traces::GraphKind kind, std::string& error) {
    Pane& pane = panes_[focusedPane_];
    ViewContext context{traces_, pane.selection, std::nullopt, nullptr};
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    const traces::TraceData* trace = context.currentTrace();
    std::string kindName = traces::toString(kind);
    if (!analysis || !trace) {
        error = "--graph-tab: no trace is loaded";
        return false;
    }
    auto graphOfKind = [&](const traces::Compile& compile) -> const traces::Graph* {
        for (const traces::Graph* graph : viz::linksOfCompile(analysis->index(), compile).graphs)
            if (graph->kind == kind) return graph;
        return nullptr;
    };
    if (pane.selection.compileId) {
        const traces::Compile* compile = analysis->compile(*pane.selection.compileId);
        const traces::Graph* graph = compile ? graphOfKind(*compile) : nullptr;
        if (!graph) {
            std::string key = compile ? compile->key.display() : std::string("?");
            error = "--graph-tab: compile " + key + " has no graph of kind " + kindName;
            return false;
        }
        pane.selection.graphId = graph->id;
        pane.selection.nodeName.clear();
        return true;
    }
    for (const traces::Compile& compile : trace->compiles) {
        if (compile.sessionId != pane.selection.sessionId) continue;
        const traces::Graph* graph = graphOfKind(compile);
        if (!graph) continue;
        app::selectCompile(context, compile.id);
        pane.selection.graphId = graph->id;
        return true;
    }
    error = "--graph-tab: no compile in the opened trace has a graph of kind " + kindName;
    return false;
}

std::string Workbench::viewNames() const {
    std::string names;
    for (const auto& view : panes_[0].views) names += std::string(names.empty() ? "" : " ") + viewName(view->id());
    return names;
}

void Workbench::drawFrame(UiDump* dump) {
    pollLoads();
    if (exportJob_ && exportJob_->wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        status_ = exportJob_->get();
        exportJob_.reset();
    }
    handleShortcuts();
    if (dump) {
        // The fonts' rasterised sizes and ImGui's global stretch: HiDPI text is crisp when the sizes grow with the
        // scale and the stretch stays 1.
        const ImGuiIO& io = ImGui::GetIO();
        char scale[128];
        std::snprintf(scale, sizeof scale, "%g, UI font %g px, code font %g px, font stretch %g",
                      static_cast<double>(theme::uiScale()), static_cast<double>(ImGui::GetFont()->FontSize),
                      static_cast<double>(theme::codeFont()->FontSize),
                      static_cast<double>(io.FontGlobalScale * ImGui::GetFont()->Scale));
        dump->add("scale", scale);
    }

    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->WorkPos);
    ImGui::SetNextWindowSize(viewport->WorkSize);
    // No background: the frame is cleared to the panels' colour (see renderFrame). On llvmpipe every layer of
    // pixels costs several milliseconds a frame, so full-window layers are drawn once.
    ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                             ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
    ImGui::Begin("cwb", nullptr, flags);
    ImGui::PopStyleVar();
    // Nor do the panels inside it (the views' bordered lists and side panels): the cleared frame is their colour
    // already, and each filled one cost llvmpipe as many pixels again (GPT-2's fusion view: the kernel list).
    ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(0, 0, 0, 0));
    drawMenuBar(dump);

    float statusHeight = ImGui::GetFrameHeightWithSpacing();
    // The config keeps the width in logical pixels, so that it suits both a normal and a HiDPI screen.
    float scale = theme::uiScale();
    ImGui::BeginChild("Traces", ImVec2(config_.sidebarWidth * scale, -statusHeight), true);
    drawSidebar(dump);
    ImGui::EndChild();
    ImGui::SameLine(0, 0);
    // A thin splitter: drag to resize the sidebar.
    ImGui::InvisibleButton("##sidebar-splitter", ImVec2(6.0f * scale, ImGui::GetContentRegionAvail().y - statusHeight));
    if (ImGui::IsItemHovered() || ImGui::IsItemActive()) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
    if (ImGui::IsItemActive()) {
        config_.sidebarWidth = std::clamp(config_.sidebarWidth + ImGui::GetIO().MouseDelta.x / scale, 160.0f, 900.0f);
        if (persistent_) markConfigDirty();
    }
    ImGui::SameLine(0, 0);
    widgets::beginLayoutChild("##panes", ImVec2(0, -statusHeight));
    if (traces_.empty()) {
        drawWelcome();
    } else if (config_.splitView) {
        float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
        widgets::beginLayoutChild("##pane0", ImVec2(half, 0));
        drawPane(0, dump);
        ImGui::EndChild();
        ImGui::SameLine();
        widgets::beginLayoutChild("##pane1", ImVec2(0, 0));
        drawPane(1, dump);
        ImGui::EndChild();
    } else {
        // The same child name as in split mode keeps the pane's tab bar (and its open tab) when toggling.
        focusedPane_ = 0;
        widgets::beginLayoutChild("##pane0", ImVec2(0, 0));
        drawPane(0, dump);
        ImGui::EndChild();
    }
    ImGui::EndChild();
    drawStatusBar(dump);
    ImGui::PopStyleColor();
    ImGui::End();
    drawDialogs(dump);
    drawHelp();
    // Last, so that the dialogs and the help window drawn above are listed too.
    if (dump) dump->addVisibleWindows();
    config_.leftView = viewName(panes_[0].active);
    config_.rightView = viewName(panes_[1].active);
}

void Workbench::drawSidebar(UiDump* dump) {
    ImGui::TextDisabled("TRACES");
    for (size_t i = 0; i < traces_.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        TraceSlot& slot = slots_[i];
        const OpenTrace& trace = traces_[i];
        std::string name = displayName(trace.path);
        if (dump) {
            std::string state = slot.load ? "loading" : !slot.error.empty() ? "error: " + slot.error : "loaded";
            dump->add("trace", name + " " + state);
        }
        if (slot.load) {
            ImGui::TextUnformatted(name.c_str());
            ImGui::ProgressBar(slot.load->fraction(), ImVec2(-ImGui::GetFontSize() * 4, 0), slot.load->stage().c_str());
            ImGui::SameLine();
            if (ImGui::SmallButton("Cancel")) slot.load->cancel();
        } else if (!slot.error.empty()) {
            ImGui::TextColored(theme::kErrorText, "%s", name.c_str());
            ImGui::PushTextWrapPos();
            ImGui::TextDisabled("%s", slot.error.c_str());
            ImGui::PopTextWrapPos();
            if (ImGui::SmallButton("Remove")) {
                ImGui::PopID();
                closeTrace(i);
                return;
            }
        } else if (trace.analysis) {
            bool open = ImGui::TreeNodeEx("##trace", ImGuiTreeNodeFlags_DefaultOpen | ImGuiTreeNodeFlags_SpanAvailWidth, "%s",
                                          name.c_str());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s%s%s", trace.path.c_str(), slot.note.empty() ? "" : "\n",
                                                          slot.note.c_str());
            if (ImGui::BeginPopupContextItem()) {
                if (ImGui::MenuItem("Close")) {
                    ImGui::EndPopup();
                    if (open) ImGui::TreePop();
                    ImGui::PopID();
                    closeTrace(i);
                    return;
                }
                ImGui::EndPopup();
            }
            if (open) {
                for (const auto& session : trace.analysis->sessions()) {
                    Selection& selection = focusedPane().selection;
                    bool current = selection.traceIndex == static_cast<int>(i) && selection.sessionId == session->session->id;
                    ImGui::PushID(session.get());
                    if (ImGui::Selectable(session->label.c_str(), current)) {
                        selection = Selection{};
                        selection.traceIndex = static_cast<int>(i);
                        selection.sessionId = session->session->id;
                    }
                    if (ImGui::IsItemHovered()) {
                        // An engine run's version is cwb's own and its records are compile events, not log lines.
                        const bool engineRun = session->session->kind == traces::SessionKind::EngineRun;
                        ImGui::SetTooltip(engineRun ? "%s, %lld compile events, started %s" : "torch %s, %lld records, started %s",
                                          session->session->torchVersion.c_str(), static_cast<long long>(session->session->records),
                                          session->session->startedAt.c_str());
                    }
                    const traces::SummaryCounts& counts = session->metrics.counts;
                    char line[160];
                    std::snprintf(line, sizeof line, "  %lld compiles, %lld recompiles, %lld breaks, %lld failed",
                                  static_cast<long long>(counts.compiles), static_cast<long long>(counts.recompiles),
                                  static_cast<long long>(counts.graphBreaks), static_cast<long long>(counts.failedCompiles));
                    ImGui::TextDisabled("%s", line);
                    if (dump) dump->add("sidebar-session", session->label + ":" + line);
                    ImGui::PopID();
                }
                ImGui::TreePop();
            }
        }
        ImGui::PopID();
    }
    if (traces_.empty()) ImGui::TextDisabled("none yet");
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::TextDisabled("STATUS COLOURS");
    for (viz::CompileState state : viz::kCompileStates) {
        widgets::compileChip(viz::compileStateName(state), state, false);
    }
}

std::string Workbench::paneTraceName(const Pane& pane) const {
    const Selection& selection = pane.selection;
    if (selection.traceIndex < 0 || selection.traceIndex >= static_cast<int>(traces_.size())) return "(choose a trace)";
    const OpenTrace& trace = traces_[static_cast<size_t>(selection.traceIndex)];
    std::string name = displayName(trace.path);
    if (trace.analysis)
        if (const viz::SessionAnalysis* session = trace.analysis->session(selection.sessionId))
            if (trace.analysis->sessions().size() > 1) name += "  >  " + session->label;
    return name;
}

void Workbench::drawPaneHeader(Pane& pane) {
    drawHistoryButtons(pane);
    ImGui::SameLine();
    const Selection& selection = pane.selection;
    std::string current = paneTraceName(pane);
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 32));
    if (!ImGui::BeginCombo("##session", current.c_str())) return;
    for (size_t t = 0; t < traces_.size(); ++t) {
        if (!traces_[t].analysis) continue;
        for (const auto& session : traces_[t].analysis->sessions()) {
            std::string label = displayName(traces_[t].path) + "  >  " + session->label;
            bool chosen = selection.traceIndex == static_cast<int>(t) && selection.sessionId == session->session->id;
            ImGui::PushID(session.get());
            if (ImGui::Selectable(label.c_str(), chosen)) {
                pane.selection = Selection{};
                pane.selection.traceIndex = static_cast<int>(t);
                pane.selection.sessionId = session->session->id;
            }
            ImGui::PopID();
        }
    }
    ImGui::EndCombo();
}

void Workbench::ensureSession(Pane& pane) {
    const Selection& selection = pane.selection;
    if (selection.traceIndex >= 0 && selection.traceIndex < static_cast<int>(traces_.size())) {
        const OpenTrace& trace = traces_[static_cast<size_t>(selection.traceIndex)];
        // Still loading: keep waiting for it rather than jumping elsewhere.
        if (!trace.analysis && slots_[static_cast<size_t>(selection.traceIndex)].load) return;
        if (trace.analysis && trace.analysis->session(selection.sessionId)) return;
    }
    // Side by side is for comparing: prefer a session the other pane does not show (rank 1 next to rank 0).
    const Selection& other = panes_[&pane == &panes_[0] ? 1 : 0].selection;
    std::optional<std::pair<int, traces::RowId>> fallback;
    for (size_t t = 0; t < traces_.size(); ++t) {
        if (!traces_[t].analysis) continue;
        for (const auto& session : traces_[t].analysis->sessions()) {
            std::pair<int, traces::RowId> candidate{static_cast<int>(t), session->session->id};
            if (!fallback) fallback = candidate;
            if (candidate.first == other.traceIndex && candidate.second == other.sessionId) continue;
            fallback = candidate;
            t = traces_.size() - 1;  // found one: stop both loops
            break;
        }
    }
    if (!fallback) return;
    pane.selection = Selection{};
    pane.selection.traceIndex = fallback->first;
    pane.selection.sessionId = fallback->second;
}

void Workbench::drawPane(size_t paneIndex, UiDump* dump) {
    Pane& pane = panes_[paneIndex];
    ImVec2 topLeft = ImGui::GetWindowPos();
    ImVec2 size = ImGui::GetWindowSize();
    paneRects_[paneIndex] = {topLeft.x, topLeft.y, topLeft.x + size.x, topLeft.y + size.y};
    ensureSession(pane);
    if (ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && ImGui::IsMouseClicked(ImGuiMouseButton_Left))
        focusedPane_ = paneIndex;
    if (config_.splitView && focusedPane_ == paneIndex) {
        ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + ImGui::GetContentRegionAvail().x, at.y + 2.0f),
                                                  ImGui::GetColorU32(ImGuiCol_TabActive));
        ImGui::Dummy(ImVec2(0, 2.0f));
    }
    drawPaneHeader(pane);
    if (dump) dump->add("pane", std::to_string(paneIndex) + " " + paneTraceName(pane));
    if (ImGui::BeginTabBar("##views")) {
        for (const auto& view : pane.views) {
            ImGuiTabItemFlags flags = pane.pendingFocus == view->id() ? ImGuiTabItemFlags_SetSelected : 0;
            if (!ImGui::BeginTabItem(view->title(), nullptr, flags)) continue;
            pane.active = view->id();
            ViewContext context{traces_, pane.selection, std::nullopt, nullptr};
            context.uiDump = paneIndex == focusedPane_ ? dump : nullptr;
            context.hasKeyboard = paneIndex == focusedPane_;
            if (context.uiDump) context.uiDump->add("view", std::string(viewName(view->id())) + " (" + view->title() + ")");
            widgets::beginLayoutChild("##view", ImVec2(0, 0));
            view->draw(context);
            ImGui::EndChild();
            ImGui::EndTabItem();
            if (context.focusRequest) pane.pendingFocus = context.focusRequest;
        }
        ImGui::EndTabBar();
    }
    // A focus request is done once its tab shows (ImGui selects it a frame after the request), or at once when
    // this build has no such view.
    bool pendingExists = std::any_of(pane.views.begin(), pane.views.end(),
                                     [&](const auto& view) { return pane.pendingFocus == view->id(); });
    if (pane.pendingFocus && (!pendingExists || pane.pendingFocus == pane.active)) pane.pendingFocus.reset();
    recordPlace(pane);
    if (dump && paneIndex == focusedPane_) dumpHistory(pane, *dump);
}

void Workbench::drawWelcome() {
    ImGui::Dummy(ImVec2(0, ImGui::GetContentRegionAvail().y * 0.2f));
    ImGui::Indent(ImGui::GetContentRegionAvail().x * 0.25f);
    ImGui::Text("Compile Workbench");
    ImGui::TextDisabled("Read torch.compile traces: compile sites, recompiles, graphs, generated code, breaks.");
    ImGui::Spacing();
    if (ImGui::Button("Open a trace, log or folder...  (Ctrl+O)")) openDialog_.show(FileBrowser::Mode::Open, "Open trace", config_.lastDirectory);
    ImGui::TextDisabled("or drop files on this window, or run: cwb open PATH...");
    if (!config_.recentFiles.empty()) {
        ImGui::Spacing();
        ImGui::Text("Recent");
        for (const std::string& path : config_.recentFiles) {
            ImGui::PushID(path.c_str());
            std::string recent = path;
            if (widgets::linkButton(path.c_str())) {
                ImGui::PopID();
                open(recent);
                break;
            }
            ImGui::PopID();
        }
    }
    ImGui::Unindent();
}

void Workbench::drawStatusBar(UiDump* dump) {
    ImGui::Separator();
    int loadingCount = static_cast<int>(std::count_if(slots_.begin(), slots_.end(), [](const TraceSlot& s) { return s.load != nullptr; }));
    std::string status = loadingCount > 0 ? "Loading " + std::to_string(loadingCount) + " trace(s)..."
                                          : status_.empty() ? "Ready" : status_;
    ImGui::TextDisabled("%s", status.c_str());
    if (dump) dump->add("status", status);
    ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::GetFontSize() * 16);
    ImGui::TextDisabled("F1: shortcuts   Ctrl+O: open");
}

}  // namespace app
