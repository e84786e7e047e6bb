// Differential runs in a forked child (differential_runner.h). The child writes one line per step to a pipe:
// "BEGIN config" before each run, then "VERDICT kind config detail"; the parent turns a signal into Crash or Hang.
#include "differential_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "capture/capture_engine.h"
#include "inductor/inductor_backend.h"
#include "tensor/device.h"
#include "vm/outputs.h"

namespace cwb::fuzz {

const std::vector<Config>& compiledConfigs(const std::string& device) {
    static const std::vector<Config> cpu = {
        {"eager", "eager", "default", false, ""},
        {"aot_eager", "aot_eager", "default", false, ""},
        {"inductor", "inductor", "default", false, ""},
        {"inductor-max-autotune", "inductor", "max-autotune", false, ""},
        {"inductor-interpreter", "inductor", "default", true, ""},
    };
    // No interpreter codegen on CUDA: the reference interpreter reads host memory.
    static const std::vector<Config> cuda = {
        {"eager-on-cpu", "none", "default", false, "cpu"},
        {"eager", "eager", "default", false, ""},
        {"aot_eager", "aot_eager", "default", false, ""},
        {"inductor", "inductor", "default", false, ""},
        {"inductor-reduce-overhead", "inductor", "reduce-overhead", false, ""},
        {"inductor-max-autotune", "inductor", "max-autotune", false, ""},
        {"inductor-max-autotune-no-cudagraphs", "inductor", "max-autotune-no-cudagraphs", false, ""},
    };
    if (device == "cpu") return cpu;
    if (device == "cuda") return cuda;
    throw std::runtime_error("no configurations for device '" + device + "' (cpu or cuda)");
}

const Config* findConfig(const std::string& device, const std::string& name) {
    for (const Config& c : compiledConfigs(device))
        if (c.name == name) return &c;
    return nullptr;
}

bool deviceAvailable(const std::string& device) {
    if (device == "cpu") return true;
    pid_t child = fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) _exit(eng::tensor::isDeviceAvailable(eng::tensor::Device::parse(device).type()) ? 0 : 1);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string kindName(Verdict::Kind kind) {
    switch (kind) {
        case Verdict::Kind::Agree: return "agree";
        case Verdict::Kind::EagerRaises: return "eager-raises";
        case Verdict::Kind::Differs: return "differs";
        case Verdict::Kind::Raises: return "raises";
        case Verdict::Kind::Crash: return "crash";
        case Verdict::Kind::Hang: return "hang";
    }
    return "?";
}

bool parseKind(const std::string& name, Verdict::Kind& kind) {
    for (auto k : {Verdict::Kind::Agree, Verdict::Kind::EagerRaises, Verdict::Kind::Differs, Verdict::Kind::Raises,
                   Verdict::Kind::Crash, Verdict::Kind::Hang})
        if (kindName(k) == name) {
            kind = k;
            return true;
        }
    return false;
}

namespace {

RunResult runOnce(const std::string& text, const Config& config, const std::string& device) {
    if (config.interpreterCodegen) setenv("CWB_INDUCTOR_CODEGEN", "interpreter", 1);
    else unsetenv("CWB_INDUCTOR_CODEGEN");
    std::ostringstream printed;
    RunResult result;
    eng::vm::Interpreter vm(printed);
    eng::capture::CaptureEngine engine(vm);
    engine.install();
    eng::vm::RunResult module = vm.runScript("fuzz_program.py", text);
    if (!module.ok) {
        result.error = module.error;
        return result;
    }
    try {
        const std::string& runOn = config.device.empty() ? device : config.device;
        eng::vm::Value returned = vm.call(*vm.global("run"), {eng::vm::makeStr(runOn), eng::vm::makeStr(config.backend),
                                                              eng::vm::makeStr(config.mode)});
        result.outputs = eng::vm::outputsJson(vm, returned);
        result.ok = true;
    } catch (...) {
        result.error = vm.formatUncaught(std::current_exception());
    }
    result.printed = printed.str();
    return result;
}

double number(const nlohmann::json& v) {
    if (v.is_string()) {
        std::string s = v.get<std::string>();
        return s == "nan" ? NAN : s == "inf" ? INFINITY : -INFINITY;
    }
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
    return v.get<double>();
}

// One tolerance for every floating dtype: a float64 output of a generated program is mostly a float32 result
// converted (`.double()`), which carries float32's rounding, and float32 math differs by an ulp between kernels.
bool closeEnough(double expected, double actual) {
    if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
    if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
    double tolerance = 2e-4;
    return std::fabs(expected - actual) <= tolerance + tolerance * std::fabs(expected);
}

}  // namespace

std::string compareOutputs(const std::string& eagerText, const std::string& compiledText, const std::string& eagerName) {
    auto eager = nlohmann::json::parse(eagerText), compiled = nlohmann::json::parse(compiledText);
    if (eager.size() != compiled.size())
        return "returned " + std::to_string(compiled.size()) + " values, " + eagerName + " " + std::to_string(eager.size());
    for (size_t i = 0; i < eager.size(); ++i) {
        const auto &e = eager[i], &c = compiled[i];
        std::string where = "output " + std::to_string(i);
        if (e.value("kind", "") != c.value("kind", "")) return where + ": " + c.dump() + ", " + eagerName + " " + e.dump();
        if (e.value("kind", "") != "tensor") {
            if (e != c) return where + ": " + c.dump() + ", " + eagerName + " " + e.dump();
            continue;
        }
        for (const char* key : {"shape", "dtype", "requires_grad"})
            if (e[key] != c[key]) return where + ": " + key + " " + c[key].dump() + ", " + eagerName + " " + e[key].dump();
        const char* valuesKey = e.contains("values") ? "values" : "first64";
        const auto &ev = e[valuesKey], &cv = c[valuesKey];
        const std::string dtype = e["dtype"].get<std::string>();
        const bool floating = dtype.starts_with("float") || dtype == "bfloat16";
        for (size_t k = 0; k < ev.size() && k < cv.size(); ++k)
            if (floating ? !closeEnough(number(ev[k]), number(cv[k])) : number(ev[k]) != number(cv[k]))
                return where + " (" + e["dtype"].get<std::string>() + " " + e["shape"].dump() + "): element " +
                       std::to_string(k) + " is " + cv[k].dump() + ", " + eagerName + " " + ev[k].dump();
    }
    return {};
}

namespace {

std::string oneLine(std::string text) {
    for (char& ch : text)
        if (ch == '\n') ch = '\x1f';
    return text;
}

[[noreturn]] void childMain(int fd, const std::string& text, const std::string& device,
                            const std::vector<Config>& configs, const Reference* given) {
    auto say = [fd](const std::string& line) {
        std::string out = line + "\n";
        if (write(fd, out.data(), out.size()) < 0) _exit(3);
    };
    eng::inductor::installInductorBackend();
    const RunResult reference = given ? given->result : runOnce(text, Config{"none", "none", "default", false, ""}, device);
    const std::string referenceName = given ? given->name : "eager";
    if (!reference.ok && !given) {
        say("VERDICT eager-raises - " + oneLine(reference.error));
        _exit(0);
    }
    if (!reference.ok) {
        // A program the recorded reference rejects must be rejected by every configuration too (cwb's eager run
        // among them); then they agree.
        for (const Config& config : configs) {
            say("BEGIN " + config.name);
            if (runOnce(text, config, device).ok) {
                say("VERDICT differs " + config.name + " " + oneLine("returned, " + referenceName + " raised " + reference.error));
                _exit(0);
            }
        }
        say("VERDICT agree - ");
        _exit(0);
    }
    for (const Config& config : configs) {
        say("BEGIN " + config.name);
        RunResult compiled = runOnce(text, config, device);
        if (!compiled.ok) {
            say("VERDICT raises " + config.name + " " + oneLine(compiled.error));
            _exit(0);
        }
        std::string difference = compareOutputs(reference.outputs, compiled.outputs, referenceName);
        if (difference.empty() && compiled.printed != reference.printed)
            difference = "printed " + compiled.printed + ", " + referenceName + " printed " + reference.printed;
        if (!difference.empty()) {
            say("VERDICT differs " + config.name + " " + oneLine(difference));
            _exit(0);
        }
    }
    say("VERDICT agree - ");
    _exit(0);
}

}  // namespace

Verdict checkProgram(const std::string& text, const std::string& device, const std::vector<Config>& configs,
                     int timeoutSeconds, const Reference* reference) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_t child = fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
        close(fds[0]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0 && !std::getenv("CWB_FUZZ_VERBOSE")) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        alarm(static_cast<unsigned>(timeoutSeconds));
        childMain(fds[1], text, device, configs, reference);
    }
    close(fds[1]);
    std::string received;
    char buffer[4096];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        received.append(buffer, static_cast<size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}

    Verdict verdict;
    std::string lastBegun;
    std::istringstream lines(received);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("BEGIN ", 0) == 0) lastBegun = line.substr(6);
        if (line.rfind("VERDICT ", 0) != 0) continue;
        std::istringstream fields(line.substr(8));
        std::string kind;
        fields >> kind >> verdict.config;
        std::getline(fields, verdict.detail);
        for (char& ch : verdict.detail)
            if (ch == '\x1f') ch = '\n';
        if (!verdict.detail.empty() && verdict.detail[0] == ' ') verdict.detail.erase(0, 1);
        if (verdict.config == "-") verdict.config.clear();
        parseKind(kind, verdict.kind);
        return verdict;
    }
    // No verdict: the child died in the configuration it had begun (or in the eager reference).
    verdict.config = lastBegun;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        verdict.kind = Verdict::Kind::Hang;
        verdict.detail = "no result after " + std::to_string(timeoutSeconds) + " s";
    } else {
        verdict.kind = Verdict::Kind::Crash;
        verdict.detail = WIFSIGNALED(status) ? std::string("killed by signal ") + strsignal(WTERMSIG(status))
                                             : "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return verdict;
}

}  // namespace cwb::fuzz
