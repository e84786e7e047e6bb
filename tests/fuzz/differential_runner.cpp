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
#include "vm/outputs.h"

namespace cwb::fuzz {

const std::vector<Config>& compiledConfigs() {
    static const std::vector<Config> configs = {
        {"eager", "eager", "default", false},
        {"aot_eager", "aot_eager", "default", false},
        {"inductor", "inductor", "default", false},
        {"inductor-max-autotune", "inductor", "max-autotune", false},
        {"inductor-interpreter", "inductor", "default", true},
    };
    return configs;
}

const Config* findConfig(const std::string& name) {
    for (const Config& c : compiledConfigs())
        if (c.name == name) return &c;
    return nullptr;
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

struct RunResult {
    bool ok = false;
    std::string outputs;  ///< outputsJson of what run() returned
    std::string printed;
    std::string error;
};

RunResult runOnce(const std::string& text, const Config& config) {
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
        eng::vm::Value returned = vm.call(*vm.global("run"), {eng::vm::makeStr("cpu"), eng::vm::makeStr(config.backend),
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

bool closeEnough(double expected, double actual, bool wide) {
    if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
    if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
    double tolerance = wide ? 1e-9 : 2e-4;
    return std::fabs(expected - actual) <= tolerance + tolerance * std::fabs(expected);
}

/// Empty when they agree, else what differs first.
std::string compareOutputs(const std::string& eagerText, const std::string& compiledText) {
    auto eager = nlohmann::json::parse(eagerText), compiled = nlohmann::json::parse(compiledText);
    if (eager.size() != compiled.size())
        return "returned " + std::to_string(compiled.size()) + " values, eager " + std::to_string(eager.size());
    for (size_t i = 0; i < eager.size(); ++i) {
        const auto &e = eager[i], &c = compiled[i];
        std::string where = "output " + std::to_string(i);
        if (e.value("kind", "") != c.value("kind", "")) return where + ": " + c.dump() + ", eager " + e.dump();
        if (e.value("kind", "") != "tensor") {
            if (e != c) return where + ": " + c.dump() + ", eager " + e.dump();
            continue;
        }
        for (const char* key : {"shape", "dtype", "requires_grad"})
            if (e[key] != c[key]) return where + ": " + key + " " + c[key].dump() + ", eager " + e[key].dump();
        const char* valuesKey = e.contains("values") ? "values" : "first64";
        const auto &ev = e[valuesKey], &cv = c[valuesKey];
        bool wide = e["dtype"] == "torch.float64";
        for (size_t k = 0; k < ev.size() && k < cv.size(); ++k)
            if (!closeEnough(number(ev[k]), number(cv[k]), wide))
                return where + " (" + e["dtype"].get<std::string>() + " " + e["shape"].dump() + "): element " +
                       std::to_string(k) + " is " + cv[k].dump() + ", eager " + ev[k].dump();
    }
    return {};
}

std::string oneLine(std::string text) {
    for (char& ch : text)
        if (ch == '\n') ch = '\x1f';
    return text;
}

[[noreturn]] void childMain(int fd, const std::string& text, const std::vector<Config>& configs) {
    auto say = [fd](const std::string& line) {
        std::string out = line + "\n";
        if (write(fd, out.data(), out.size()) < 0) _exit(3);
    };
    eng::inductor::installInductorBackend();
    RunResult reference = runOnce(text, Config{"none", "none", "default", false});
    if (!reference.ok) {
        say("VERDICT eager-raises - " + oneLine(reference.error));
        _exit(0);
    }
    for (const Config& config : configs) {
        say("BEGIN " + config.name);
        RunResult compiled = runOnce(text, config);
        if (!compiled.ok) {
            say("VERDICT raises " + config.name + " " + oneLine(compiled.error));
            _exit(0);
        }
        std::string difference = compareOutputs(reference.outputs, compiled.outputs);
        if (difference.empty() && compiled.printed != reference.printed)
            difference = "printed " + compiled.printed + ", eager printed " + reference.printed;
        if (!difference.empty()) {
            say("VERDICT differs " + config.name + " " + oneLine(difference));
            _exit(0);
        }
    }
    say("VERDICT agree - ");
    _exit(0);
}

}  // namespace

Verdict checkProgram(const std::string& text, const std::vector<Config>& configs, int timeoutSeconds) {
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
        childMain(fds[1], text, configs);
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
