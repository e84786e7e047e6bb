// `cwb explain SCRIPT.py [--device cpu] [--call NAME]`: torch._dynamo.explain for a script. Runs the module, then
// main(device) with the capture engine, and prints what the first compiled call compiled, as explain() prints it.
#include <iostream>

#include "capture/explain.h"
#include "inductor/inductor_backend.h"
#include "commands/commands.h"
#include "commands/script_entry.h"

namespace cwb {
namespace {

int explainScript(const ScriptEntry& entry) {
    std::string text = readScript(entry.script);
    eng::vm::Interpreter vm(std::cout);
    eng::capture::CaptureEngine engine(vm);
    engine.install();
    eng::inductor::installInductorBackend();
    eng::capture::ExplainRecord record;
    engine.explainNextCall(&record);
    EntryResult result = runModuleAndEntry(vm, entry, text);
    if (result.exitCode != 0) return result.exitCode;
    std::cout << eng::capture::explainText(record);
    std::cout.flush();
    return 0;
}

}  // namespace

void registerExplainCommand(CLI::App& app) {
    auto options = std::make_shared<ScriptEntry>();
    CLI::App* cmd = app.add_subcommand("explain", "Print torch._dynamo.explain for a script's first compiled call "
                                                  "(graphs, graph breaks, ops, guards)");
    cmd->add_option("SCRIPT", options->script, "The script (.py) to run")->required();
    cmd->add_option("--call", options->call, "After the module ran, call this function with the device (default: main)");
    cmd->add_option("--device", options->device, "The device string passed to the called function")->default_val("cpu");
    cmd->callback([options] { throw CLI::RuntimeError(explainScript(*options)); });
}

}  // namespace cwb
