// `cwb dis SCRIPT.py [--positions] [--ast]`: the bytecode of a script (or its syntax tree), like Python's dis.
// Syntax errors print as file:line:col with the source line and a caret, and exit with status 1.
#include <fmt/core.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "commands/commands.h"
#include "frontend/ast_printer.h"
#include "frontend/compiler.h"
#include "frontend/disassembler.h"
#include "frontend/parser.h"

namespace cwb {
namespace {

struct DisOptions {
    std::string script;
    bool positions = false;
    bool ast = false;
};

int runDis(const DisOptions& options) {
    std::ifstream in(options.script, std::ios::binary);
    if (!in) throw std::runtime_error(options.script + ": cannot read the script");
    std::stringstream text;
    text << in.rdbuf();
    eng::frontend::SourceFile file(options.script, text.str());
    if (options.ast) {
        auto module = eng::frontend::parseModule(file);
        if (!module) {
            fmt::print(stderr, "{}", module.error().render());
            return 1;
        }
        fmt::print("{}", eng::frontend::printModule(*module));
        return 0;
    }
    auto code = eng::frontend::compileSource(file);
    if (!code) {
        fmt::print(stderr, "{}", code.error().render());
        return 1;
    }
    eng::frontend::DisassemblyOptions disassembly;
    disassembly.positions = options.positions;
    std::cout << eng::frontend::disassemble(**code, disassembly);
    std::cout.flush();
    return 0;
}

}  // namespace

void registerDisCommand(CLI::App& app) {
    auto options = std::make_shared<DisOptions>();
    CLI::App* cmd = app.add_subcommand("dis", "Disassemble a Python-subset script into cwb bytecode");
    cmd->add_option("SCRIPT", options->script, "The script (.py) to compile")->required();
    cmd->add_flag("--positions", options->positions, "Show each instruction's source range (line:col-line:col)");
    cmd->add_flag("--ast", options->ast, "Print the syntax tree (S-expressions) instead of the bytecode");
    cmd->callback([options] { throw CLI::RuntimeError(runDis(*options)); });
}

}  // namespace cwb
