// Helpers for inductor backend tests: run a script with the capture engine and the inductor backend installed
// (capture_support's runner, whose event sink keeps the generated output code of every compile).
#pragma once

#include <cstdlib>
#include <string>

#include "../../capture/capture_support.h"
#include "../../test_programs.h"
#include "inductor/inductor_backend.h"

namespace inductortest {

using InductorRun = capturetest::CapturedRun;

/// Selects the code generator for the backends made from now on (the reference interpreter or native code).
inline void useInterpreter(bool interpreter) {
    if (interpreter) setenv("CWB_INDUCTOR_CODEGEN", "interpreter", 1);
    else unsetenv("CWB_INDUCTOR_CODEGEN");
}

inline InductorRun runInductor(const std::string& source, const std::string& entry, eng::vm::ValueList args,
                               const std::string& filename = "x.py") {
    eng::inductor::installInductorBackend();
    return capturetest::runCaptured(source, filename, entry, std::move(args));
}

/// Output code of compiled graphs only (not the eager fallbacks).
inline int compiledGraphs(const InductorRun& run) {
    int n = 0;
    for (const auto& c : run.events.code) n += c.filename == "cwb_inductor_output_code" ? 1 : 0;
    return n;
}

}  // namespace inductortest
