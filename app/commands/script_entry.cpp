// Running a script the way `cwb run` and `cwb explain` both do (script_entry.h).
#include "commands/script_entry.h"

#include <fmt/core.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace cwb {

std::string readScript(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read the script");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

EntryResult runModuleAndEntry(eng::vm::Interpreter& vm, const ScriptEntry& entry, const std::string& text) {
    eng::vm::RunResult result = vm.runScript(entry.script, text);
    if (!result.ok) {
        std::cout.flush();
        fmt::print(stderr, "{}", result.error);
        return {1, std::nullopt};
    }
    std::string name = entry.call.empty() ? "main" : entry.call;
    std::optional<eng::vm::Value> function = vm.global(name);
    if (!function) {
        // Scripts without main(device) are plain programs: running the module was the whole job.
        if (entry.call.empty()) return {0, std::nullopt};
        fmt::print(stderr, "{}: the script defines no '{}'\n", entry.script, name);
        return {1, std::nullopt};
    }
    try {
        return {0, vm.call(*function, {eng::vm::makeStr(entry.device)})};
    } catch (...) {
        std::cout.flush();
        fmt::print(stderr, "{}", vm.formatUncaught(std::current_exception()));
        return {1, std::nullopt};
    }
}

}  // namespace cwb
