// Builds each function's compile history from the indexed trace and the session summary (see
// recompile_stepper.h); Dynamo's texts come from traces::summarizeSession so the app and reports agree.
#include "core/recompile_stepper.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "report/trace_index.h"

namespace viz {
namespace {

using FunctionKey = std::tuple<std::optional<int>, std::optional<int>>;

bool refusedByLimit(const traces::Compile& head, const traces::RecompileLimitStatus& limit) {
    if (head.failType == "RecompileLimitExceeded" || head.failType == "FailOnRecompileLimitHit") return true;
    int frameCompile = head.key.frameCompileId.value_or(0);
    return !head.started && frameCompile > 0 && frameCompile >= limit.limit;
}

RecompileStep makeStep(const traces::TraceIndex& index, const traces::Compile& head) {
    RecompileStep step;
    step.compileId = head.id;
    step.display = head.key.display();
    step.state = compileStateOf(index, head);
    const auto& attempts = index.attempts(head);
    for (const traces::Compile* attempt : attempts) {
        step.attemptIds.push_back(attempt->id);
        const traces::CompileRows& rows = index.compile(attempt->id);
        if (!rows.guards.empty()) step.guards = rows.guards;  // the last attempt with guards made the entry
        for (const traces::Graph* graph : rows.graphs) {
            step.graphIds.push_back(graph->id);
            if (graph->kind == traces::GraphKind::Dynamo) step.dynamoGraphId = graph->id;
        }
    }
    return step;
}

void fillIdentity(const traces::TraceIndex& index, const traces::Compile& head, FunctionHistory& history) {
    if (!head.function.empty()) {
        history.function = head.function;
        history.file = head.file;
        history.firstLine = head.firstLine;
        return;
    }
    auto siteId = index.effectiveSite(head);
    if (const traces::CompileSite* site = siteId ? index.siteById(*siteId) : nullptr) {
        history.function = site->function;
        history.file = site->file;
        history.firstLine = site->line;
    }
}

}  // namespace

std::string FunctionHistory::label() const {
    std::string text = function.empty() ? std::string("(unknown function)") : function;
    if (!file.empty()) text += "  " + file + ":" + std::to_string(firstLine);
    return text;
}

std::vector<FunctionHistory> buildFunctionHistories(const traces::TraceIndex& index, const traces::SessionSummary& summary,
                                                    traces::RowId sessionId) {
    std::unordered_map<traces::RowId, const traces::RecompileEvent*> eventByCompile;
    std::map<FunctionKey, const traces::FunctionRecompiles*> recompilesByKey;
    for (const traces::FunctionRecompiles& function : summary.recompiledFunctions) {
        recompilesByKey[{function.autogradId, function.frameId}] = &function;
        for (const traces::RecompileEvent& event : function.recompiles) eventByCompile[event.compile.compileId] = &event;
    }

    std::vector<FunctionHistory> histories;
    std::map<FunctionKey, size_t> openHistory;
    for (const traces::Compile* compile : index.session(sessionId).compiles) {
        if (index.occurrenceHead(*compile) != compile) continue;
        FunctionKey key{compile->key.autogradId, compile->key.frameId};
        auto it = openHistory.find(key);
        // torch._dynamo.reset() restarts frame ids, so a new [N/0] is a different function than the old one.
        bool restartsIds = compile->key.frameCompileId.value_or(0) == 0;
        if (it == openHistory.end() || restartsIds) {
            FunctionHistory history;
            history.sessionId = sessionId;
            history.autogradId = compile->key.autogradId;
            history.frameId = compile->key.frameId;
            fillIdentity(index, *compile, history);
            auto summarized = recompilesByKey.find(key);
            if (summarized != recompilesByKey.end()) history.recompileLimit = summarized->second->recompileLimit;
            openHistory[key] = histories.size();
            histories.push_back(std::move(history));
            it = openHistory.find(key);
        }
        FunctionHistory& history = histories[it->second];
        if (history.function.empty()) fillIdentity(index, *compile, history);
        RecompileStep step = makeStep(index, *compile);
        auto event = eventByCompile.find(compile->id);
        if (event != eventByCompile.end()) {
            step.reason = event->second->message;
            step.guardFailures = event->second->guardFailures;
        } else if (history.steps.empty()) {
            step.reason = "First compile of " + history.function + ": no cache entry existed yet, so no guard failed.";
        } else {
            step.reason = traces::formatRecompileMessage(history.function, history.file, history.firstLine, {});
        }
        if (history.recompileLimit && history.recompileLimit->hit && refusedByLimit(*compile, *history.recompileLimit))
            step.limitWarning = history.recompileLimit->warning;
        if (!history.steps.empty()) {
            step.guardDiff = diffGuards(history.steps.back().guards, step.guards);
            step.diffCounts = countChanges(step.guardDiff);
        }
        history.steps.push_back(std::move(step));
    }
    for (FunctionHistory& history : histories) history.recompiles = static_cast<int>(history.steps.size()) - 1;
    return histories;
}

void RecompileStepper::reset(const std::vector<FunctionHistory>* histories) {
    histories_ = histories;
    function_ = 0;
    step_ = 0;
}

bool RecompileStepper::selectCompile(traces::RowId compileId) {
    if (!histories_) return false;
    for (size_t f = 0; f < histories_->size(); ++f) {
        const auto& steps = (*histories_)[f].steps;
        for (size_t s = 0; s < steps.size(); ++s) {
            const auto& ids = steps[s].attemptIds;
            if (steps[s].compileId != compileId && std::find(ids.begin(), ids.end(), compileId) == ids.end()) continue;
            function_ = f;
            step_ = s;
            return true;
        }
    }
    return false;
}

void RecompileStepper::selectFunction(size_t function) {
    if (!histories_ || function >= histories_->size()) return;
    function_ = function;
    step_ = 0;
}

void RecompileStepper::selectStep(size_t step) {
    const FunctionHistory* history = function();
    if (history && step < history->steps.size()) step_ = step;
}

bool RecompileStepper::next() {
    if (!hasNext()) return false;
    ++step_;
    return true;
}

bool RecompileStepper::previous() {
    if (!hasPrevious()) return false;
    --step_;
    return true;
}

bool RecompileStepper::hasNext() const {
    const FunctionHistory* history = function();
    return history && step_ + 1 < history->steps.size();
}

const FunctionHistory* RecompileStepper::function() const {
    if (!histories_ || function_ >= histories_->size()) return nullptr;
    return &(*histories_)[function_];
}

const RecompileStep* RecompileStepper::step() const {
    const FunctionHistory* history = function();
    if (!history || step_ >= history->steps.size()) return nullptr;
    return &history->steps[step_];
}

}  // namespace viz
