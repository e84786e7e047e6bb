// Tests as data: every Python program under tests/scripts/ runs as `cwb run` runs it (the capture engine with the
// inductor backend and AOT Autograd installed) and is checked against the expectations written in its own comments:
//   # expect: TEXT              the next line the program prints (all printed lines, in order, must be expected)
//   # expect error: TEXT        the program raises, and its traceback contains TEXT (each TEXT, when several are given)
//   # expect graph_breaks: N    torch._dynamo.utils.counters["graph_break"] adds up to N
//   # expect unique_graphs: N   N distinct graphs were compiled
//   # expect recompiles: N      N recompiles (guard failures) happened
//   # requires: cuda            the program needs a CUDA device: without one (no GPU, no driver) the test is skipped
//   # torch_logs: A,B           the program runs with TORCH_LOGS=A,B (graph_breaks,recompiles when not given)
//   # env: NAME=VALUE           the program runs with that environment variable set (TORCHINDUCTOR_FX_GRAPH_CACHE=0)
//   # expect log: TEXT          the TORCH_LOGS output contains TEXT
//   # expect no log: TEXT       the TORCH_LOGS output does not contain TEXT
//   # expect warnings: N        the compiles noted N warnings (the trace's compile warnings: recompile limit, run notes)
//   # expect warning: TEXT      some compile warning contains TEXT
//   # expect code: TEXT         some compile's output code contains TEXT (what the backend generated)
//   # expect no code: TEXT      no compile's output code contains TEXT (e.g. no graph fell back to the eager runtime)
//   # expect code[I]: TEXT      the I-th output code row (from 0, in the order the compiles wrote them) contains TEXT
//   # expect code_count N: TEXT N output code rows contain TEXT
//   # expect code_files: A, B   the output code rows, in order, by file name, each followed by " with kernels" when
//                               it holds generated kernels ("cwb_inductor_output_code with kernels, cwb_aot_eager")
//   # expect graph_code: TEXT   some captured graph's GraphModule.code contains TEXT
//   # expect graph_code:        (nothing after the colon) the comment lines that follow, less their "# ", are the
//                               whole GraphModule.code of the next captured graph, in compile order
//   # expect graph: TEXT        some captured graph as TORCH_TRACE prints it (print_readable: shapes, strides,
//                               devices) contains TEXT
//   # expect no graph: TEXT     no recorded graph contains TEXT
//   # expect kernels_at_most: N every output code row holds at most N generated kernels (horizontal fusion)
//   # expect compiles: A, B     the compiles, in order, as "frame/attempt function" ("0/0 f, 1/0 torch_dynamo_resume_in_f_at_6"),
//                               a compile that did not finish Ok followed by its status ("0/0 f failed")
//   # expect graph_names: A, B  the graphs recorded (TORCH_TRACE's graph names), in order
// One test per file (ScriptTest.Runs/capture_stdlib_defaultdict_factory), discovered when ctest runs, so a new
// file is a new test without touching C++. Programs share code through tests/scripts/_lib/ (`from _lib.training
// import ...`), which is on their module search path and holds no tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "../capture/capture_support.h"
#include "aot/aot_backend.h"
#include "cuda/driver.h"
#include "inductor/inductor_backend.h"

namespace {

namespace fs = std::filesystem;

const fs::path kScriptsDir = fs::path(CWB_TEST_DATA_DIR).parent_path() / "scripts";

struct Expectations {
    std::string output;  // the expected printed lines, each ending in a newline
    std::vector<std::string> errorLines;  // each in the traceback
    std::optional<int64_t> graphBreaks;
    std::optional<int> uniqueGraphs;
    std::optional<size_t> recompiles;
    bool requiresCuda = false;
    std::optional<std::string> torchLogs;
    std::vector<std::pair<std::string, std::string>> environment;
    std::vector<std::string> logLines, absentLogLines;
    std::optional<size_t> warnings;
    std::vector<std::string> warningLines;
    std::vector<std::string> codeLines, absentCodeLines;
    std::vector<std::string> graphCodeLines, graphCodes, graphLines, absentGraphLines;
    std::optional<size_t> kernelsAtMost;
    std::optional<std::string> compiles;
    std::vector<std::pair<size_t, std::string>> codeRowLines;  // row index, text
    std::vector<std::pair<size_t, std::string>> codeCounts;    // rows expected to contain the text, text
    std::optional<std::string> codeFiles, graphNames;
};

/// "3]: TEXT" -> {3, TEXT} (code[I]) and "2: TEXT" -> {2, TEXT} (code_count N): a number, `close`, ": ", the text.
std::optional<std::pair<size_t, std::string>> numbered(const std::string& rest, std::string_view open, std::string_view close) {
    if (!rest.starts_with(open)) return std::nullopt;
    const size_t end = rest.find(close, open.size());
    if (end == std::string::npos || end == open.size()) throw std::invalid_argument("no number");
    const std::string number = rest.substr(open.size(), end - open.size());
    if (number.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument("not a number: " + number);
    std::string text = rest.substr(end + close.size());
    return std::pair<size_t, std::string>{std::stoul(number), text.starts_with(" ") ? text.substr(1) : text};
}

/// "# TEXT" -> "TEXT", "#" -> "": a line of a `# expect graph_code:` block.
std::optional<std::string> blockLine(const std::string& line) {
    if (line == "#") return "";
    if (line.starts_with("# ") && line.find("# expect") != 0) return line.substr(2);
    return std::nullopt;
}

/// GraphModule.code without the blank lines FX puts before `def forward` and the indent it leaves after `return`.
std::string trimmedCode(const std::string& code) {
    const size_t start = code.find_first_not_of('\n');
    const size_t end = code.find_last_not_of(" \n");
    return start == std::string::npos ? "" : code.substr(start, end - start + 1);
}

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The `# expect...` comments of a script; anything else that starts with `# expect` is an error in the script.
Expectations expectationsOf(const std::string& source, const fs::path& path) {
    Expectations e;
    std::istringstream in(source);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.starts_with("# requires:")) {
            if (line == "# requires: cuda") e.requiresCuda = true;
            else ADD_FAILURE() << path.string() << ":" << number << ":1: unknown requirement '" << line << "' (known: cuda)";
            continue;
        }
        if (line.starts_with("# env:")) {
            const std::string setting = line.substr(line.find_first_not_of(' ', 6));
            const size_t equals = setting.find('=');
            if (equals == std::string::npos || equals == 0) ADD_FAILURE() << path.string() << ":" << number << ":1: expected '# env: NAME=VALUE'";
            else e.environment.emplace_back(setting.substr(0, equals), setting.substr(equals + 1));
            continue;
        }
        if (line.starts_with("# torch_logs:")) {
            e.torchLogs = line.substr(line.find_first_not_of(' ', 13));
            continue;
        }
        const size_t start = line.find("# expect");
        if (start == std::string::npos) continue;
        const std::string rest = line.substr(start + 8);
        auto value = [&](std::string_view key) -> std::optional<std::string> {
            if (!rest.starts_with(key)) return std::nullopt;
            std::string v = rest.substr(key.size());
            return v.starts_with(" ") ? v.substr(1) : v;
        };
        try {
            if (auto v = value(":")) e.output += *v + "\n";
            else if (auto error = value(" error:")) e.errorLines.push_back(*error);
            else if (auto breaks = value(" graph_breaks:")) e.graphBreaks = std::stoll(*breaks);
            else if (auto graphs = value(" unique_graphs:")) e.uniqueGraphs = std::stoi(*graphs);
            else if (auto recompiles = value(" recompiles:")) e.recompiles = std::stoul(*recompiles);
            else if (auto log = value(" log:")) e.logLines.push_back(*log);
            else if (auto absentLog = value(" no log:")) e.absentLogLines.push_back(*absentLog);
            else if (auto count = value(" warnings:")) e.warnings = std::stoul(*count);
            else if (auto warning = value(" warning:")) e.warningLines.push_back(*warning);
            else if (auto code = value(" code:")) e.codeLines.push_back(*code);
            else if (auto row = numbered(rest, " code[", "]:")) e.codeRowLines.push_back(*row);
            else if (auto counted = numbered(rest, " code_count ", ":")) e.codeCounts.push_back(*counted);
            else if (auto files = value(" code_files:")) e.codeFiles = *files;
            else if (auto names = value(" graph_names:")) e.graphNames = *names;
            else if (auto absent = value(" no code:")) e.absentCodeLines.push_back(*absent);
            else if (auto graphCode = value(" graph_code:"); graphCode && !graphCode->empty()) e.graphCodeLines.push_back(*graphCode);
            else if (graphCode) {
                std::string block;
                std::streampos next = in.tellg();
                while (std::getline(in, line)) {
                    const std::optional<std::string> text = blockLine(line);
                    if (!text) break;
                    block += (block.empty() ? "" : "\n") + *text;
                    ++number;
                    next = in.tellg();
                }
                in.clear();
                in.seekg(next);
                e.graphCodes.push_back(block);
            }
            else if (auto graph = value(" graph:")) e.graphLines.push_back(*graph);
            else if (auto absentGraph = value(" no graph:")) e.absentGraphLines.push_back(*absentGraph);
            else if (auto most = value(" kernels_at_most:")) e.kernelsAtMost = std::stoul(*most);
            else if (auto compiles = value(" compiles:")) e.compiles = *compiles;
            else throw std::invalid_argument("unknown expectation");
        } catch (const std::exception& error) {
            ADD_FAILURE() << path.string() << ":" << number << ":" << start + 1 << ": bad expectation '" << line.substr(start)
                          << "' (" << error.what() << ")";
        }
    }
    return e;
}

/// Every program under tests/scripts/, less the modules they share: a folder whose name starts with `_` (`_lib/`)
/// holds modules that programs import (it is on their module search path), not tests.
std::vector<fs::path> scripts() {
    std::vector<fs::path> found;
    if (!fs::exists(kScriptsDir)) return found;
    for (auto entry = fs::recursive_directory_iterator(kScriptsDir); entry != fs::recursive_directory_iterator(); ++entry) {
        if (entry->is_directory() && entry->path().filename().string().starts_with("_")) entry.disable_recursion_pending();
        else if (entry->path().extension() == ".py") found.push_back(fs::relative(entry->path(), kScriptsDir));
    }
    std::sort(found.begin(), found.end());
    return found;
}

class ScriptTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(ScriptTest, Runs) {
    const fs::path path = kScriptsDir / GetParam();
    const std::string source = readText(path);
    const Expectations expected = expectationsOf(source, path);
    if (expected.requiresCuda && !eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    eng::inductor::installInductorBackend();
    eng::aot::installAotAutograd();
    // The channels are read from TORCH_LOGS as a user sets them; each test runs in a process of its own.
    if (expected.torchLogs) setenv("TORCH_LOGS", expected.torchLogs->c_str(), 1);
    for (const auto& [name, setting] : expected.environment) setenv(name.c_str(), setting.c_str(), 1);
    const std::optional<eng::capture::LogSettings> logs =
        expected.torchLogs ? std::optional(eng::capture::LogSettings::fromEnvironment()) : std::nullopt;
    const capturetest::CapturedRun run =
        capturetest::runCaptured(source, GetParam().generic_string(), "", {}, nullptr, logs, {kScriptsDir});
    if (expected.torchLogs) unsetenv("TORCH_LOGS");
    for (const auto& [name, setting] : expected.environment) unsetenv(name.c_str());
    if (!expected.errorLines.empty()) {
        EXPECT_FALSE(run.ok) << "the script was expected to raise " << expected.errorLines.back();
        for (const std::string& text : expected.errorLines) EXPECT_NE(run.error.find(text), std::string::npos) << "no '" << text << "' in the traceback:\n" << run.error;
    } else {
        EXPECT_TRUE(run.ok) << run.error;
    }
    EXPECT_EQ(run.out, expected.output) << "printed output of " << GetParam();
    if (expected.graphBreaks) {
        EXPECT_EQ(capturetest::graphBreaks(run), *expected.graphBreaks) << run.logs;
    }
    if (expected.uniqueGraphs) {
        EXPECT_EQ(run.uniqueGraphs, *expected.uniqueGraphs) << run.logs;
    }
    if (expected.recompiles) {
        EXPECT_EQ(run.events.recompiles.size(), *expected.recompiles) << run.logs;
    }
    for (const std::string& text : expected.logLines) EXPECT_NE(run.logs.find(text), std::string::npos) << "no '" << text << "' in the logs:\n" << run.logs;
    for (const std::string& text : expected.absentLogLines) EXPECT_EQ(run.logs.find(text), std::string::npos) << "'" << text << "' in the logs:\n" << run.logs;
    std::string warnings;
    for (const std::string& w : run.events.warnings) warnings += w + "\n";
    if (expected.warnings) {
        EXPECT_EQ(run.events.warnings.size(), *expected.warnings) << "warnings:\n" << warnings;
    }
    for (const std::string& text : expected.warningLines) EXPECT_NE(warnings.find(text), std::string::npos) << "warnings:\n" << warnings;
    std::string code;
    for (const traces::OutputCode& c : run.events.code) code += c.source + "\n";
    for (const std::string& text : expected.codeLines) EXPECT_NE(code.find(text), std::string::npos) << "output code:\n" << code;
    for (const std::string& text : expected.absentCodeLines) EXPECT_EQ(code.find(text), std::string::npos) << "output code:\n" << code;
    for (const auto& [row, text] : expected.codeRowLines) {
        ASSERT_LT(row, run.events.code.size()) << "no output code row " << row << ":\n" << code;
        EXPECT_NE(run.events.code[row].source.find(text), std::string::npos) << "output code row " << row << ":\n" << run.events.code[row].source;
    }
    for (const auto& [count, text] : expected.codeCounts) {
        const size_t rows = std::count_if(run.events.code.begin(), run.events.code.end(),
                                          [&](const traces::OutputCode& c) { return c.source.find(text) != std::string::npos; });
        EXPECT_EQ(rows, count) << "output code rows with '" << text << "':\n" << code;
    }
    if (expected.codeFiles) {
        std::string files;
        for (const traces::OutputCode& c : run.events.code)
            files += (files.empty() ? "" : ", ") + c.filename + (c.kernels.empty() ? "" : " with kernels");
        EXPECT_EQ(files, *expected.codeFiles);
    }
    if (expected.graphNames) {
        std::string names;
        for (const auto& [key, graph] : run.events.graphs) names += (names.empty() ? "" : ", ") + graph.name;
        EXPECT_EQ(names, *expected.graphNames);
    }
    std::string graphCodes;
    for (const std::string& c : run.graphCodes) graphCodes += trimmedCode(c) + "\n\n";
    for (const std::string& text : expected.graphCodeLines)
        EXPECT_NE(graphCodes.find(text), std::string::npos) << "graph code:\n" << graphCodes;
    for (size_t i = 0; i < expected.graphCodes.size(); ++i) {
        ASSERT_LT(i, run.graphCodes.size()) << "expected a graph_code block for more graphs than were compiled";
        EXPECT_EQ(trimmedCode(run.graphCodes[i]), expected.graphCodes[i]) << "graph " << i;
    }
    std::string graphs;
    for (const auto& [key, graph] : run.events.graphs) graphs += graph.text + "\n";
    for (const std::string& text : expected.graphLines) EXPECT_NE(graphs.find(text), std::string::npos) << "graphs:\n" << graphs;
    for (const std::string& text : expected.absentGraphLines) EXPECT_EQ(graphs.find(text), std::string::npos) << "graphs:\n" << graphs;
    if (expected.kernelsAtMost) {
        for (const traces::OutputCode& c : run.events.code) EXPECT_LE(c.kernels.size(), *expected.kernelsAtMost) << c.source;
    }
    if (expected.compiles) {
        std::string compiles;
        for (const traces::Compile& c : run.events.started) {
            compiles += (compiles.empty() ? "" : ", ") + c.key.str() + " " + c.function;
            for (const traces::Compile& done : run.events.finished)
                if (done.key == c.key && done.status != traces::CompileStatus::Ok) compiles += std::string(" ") + traces::toString(done.status);
        }
        EXPECT_EQ(compiles, *expected.compiles);
    }
}

std::string testName(const ::testing::TestParamInfo<fs::path>& info) {
    std::string name = fs::path(info.param).replace_extension().generic_string();
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Scripts, ScriptTest, ::testing::ValuesIn(scripts()), testName);

TEST(ScriptTestRunner, FindsTheScripts) { EXPECT_FALSE(scripts().empty()) << kScriptsDir << " has no .py files"; }

}  // namespace
