// Helpers for VM script tests: run an inline script, capture what it prints and its traceback.
#pragma once

#include <sstream>
#include <string>

#include "vm/interpreter.h"

namespace vmtest {

struct ScriptRun {
    bool ok;
    std::string out;
    std::string error;
};

inline ScriptRun runScript(const std::string& source, const std::string& filename = "x.py") {
    std::ostringstream out;
    eng::vm::Interpreter vm(out);
    eng::vm::RunResult result = vm.runScript(filename, source);
    return ScriptRun{result.ok, out.str(), result.error};
}

}  // namespace vmtest
