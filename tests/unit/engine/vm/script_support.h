// Helpers for VM script tests: run an inline script, capture what it prints and its traceback.
#pragma once

#include <gtest/gtest.h>

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

/// The script runs without an uncaught exception and prints exactly `expected`.
inline void expectOutput(const std::string& source, const std::string& expected) {
    auto run = runScript(source);
    EXPECT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, expected) << source;
}

/// The script stops with an uncaught exception whose traceback contains `expected`.
inline void expectError(const std::string& source, const std::string& expected) {
    auto run = runScript(source);
    EXPECT_FALSE(run.ok);
    EXPECT_NE(run.error.find(expected), std::string::npos) << run.error;
}

}  // namespace vmtest
