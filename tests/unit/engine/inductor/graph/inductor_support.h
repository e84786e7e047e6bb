// Helpers for inductor backend tests: run a script with the capture engine and the inductor backend installed,
// keeping the generated output code of every compile and the script's returned value.
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "capture/capture_engine.h"
#include "inductor/inductor_backend.h"
#include "vm/interpreter.h"

namespace inductortest {

struct CodeSink : eng::capture::CompileEventSink {
    std::vector<traces::OutputCode> code;
    void compileStarted(const traces::Compile&, const traces::Stack&) override {}
    void recompileReasons(const traces::CompileKey&, const std::vector<traces::GuardFailure>&) override {}
    void graphCaptured(const traces::CompileKey&, const traces::Graph&) override {}
    void guardsInstalled(const traces::CompileKey&, const std::vector<traces::Guard>&) override {}
    void graphBreak(const traces::CompileKey&, const traces::GraphBreak&) override {}
    void outputCode(const traces::CompileKey&, const traces::OutputCode& c) override { code.push_back(c); }
    void warning(const traces::CompileKey&, const std::string&) override {}
    void compileFinished(const traces::Compile&) override {}
};

struct InductorRun {
    bool ok = false;
    std::string error;
    std::string out;
    eng::vm::Value returned;
    std::vector<traces::OutputCode> code;
};

/// Selects the code generator for the backends made from now on (the reference interpreter or native code).
inline void useInterpreter(bool interpreter) {
    if (interpreter) setenv("CWB_INDUCTOR_CODEGEN", "interpreter", 1);
    else unsetenv("CWB_INDUCTOR_CODEGEN");
}

inline InductorRun runInductor(const std::string& source, const std::string& entry, eng::vm::ValueList args,
                               const std::string& filename = "x.py") {
    eng::inductor::installInductorBackend();
    InductorRun run;
    std::ostringstream out;
    eng::vm::Interpreter vm(out);
    eng::capture::CaptureEngine engine(vm);
    engine.install();
    CodeSink sink;
    engine.setEventSink(&sink);
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
    run.code = sink.code;
    return run;
}

/// Output code of compiled graphs only (not the eager fallbacks).
inline int compiledGraphs(const InductorRun& run) {
    int n = 0;
    for (const auto& c : run.code) n += c.filename == "cwb_inductor_output_code" ? 1 : 0;
    return n;
}

inline int kernelCount(const InductorRun& run) {
    int n = 0;
    for (const auto& c : run.code) n += static_cast<int>(c.kernels.size());
    return n;
}

}  // namespace inductortest
