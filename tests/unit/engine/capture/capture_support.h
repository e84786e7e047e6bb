// Helpers for capture-engine tests: run a script (or an example) with the engine installed, TORCH_LOGS-style
// logs captured, compile events recorded, and the returned values at hand.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "capture/capture_engine.h"
#include "fx/fx_printer.h"
#include "tensor/conversion.h"
#include "vm/interpreter.h"

namespace capturetest {

/// Records the compile events it receives (the contract of compile_events.h).
struct RecordingSink : eng::capture::CompileEventSink {
    std::vector<traces::Compile> started, finished;
    std::vector<traces::Stack> startStacks;
    std::vector<std::pair<traces::CompileKey, std::vector<traces::GuardFailure>>> recompiles;
    std::vector<std::pair<traces::CompileKey, traces::Graph>> graphs;
    std::vector<std::pair<traces::CompileKey, std::vector<traces::Guard>>> guards;
    std::vector<std::pair<traces::CompileKey, traces::GraphBreak>> breaks;
    std::vector<std::string> warnings;
    void compileStarted(const traces::Compile& c, const traces::Stack& stack) override {
        started.push_back(c);
        startStacks.push_back(stack);
    }
    void recompileReasons(const traces::CompileKey& k, const std::vector<traces::GuardFailure>& f) override { recompiles.emplace_back(k, f); }
    void graphCaptured(const traces::CompileKey& k, const traces::Graph& g) override { graphs.emplace_back(k, g); }
    void guardsInstalled(const traces::CompileKey& k, const std::vector<traces::Guard>& g) override { guards.emplace_back(k, g); }
    void graphBreak(const traces::CompileKey& k, const traces::GraphBreak& b) override { breaks.emplace_back(k, b); }
    std::vector<traces::OutputCode> code;  // what the backend generated, per compile (inductor tests)
    void outputCode(const traces::CompileKey&, const traces::OutputCode& c) override { code.push_back(c); }
    void warning(const traces::CompileKey&, const std::string& text) override { warnings.push_back(text); }
    void compileFinished(const traces::Compile& c) override { finished.push_back(c); }
};

struct CapturedRun {
    bool ok = false;
    std::string out;    // what print() wrote
    std::string logs;   // TORCH_LOGS=recompiles,graph_breaks lines
    std::string error;  // traceback when the script (or main) raised
    eng::vm::Value returned;
    RecordingSink events;
    int uniqueGraphs = 0;
    /// GraphModule.code of every graph compiled, in order (runs that pass an ExplainRecord keep theirs there).
    std::vector<std::string> graphCodes;
    /// torch._dynamo.utils.counters after the run: group -> key -> count.
    std::map<std::string, std::map<std::string, int64_t>> counters;
};

/// Runs `source` as `filename` with the capture engine installed; when `entry` is given, calls it with `args`.
/// The program imports its own modules from beside `filename`, then from `moduleSearchPath`.
inline CapturedRun runCaptured(const std::string& source, const std::string& filename = "x.py", const std::string& entry = "",
                               eng::vm::ValueList args = {}, eng::capture::ExplainRecord* explain = nullptr,
                               std::optional<eng::capture::LogSettings> logSettings = std::nullopt,
                               std::vector<std::filesystem::path> moduleSearchPath = {}) {
    CapturedRun run;
    std::ostringstream out, logs;
    eng::vm::Interpreter vm(out);
    vm.setModuleSearchPath(std::move(moduleSearchPath));
    eng::capture::CaptureEngine engine(vm);
    engine.install();
    engine.setEventSink(&run.events);
    eng::capture::LogSettings settings;
    settings.graphBreaks = settings.recompiles = true;
    engine.setLogSettings(logSettings.value_or(settings));
    engine.setLogStream(&logs);
    eng::capture::ExplainRecord everyGraph;
    if (explain) engine.explainNextCall(explain);
    else engine.setExplainRecord(&everyGraph);
    eng::vm::RunResult result = vm.runScript(filename, source);
    run.ok = result.ok;
    run.error = result.error;
    if (result.ok && !entry.empty()) {
        try {
            run.returned = vm.call(*vm.global(entry), std::move(args));
        } catch (...) {
            run.ok = false;
            run.error = vm.formatUncaught(std::current_exception());
        }
    }
    run.out = out.str();
    run.logs = logs.str();
    run.uniqueGraphs = engine.uniqueGraphs();
    for (const auto& graph : everyGraph.graphs) run.graphCodes.push_back(eng::fx::graphCode(*graph));
    engine.setExplainRecord(nullptr);
    const auto& counters = vm.getAttr(vm.modules().at("torch._dynamo.utils"), "counters").as<eng::vm::DictObject>();
    for (const auto& [group, values] : counters.entries())
        for (const auto& [key, count] : values.as<eng::vm::DictObject>().entries()) run.counters[group.str()][key.str()] = count.asInt();
    return run;
}

/// A tensor's elements as doubles, in order.
inline std::vector<double> tensorValues(const eng::vm::Value& v) {
    const eng::tensor::Tensor& t = v.tensor();
    std::vector<double> out;
    for (int64_t i = 0; i < t.numel(); ++i) out.push_back(eng::tensor::elementAt(t, i).toDouble());
    return out;
}

/// Graph breaks counted in torch._dynamo.utils.counters["graph_break"].
inline int64_t graphBreaks(const CapturedRun& run) {
    int64_t n = 0;
    auto it = run.counters.find("graph_break");
    if (it != run.counters.end())
        for (const auto& [reason, count] : it->second) n += count;
    return n;
}

/// The lines of `text` that contain `needle`.
inline std::vector<std::string> linesWith(const std::string& text, const std::string& needle) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.find(needle) != std::string::npos) out.push_back(line);
    return out;
}

}  // namespace capturetest
