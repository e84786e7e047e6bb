// cwb_conformance: runs every program of the given folders (`.py` + real-torch `.json` ground truth) through
// `cwb run` twice — compiled, and eagerly with TORCHDYNAMO_DISABLE=1 — and classifies each as match, WRONG
// (outputs differ from real torch's), differs (counts or the raised exception differ) or failing; where the
// compiled outputs differ from the eager run's, it says so.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* kUsage =
    "usage: cwb_conformance --cwb PATH [--work DIR] [--jobs N] [--timeout SECONDS] [--filter TEXT]\n"
    "                       [--known FILE] [--write-known FILE] [--verbose] FOLDER...\n"
    "Each FOLDER holds programs NAME.py with real torch ground truth NAME.json; absent folders are skipped.\n"
    "--known FILE: exit 1 when a program does worse than the status recorded for it there (absent: match).\n";

enum class Status { Match, Differs, Failing, Wrong };
const char* statusName(Status s) {
    switch (s) {
        case Status::Match: return "match";
        case Status::Differs: return "differs";
        case Status::Failing: return "failing";
        case Status::Wrong: return "WRONG";
    }
    return "?";
}
std::optional<Status> parseStatus(const std::string& text) {
    for (Status s : {Status::Match, Status::Differs, Status::Failing, Status::Wrong})
        if (text == statusName(s)) return s;
    return std::nullopt;
}

struct Options {
    std::string cwb;
    fs::path work = fs::temp_directory_path() / "cwb_conformance";
    int jobs = 1;
    int timeoutSeconds = 120;
    std::string filter;
    std::string known;
    std::string writeKnown;
    bool verbose = false;
    std::vector<fs::path> folders;
};

struct ProcessResult {
    int exitCode = 0;  ///< -1 when killed by a signal or the timeout
    std::string failure;  ///< "crashed: signal N" or "timed out after Ns"
    std::string stderrText;
};

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Runs `argv` with stdout/stderr into files under `dir`, killing it after the timeout.
ProcessResult runProcess(const std::vector<std::string>& argv, const fs::path& dir, bool eager, int timeoutSeconds) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<std::string> envText;
    for (char** e = environ; *e; ++e) {
        std::string entry = *e;
        if (entry.rfind("TORCHDYNAMO_DISABLE=", 0) == 0 || entry.rfind("TORCH_LOGS=", 0) == 0) continue;
        envText.push_back(entry);
    }
    if (eager) envText.push_back("TORCHDYNAMO_DISABLE=1");
    std::vector<char*> env;
    for (auto& e : envText) env.push_back(e.data());
    env.push_back(nullptr);

    std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    ProcessResult result;
    int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        result.exitCode = -1;
        result.failure = "cannot start " + argv[0];
        return result;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    int status = 0;
    while (true) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            result.exitCode = -1;
            result.failure = "timed out after " + std::to_string(timeoutSeconds) + "s";
            result.stderrText = readText(err);
            return result;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    result.stderrText = readText(err);
    if (WIFSIGNALED(status)) {
        result.exitCode = -1;
        result.failure = "crashed: signal " + std::to_string(WTERMSIG(status));
    } else {
        result.exitCode = WEXITSTATUS(status);
    }
    return result;
}

std::string lastLine(const std::string& text) {
    std::string trimmed = text;
    while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
    size_t start = trimmed.rfind('\n');
    return start == std::string::npos ? trimmed : trimmed.substr(start + 1);
}

/// The exception line of a Python traceback on stderr (`Type: message`), else its last line.
std::string errorLine(const std::string& text) {
    static const std::regex exceptionLine(R"(^[A-Za-z_][\w.]*(Error|Exception|Unsupported|Failed|Hit|Interrupt|Exit)\b.*)");
    std::istringstream lines(text);
    std::string line, found;
    while (std::getline(lines, line))
        if (std::regex_match(line, exceptionLine)) found = line;
    return found.empty() ? lastLine(text) : found;
}


double number(const json& j) {
    if (j.is_string()) return j == "nan" ? std::nan("") : (j == "-inf" ? -INFINITY : INFINITY);
    if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
    return j.get<double>();
}

/// Empty when two output lists agree (shape, dtype, values within 1e-5 + 1e-4 relative), else what differs.
std::string compareOutputs(const json& ours, const json& theirs) {
    if (ours.size() != theirs.size())
        return "returned " + std::to_string(ours.size()) + " values, expected " + std::to_string(theirs.size());
    for (size_t i = 0; i < ours.size(); ++i) {
        const json& a = ours[i];
        const json& b = theirs[i];
        std::string at = "output " + std::to_string(i);
        if (a.value("shape", json()) != b.value("shape", json()))
            return at + " shape " + a.value("shape", json()).dump() + ", expected " + b.value("shape", json()).dump();
        if (a.value("dtype", json()) != b.value("dtype", json()))
            return at + " dtype " + a.value("dtype", json()).dump() + ", expected " + b.value("dtype", json()).dump();
        const json& av = a.contains("values") ? a["values"] : a.value("first64", json::array());
        const json& bv = b.contains("values") ? b["values"] : b.value("first64", json::array());
        for (size_t k = 0; k < std::min(av.size(), bv.size()); ++k) {
            double x = number(av[k]), y = number(bv[k]);
            if (std::isnan(x) && std::isnan(y)) continue;
            if (x == y) continue;
            if (!(std::fabs(x - y) <= 1e-5 + 1e-4 * std::fabs(y)))
                return at + " element " + std::to_string(k) + " is " + av[k].dump() + ", expected " + bv[k].dump();
        }
    }
    return "";
}

struct Counts {
    int64_t uniqueGraphs = 0, graphBreaks = 0, recompiles = 0;
    std::set<std::string> reasons;
};

std::string maskAddresses(const std::string& reason) {
    static const std::regex address("0x[0-9a-f]+");
    return std::regex_replace(reason, address, "0x?");
}

Counts expectedCounts(const json& run) {
    Counts c;
    const json& counters = run.value("counters", json::object());
    c.uniqueGraphs = counters.value("stats", json::object()).value("unique_graphs", 0);
    json breaks = counters.value("graph_break", json::object());
    for (auto& [reason, n] : breaks.items()) {
        c.graphBreaks += n.get<int64_t>();
        c.reasons.insert(maskAddresses(reason));
    }
    c.recompiles = run.value("trace_summary", json::object()).value("recompilations", 0);
    return c;
}

Counts ourCounts(const json& stats) {
    Counts c;
    c.uniqueGraphs = stats.value("unique_graphs", 0);
    c.graphBreaks = stats.value("graph_breaks", 0);
    c.recompiles = stats.value("recompiles", 0);
    json reasons = stats.value("graph_break_reasons", json::object());
    for (auto& [reason, n] : reasons.items()) c.reasons.insert(maskAddresses(reason));
    return c;
}

struct Verdict {
    std::string name;  ///< folder/program
    Status status = Status::Match;
    std::string detail;
    bool reasonsDiffer = false;
    std::string eagerDiffers;
};

std::optional<json> readJson(const fs::path& path) {
    if (!fs::exists(path)) return std::nullopt;
    try {
        return json::parse(readText(path));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

Verdict judge(const Options& options, const fs::path& program, const std::string& name) {
    Verdict v;
    v.name = name;
    fs::path dir = options.work / name;
    fs::create_directories(dir / "compiled");
    fs::create_directories(dir / "eager");
    json truth = json::parse(readText(fs::path(program).replace_extension(".json")));
    const json& run = truth.at("cpu");

    fs::path compiledOut = dir / "compiled" / "outputs.json", statsOut = dir / "compiled" / "stats.json";
    fs::path eagerOut = dir / "eager" / "outputs.json";
    fs::remove(compiledOut);
    fs::remove(statsOut);
    fs::remove(eagerOut);
    ProcessResult compiled = runProcess({options.cwb, "run", program.string(), "--outputs", compiledOut.string(), "--stats",
                                         statsOut.string()},
                                        dir / "compiled", false, options.timeoutSeconds);
    ProcessResult eager = runProcess({options.cwb, "run", program.string(), "--outputs", eagerOut.string()}, dir / "eager",
                                     true, options.timeoutSeconds);
    if (!compiled.failure.empty()) {
        v.status = Status::Failing;
        v.detail = compiled.failure;
        return v;
    }
    bool truthRaised = !run.value("ok", true);
    if (truthRaised) {
        std::string type = run.value("exception", json::object()).value("type", "");
        // Python prints a builtin exception by its bare name (TypeError), the harness records builtins.TypeError.
        if (type.rfind("builtins.", 0) == 0) type = type.substr(9);
        if (compiled.exitCode == 0) {
            v.status = Status::Differs;
            v.detail = "returned; real torch raised " + type;
            return v;
        }
        if (errorLine(compiled.stderrText).rfind(type + ":", 0) != 0) {
            v.status = Status::Differs;
            v.detail = "raised " + errorLine(compiled.stderrText) + "; real torch raised " + type;
            return v;
        }
    } else {
        if (compiled.exitCode != 0) {
            v.status = Status::Failing;
            v.detail = errorLine(compiled.stderrText);
            return v;
        }
        auto outputs = readJson(compiledOut);
        if (!outputs) {
            v.status = Status::Failing;
            v.detail = "no outputs written";
            return v;
        }
        std::string vsTruth = compareOutputs(outputs->at("outputs"), run.at("outputs"));
        if (!vsTruth.empty()) {
            v.status = Status::Wrong;
            v.detail = "vs real torch: " + vsTruth;
            return v;
        }
        auto eagerOutputs = readJson(eagerOut);
        if (eager.exitCode == 0 && eagerOutputs) {
            // Compiled matched real torch: a difference from eager is the program's own (fullgraph=True raising,
            // say), as real torch's compiled run differs from its eager one too.
            std::string vsEager = compareOutputs(outputs->at("outputs"), eagerOutputs->at("outputs"));
            if (!vsEager.empty()) v.eagerDiffers = "eager run differs, as in real torch: " + vsEager;
        } else {
            // Compiled matched real torch: eager failing is the VM's gap, worth knowing but not a wrong result.
            v.eagerDiffers = "eager run failed: " + (eager.failure.empty() ? errorLine(eager.stderrText) : eager.failure);
        }
    }
    auto stats = readJson(statsOut);
    if (!stats) {
        v.status = Status::Failing;
        v.detail = "no stats written";
        return v;
    }
    Counts ours = ourCounts(*stats), theirs = expectedCounts(run);
    std::string differences;
    auto compare = [&](const char* what, int64_t a, int64_t b) {
        if (a != b) differences += std::string(differences.empty() ? "" : ", ") + what + " " + std::to_string(a) + " (torch " + std::to_string(b) + ")";
    };
    compare("unique_graphs", ours.uniqueGraphs, theirs.uniqueGraphs);
    compare("graph_breaks", ours.graphBreaks, theirs.graphBreaks);
    compare("recompiles", ours.recompiles, theirs.recompiles);
    v.reasonsDiffer = ours.reasons != theirs.reasons;
    if (!differences.empty()) {
        v.status = Status::Differs;
        v.detail = differences;
        if (!stats->value("graph_break_reasons", json::object()).empty()) {
            std::string reason = stats->at("graph_break_reasons").begin().key();
            v.detail += "; first break: " + reason.substr(0, reason.find('\n'));
        }
    }
    return v;
}

std::map<std::string, Status> readKnown(const std::string& path) {
    std::map<std::string, Status> known;
    std::ifstream in(path);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string name, status;
        fields >> name >> status;
        auto parsed = parseStatus(status);
        if (!parsed) throw std::runtime_error(path + ":" + std::to_string(lineNo) + ":1: unknown status '" + status + "'");
        known[name] = *parsed;
    }
    return known;
}

Options parseOptions(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--cwb") o.cwb = value();
        else if (a == "--work") o.work = value();
        else if (a == "--jobs") o.jobs = std::max(1, std::stoi(value()));
        else if (a == "--timeout") o.timeoutSeconds = std::stoi(value());
        else if (a == "--filter") o.filter = value();
        else if (a == "--known") o.known = value();
        else if (a == "--write-known") o.writeKnown = value();
        else if (a == "--verbose") o.verbose = true;
        else if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            std::exit(0);
        } else if (!a.empty() && a[0] == '-') throw std::runtime_error("unknown option " + a);
        else o.folders.push_back(a);
    }
    if (o.cwb.empty() || o.folders.empty()) throw std::runtime_error("--cwb and at least one FOLDER are required");
    o.cwb = fs::absolute(o.cwb).string();
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    try {
        options = parseOptions(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "cwb_conformance: " << e.what() << "\n" << kUsage;
        return 2;
    }
    std::vector<std::pair<fs::path, std::string>> programs;
    for (const fs::path& folder : options.folders) {
        if (!fs::is_directory(folder)) {
            std::cout << "skipped: " << folder.string() << " is absent\n";
            continue;
        }
        std::string set = folder.filename().string();
        for (const auto& entry : fs::directory_iterator(folder)) {
            const fs::path& p = entry.path();
            if (p.extension() != ".py" || !fs::exists(fs::path(p).replace_extension(".json"))) continue;
            std::string name = set + "/" + p.stem().string();
            if (!options.filter.empty() && name.find(options.filter) == std::string::npos) continue;
            programs.emplace_back(p, name);
        }
    }
    std::sort(programs.begin(), programs.end(), [](auto& a, auto& b) { return a.second < b.second; });

    std::vector<Verdict> verdicts(programs.size());
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (int j = 0; j < options.jobs; ++j)
        workers.emplace_back([&] {
            for (size_t i = next++; i < programs.size(); i = next++) {
                try {
                    verdicts[i] = judge(options, programs[i].first, programs[i].second);
                } catch (const std::exception& e) {
                    verdicts[i] = Verdict{programs[i].second, Status::Failing, std::string("ground truth unreadable: ") + e.what(), false, ""};
                }
            }
        });
    for (auto& w : workers) w.join();

    std::map<std::string, Status> known;
    if (!options.known.empty()) known = readKnown(options.known);
    std::map<Status, int> totals;
    int reasonsDiffer = 0, eagerDiffers = 0, regressions = 0, improvements = 0;
    for (const Verdict& v : verdicts) {
        ++totals[v.status];
        if (v.status == Status::Match && v.reasonsDiffer) ++reasonsDiffer;
        if (!v.eagerDiffers.empty()) ++eagerDiffers;
        if (v.status != Status::Match || options.verbose)
            std::cout << statusName(v.status) << " " << v.name << (v.detail.empty() ? "" : ": " + v.detail) << "\n";
        if (!v.eagerDiffers.empty() && (v.status != Status::Match || options.verbose)) std::cout << "  " << v.eagerDiffers << "\n";
        if (!options.known.empty()) {
            auto it = known.find(v.name);
            Status recorded = it == known.end() ? Status::Match : it->second;
            if (v.status > recorded) {
                ++regressions;
                std::cout << "  REGRESSION: recorded as " << statusName(recorded) << "\n";
            } else if (v.status < recorded) {
                ++improvements;
            }
        }
    }
    if (!options.writeKnown.empty()) {
        std::ofstream out(options.writeKnown);
        out << "# Conformance programs that do not match real torch yet, with their status (match, differs, failing, "
               "WRONG);\n# written by cwb_conformance --write-known. A program doing worse than listed fails the test.\n";
        for (const Verdict& v : verdicts)
            if (v.status != Status::Match) out << v.name << " " << statusName(v.status) << "\n";
    }
    std::cout << "conformance: " << verdicts.size() << " programs: " << totals[Status::Match] << " matched, "
              << totals[Status::Wrong] << " wrong, " << totals[Status::Differs] << " counts differ, " << totals[Status::Failing]
              << " failing";
    if (reasonsDiffer) std::cout << "; " << reasonsDiffer << " matched with other break reasons";
    if (eagerDiffers) std::cout << "; " << eagerDiffers << " where the eager run differs or fails";
    std::cout << "\n";
    if (!options.known.empty()) {
        if (improvements) std::cout << improvements << " programs do better than " << options.known << " records\n";
        if (regressions) {
            std::cout << regressions << " programs do worse than " << options.known << " records\n";
            return 1;
        }
    }
    return 0;
}
