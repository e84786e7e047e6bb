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
    std::string device;               ///< empty: the device the program is checked on
};

/// The configurations that apply on `device`. cpu: eager, aot_eager, inductor (LLVM), inductor max-autotune,
/// inductor with the reference interpreter. cuda: eager, aot_eager, inductor (NVRTC), with reduce-overhead (CUDA
/// graphs), max-autotune (autotuned launches and CUDA graphs) and max-autotune-no-cudagraphs, and the program run
/// eagerly on the CPU (the eager CUDA runtime against the CPU's).
const std::vector<Config>& compiledConfigs(const std::string& device);
const Config* findConfig(const std::string& device, const std::string& name);

/// Whether `device` ("cpu", "cuda") can run programs here. Asked in a child process: a process that initialised
/// CUDA cannot hand it on to the children it forks afterwards.
bool deviceAvailable(const std::string& device);

/// What one run of a program gave: run()'s outputs in the format of `cwb run --outputs` (a JSON array of output
/// summaries) and its printed text, or the error it raised.
struct RunResult {
    bool ok = false;  ///< false: it raised `error`
    std::string outputs;
    std::string printed;
    std::string error;
};

/// What each configuration is compared with when it is not cwb's own eager run: a result recorded elsewhere
/// (real PyTorch's, tests/fuzz/torch_reference.py).
struct Reference {
    std::string name;  ///< how verdicts name it ("torch 2.11 eager")
    RunResult result;
};

struct Verdict {
    enum class Kind { Agree, EagerRaises, Differs, Raises, Crash, Hang };
    Kind kind = Kind::Agree;
    std::string config;  ///< the first configuration that disagreed
    std::string detail;
    bool sameFailure(const Verdict& other) const { return kind == other.kind && config == other.config; }
};
std::string kindName(Verdict::Kind kind);
bool parseKind(const std::string& name, Verdict::Kind& kind);

/// Empty when `outputs` agree with `reference` (same kinds, shapes, dtypes, values within float32's or float64's
/// tolerance), else what differs first, naming the reference `referenceName`.
std::string compareOutputs(const std::string& reference, const std::string& outputs, const std::string& referenceName);

/// Runs `text` (a program with run(device, backend, mode)) eagerly on `device`, then under each of `configs`; with
/// `reference`, each of `configs` is compared with it instead of with cwb's eager run, and a program the reference
/// rejects agrees when every configuration rejects it too (eager-raises is only said of cwb's own eager run).
Verdict checkProgram(const std::string& text, const std::string& device, const std::vector<Config>& configs,
                     int timeoutSeconds, const Reference* reference = nullptr);

}  // namespace cwb::fuzz
