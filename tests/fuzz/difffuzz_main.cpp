// cwb_difffuzz: differential fuzzing of the compiler. `fuzz` generates programs for a seed range within a time
// budget and shrinks each failure; `check` reruns recorded regression programs (`torch-check`: against real
// PyTorch's recorded results); `print` shows a seed's program, `write` a range of them.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "differential_runner.h"
#include "program_generator.h"
#include "shrinker.h"

namespace fs = std::filesystem;
using namespace cwb::fuzz;

namespace {

std::set<std::string> enabledFeatures(const std::vector<std::string>& without) {
    std::set<std::string> enabled(featureNames().begin(), featureNames().end());
    for (const std::string& name : without) {
        if (!enabled.erase(name)) throw std::runtime_error("unknown feature '" + name + "'");
    }
    return enabled;
}

void writeFile(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

std::string expectLine(const Verdict& v) {
    return fmt::format("# expect: {} {} -- {}\n", kindName(v.kind), v.config.empty() ? "-" : v.config,
                       v.detail.substr(0, v.detail.find('\n')));
}

/// ctest's skip code: a device this machine lacks skips the run rather than failing it.
constexpr int kSkipped = 77;

int fuzz(uint64_t first, uint64_t last, double budget, const std::set<std::string>& enabled, const std::string& outDir,
         const std::string& device, int timeout) {
    auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    int ran = 0, agreed = 0, invalid = 0, failures = 0;
    uint64_t seed = first;
    for (; seed <= last && elapsed() < budget; ++seed) {
        Program program = generateProgram(seed, enabled);
        Verdict verdict = checkProgram(renderProgram(program), device, compiledConfigs(device), timeout);
        ++ran;
        if (verdict.kind == Verdict::Kind::Agree) ++agreed;
        if (verdict.kind == Verdict::Kind::EagerRaises) {
            ++invalid;
            if (std::getenv("CWB_FUZZ_SHOW_INVALID")) fmt::print("seed {} is invalid:\n{}\n", seed, verdict.detail);
        }
        if (verdict.kind == Verdict::Kind::Agree || verdict.kind == Verdict::Kind::EagerRaises) continue;
        ++failures;
        Program minimal = shrinkProgram(program, verdict, device, timeout);
        std::string text = renderProgram(minimal);
        fmt::print("seed {}: {} under {}: {}\nminimal program:\n{}{}\n", seed, kindName(verdict.kind), verdict.config,
                   verdict.detail, expectLine(verdict), text);
        if (!outDir.empty()) {
            fs::create_directories(outDir);
            writeFile(fs::path(outDir) / fmt::format("seed_{}.py", seed), renderProgram(program));
            writeFile(fs::path(outDir) / fmt::format("seed_{}_min.py", seed), expectLine(verdict) + text);
        }
    }
    fmt::print("{} programs (seeds {}-{}) on {} in {:.1f} s: {} agreed, {} rejected by eager (invalid), {} failed\n", ran,
               first, seed - 1, device, elapsed(), agreed, invalid, failures);
    return failures == 0 ? 0 : 1;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw std::runtime_error(path + ": cannot read");
    return text.str();
}

/// Real PyTorch's eager result on `device` for `program` (P.py -> P.torch.json, from torch_reference.py); prints
/// whether torch.compile agreed with it there. False when the file holds no result for `device`.
bool torchReference(const std::string& program, const std::string& device, Reference& reference) {
    std::string path = program.substr(0, program.size() - (program.ends_with(".py") ? 3 : 0)) + ".torch.json";
    auto json = nlohmann::json::parse(readFile(path));
    if (!json["results"].contains(device)) return false;
    auto run = [&](const nlohmann::json& r, Reference& out, const std::string& name) {
        out.name = name;
        out.result.ok = r.value("ok", false);
        out.result.outputs = r.contains("outputs") ? r["outputs"].dump() : "[]";
        out.result.printed = r.value("printed", "");
        out.result.error = r.value("error", "");
    };
    const auto& results = json["results"][device];
    std::string version = json.value("torch", "?");
    run(results["eager"], reference, "torch " + version + " eager");
    Reference compiled;
    run(results["compiled"], compiled, "torch.compile");
    const RunResult &eager = reference.result, &own = compiled.result;
    std::string difference = own.ok != eager.ok ? (own.ok ? "returned" : "raised " + own.error)
                             : eager.ok       ? compareOutputs(eager.outputs, own.outputs, reference.name)
                                              : "";
    if (!difference.empty()) fmt::print("  note: real torch.compile (inductor) differs from real eager here: {}\n", difference);
    return true;
}

/// A regression program passes when it agrees, or fails exactly as its `# expect: KIND CONFIG -- why` line says
/// (a known bug being fixed elsewhere); a program that then agrees must lose its expect line. With `againstTorch`
/// cwb's eager run and every configuration are compared with real PyTorch's recorded eager result.
int check(const std::vector<std::string>& files, const std::string& device, bool againstTorch, int timeout) {
    int bad = 0, skipped = 0;
    const std::regex expectPattern(R"(^# expect: (\S+) (\S+) -- (.*)$)");
    for (const std::string& file : files) {
        std::string source;
        try {
            source = readFile(file);
        } catch (const std::exception& e) {
            fmt::print("{}\n", e.what());
            ++bad;
            continue;
        }
        std::smatch match;
        std::string firstLine = source.substr(0, source.find('\n'));
        Verdict expected;
        bool hasExpect = std::regex_match(firstLine, match, expectPattern) && parseKind(match[1], expected.kind);
        if (hasExpect) expected.config = match[2] == "-" ? "" : std::string(match[2]);
        std::vector<Config> configs = compiledConfigs(device);
        Reference reference;
        if (againstTorch) {
            if (!torchReference(file, device, reference)) {
                fmt::print("SKIP: {}: no real PyTorch result on {}\n", file, device);
                ++skipped;
                continue;
            }
            configs.insert(configs.begin(), Config{"cwb-eager", "none", "default", false, ""});
        }
        Verdict got = checkProgram(source, device, configs, timeout, againstTorch ? &reference : nullptr);
        bool ok = got.kind == Verdict::Kind::Agree || (hasExpect && got.sameFailure(expected));
        std::string status = got.kind == Verdict::Kind::Agree ? (hasExpect ? "XPASS" : "PASS") : ok ? "XFAIL" : "FAIL";
        if (status == "XPASS") ok = false;
        fmt::print("{}: {}: {}{}{}\n", status, file, kindName(got.kind), got.config.empty() ? "" : " under " + got.config,
                   got.detail.empty() ? "" : ": " + got.detail);
        if (status == "XPASS") fmt::print("  it agrees now: remove its '# expect:' line\n");
        if (hasExpect && status == "XFAIL") fmt::print("  known: {}\n", std::string(match[3]));
        if (!ok) ++bad;
    }
    if (bad == 0 && skipped == static_cast<int>(files.size())) return kSkipped;
    return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("Differential fuzzing of the cwb compiler: eager against every compiled configuration");
    app.require_subcommand(1);
    std::string seeds = "1-100", outDir, device = "cpu";
    double budget = 60;
    int timeout = 30;
    std::vector<std::string> without, files;
    uint64_t printSeed = 0;
    app.add_option("--timeout", timeout, "Seconds one program may take under all configurations");
    app.add_option("--without", without, "Leave a statement family out (known open bugs)");
    app.add_option("--device", device, "Device the programs run on: cpu, or cuda (skipped, exit 77, without a GPU)");
    CLI::App* fuzzCmd = app.add_subcommand("fuzz", "Generate and check programs");
    fuzzCmd->add_option("--seeds", seeds, "Seed range FIRST-LAST");
    fuzzCmd->add_option("--budget", budget, "Stop after this many seconds");
    fuzzCmd->add_option("--out", outDir, "Write each failing program and its minimal form here");
    CLI::App* checkCmd = app.add_subcommand("check", "Rerun regression programs");
    checkCmd->add_option("FILES", files)->required();
    CLI::App* torchCmd = app.add_subcommand("torch-check", "Check programs against real PyTorch's results (P.torch.json)");
    torchCmd->add_option("FILES", files)->required();
    CLI::App* printCmd = app.add_subcommand("print", "Print the program of one seed");
    printCmd->add_option("SEED", printSeed)->required();
    CLI::App* writeCmd = app.add_subcommand("write", "Write the programs of a seed range as seed_N.py files");
    writeCmd->add_option("--seeds", seeds, "Seed range FIRST-LAST");
    writeCmd->add_option("--out", outDir, "Folder to write them to")->required();
    CLI11_PARSE(app, argc, argv);
    try {
        std::set<std::string> enabled = enabledFeatures(without);
        if (*printCmd) {
            fmt::print("{}", renderProgram(generateProgram(printSeed, enabled)));
            return 0;
        }
        size_t dash = seeds.find('-');
        uint64_t first = std::stoull(seeds.substr(0, dash));
        uint64_t last = dash == std::string::npos ? first : std::stoull(seeds.substr(dash + 1));
        if (*writeCmd) {
            fs::create_directories(outDir);
            for (uint64_t seed = first; seed <= last; ++seed)
                writeFile(fs::path(outDir) / fmt::format("seed_{}.py", seed), renderProgram(generateProgram(seed, enabled)));
            return 0;
        }
        compiledConfigs(device);  // an unknown device is refused before anything runs
        if (!deviceAvailable(device)) {
            fmt::print("SKIP: no {} device here\n", device);
            return kSkipped;
        }
        if (*checkCmd || *torchCmd) return check(files, device, torchCmd->parsed(), timeout);
        return fuzz(first, last, budget, enabled, outDir, device, timeout);
    } catch (const std::exception& e) {
        fmt::print(stderr, "cwb_difffuzz: {}\n", e.what());
        return 2;
    }
}
