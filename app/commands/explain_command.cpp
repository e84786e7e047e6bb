// `cwb explain SCRIPT.py [--device cpu] [--call NAME]`: torch._dynamo.explain for a script. Runs the module, then
// main(device) with the capture engine, and prints what the first compiled call compiled, as explain() prints it.
#include <fmt/core.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "capture/explain.h"
#include "commands/commands.h"

namespace cwb {
namespace {

struct ExplainOptions {
    std::string script;
    std::string call;
    std::string device = "cpu";
};

int explainScript(const ExplainOptions& options) {
    std::ifstream in(options.script, std::ios::binary);
    if (!in) throw std::runtime_error(options.script + ": cannot read the script");
    std::stringstream text;
    text << in.rdbuf();
    eng::vm::Interpreter vm(std::cout);
    eng::capture::CaptureEngine engine(vm);
    engine.install();
    eng::capture::ExplainRecord record;
    engine.explainNextCall(&record);
    eng::vm::RunResult result = vm.runScript(options.script, text.str());
    if (!result.ok) {
        std::cout.flush();
        fmt::print(stderr, "{}", result.error);
        return 1;
    }
    std::string entry = options.call.empty() ? "main" : options.call;
    std::optional<eng::vm::Value> function = vm.global(entry);
    if (function) {
        try {
            vm.call(*function, {eng::vm::makeStr(options.device)});
        } catch (...) {
            std::cout.flush();
            fmt::print(stderr, "{}", vm.formatUncaught(std::current_exception()));
            return 1;
        }
    } else if (!options.call.empty()) {
        fmt::print(stderr, "{}: the script defines no '{}'\n", options.script, entry);
        return 1;
    }
    std::cout << eng::capture::explainText(record);
    std::cout.flush();
    return 0;
}

}  // namespace

void registerExplainCommand(CLI::App& app) {
    auto options = std::make_shared<ExplainOptions>();
    CLI::App* cmd = app.add_subcommand("explain", "Print torch._dynamo.explain for a script's first compiled call "
                                                  "(graphs, graph breaks, ops, guards)");
    cmd->add_option("SCRIPT", options->script, "The script (.py) to run")->required();
    cmd->add_option("--call", options->call, "After the module ran, call this function with the device (default: main)");
    cmd->add_option("--device", options->device, "The device string passed to the called function")->default_val("cpu");
    cmd->callback([options] { throw CLI::RuntimeError(explainScript(*options)); });
}

}  // namespace cwb
