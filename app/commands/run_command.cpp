// `cwb run SCRIPT.py [--device cpu] [--outputs FILE.json] [--call NAME] [--trace FILE.db] [--stats FILE.json]`:
// runs a script in the engine's VM, recording its compiles when asked (run_recording.h).
// Module code runs as __main__; then main(device) (or --call NAME), when the script defines it, is called and
// the returned tensors are printed (and written). An uncaught exception prints a Python traceback and exits with status 1.
#include <fmt/core.h>

#include <fstream>
#include <iostream>

#include "commands/commands.h"
#include "capture/capture_engine.h"
#include "inductor/inductor_backend.h"
#include "aot/aot_backend.h"
#include "commands/run_recording.h"
#include "commands/script_entry.h"
#include "vm/outputs.h"

namespace cwb {
namespace {

struct RunOptions {
    ScriptEntry entry;
    std::string outputs;
    std::string trace;
    std::string stats;
};

int printOutputs(eng::vm::Interpreter& vm, const RunOptions& options, const eng::vm::Value& returned) {
    std::cout << eng::vm::outputsText(vm, returned);
    std::cout.flush();
    if (!options.outputs.empty()) {
        std::ofstream out(options.outputs, std::ios::binary);
        if (!out) throw std::runtime_error(options.outputs + ": cannot write");
        out << "{\"outputs\": " << eng::vm::outputsJson(vm, returned) << "}\n";
    }
    return 0;
}

int runScript(const RunOptions& options) {
    std::string text = readScript(options.entry.script);
    eng::vm::Interpreter vm(std::cout);
    // --trace / --stats: the recorders listen to the capture engine's compile events for the whole run; a
    // script that raises still gets its trace and stats, as PyTorch's counters would hold them then.
    RunRecording recording({options.entry.script, options.trace, options.stats});
    // torch.compile'd frames go through the capture engine (its events to the recorders, when any).
    eng::capture::CaptureEngine engine(vm);
    engine.install();
    eng::inductor::installInductorBackend();
    eng::aot::installAotAutograd();
    engine.setEventSink(recording.sink());
    EntryResult result = runModuleAndEntry(vm, options.entry, text);
    int status = result.exitCode == 0 && result.returned ? printOutputs(vm, options, *result.returned) : result.exitCode;
    recording.finish();
    return status;
}

}  // namespace

void registerRunCommand(CLI::App& app) {
    auto options = std::make_shared<RunOptions>();
    CLI::App* cmd = app.add_subcommand("run", "Run a Python-subset (PyTorch) script eagerly in the engine's VM");
    cmd->add_option("SCRIPT", options->entry.script, "The script (.py) to run")->required();
    cmd->add_option("--call", options->entry.call,
                    "After the module ran, call this function with the device (default: main, when defined)");
    cmd->add_option("--device", options->entry.device, "The device string passed to the called function")->default_val("cpu");
    cmd->add_option("--outputs", options->outputs, "Write the returned tensors as JSON (shape, dtype, stride, statistics, values)");
    cmd->add_option("--trace", options->trace,
                    "Record every compile into this trace file (.db), in the schema of imported TORCH_TRACE logs");
    cmd->add_option("--stats", options->stats,
                    "Write PyTorch's compile counters as JSON: unique_graphs, graph_breaks, recompiles, "
                    "graph_break_reasons");
    cmd->callback([options] { throw CLI::RuntimeError(runScript(*options)); });
}

}  // namespace cwb
