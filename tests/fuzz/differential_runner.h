// Runs one program eagerly and under each compiled configuration in a forked child (a crash or a hang of the
// engine ends the child, never the fuzzer) and says whether the outputs, mutated inputs and printed text agree.
#pragma once

#include <string>
#include <vector>

namespace cwb::fuzz {

/// One way of running f: torch.compile's backend and mode, and the inductor's kernel code generator.
struct Config {
    std::string name;
    std::string backend;  ///< "none" runs f eagerly
    std::string mode;
    bool interpreterCodegen = false;  ///< CWB_INDUCTOR_CODEGEN=interpreter
};

/// eager, aot_eager, inductor (LLVM), inductor max-autotune, inductor with the reference interpreter.
const std::vector<Config>& compiledConfigs();
const Config* findConfig(const std::string& name);

struct Verdict {
    enum class Kind { Agree, EagerRaises, Differs, Raises, Crash, Hang };
    Kind kind = Kind::Agree;
    std::string config;  ///< the first configuration that disagreed
    std::string detail;
    bool sameFailure(const Verdict& other) const { return kind == other.kind && config == other.config; }
};
std::string kindName(Verdict::Kind kind);
bool parseKind(const std::string& name, Verdict::Kind& kind);

/// Runs `text` (a program with run(device, backend, mode)) eagerly, then under each of `configs`.
Verdict checkProgram(const std::string& text, const std::vector<Config>& configs, int timeoutSeconds);

}  // namespace cwb::fuzz
