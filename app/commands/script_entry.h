// Running a script the way `cwb run` and `cwb explain` both do: read it, run the module as __main__, then call
// its entry function (main(device), or --call NAME) and print syntax errors and tracebacks as Python would.
#pragma once

#include <optional>
#include <string>

#include "vm/interpreter.h"

namespace cwb {

struct ScriptEntry {
    std::string script;
    std::string call;  ///< empty: main, when the script defines it
    std::string device = "cpu";
};

/// The script's text; throws std::runtime_error naming the file when it cannot be read.
std::string readScript(const std::string& path);

/// What running the module and its entry function gave: `exitCode` 0 with the entry's return value (none when
/// the script defines no main and no --call asked for one), or 1 after the error was printed to stderr.
struct EntryResult {
    int exitCode = 0;
    std::optional<eng::vm::Value> returned;
};
EntryResult runModuleAndEntry(eng::vm::Interpreter& vm, const ScriptEntry& entry, const std::string& text);

}  // namespace cwb
