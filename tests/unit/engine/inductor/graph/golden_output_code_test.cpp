// The output code of every example and capture program, kept as golden files (tests/golden/inductor/NAME.txt):
// each compile's call() wrapper and the kernel IR of each of its kernels, so that any change to lowering, fusion
// or the kernel IR shows as a diff in review. Compile times are left out. After an intended change, rewrite them:
//   CWB_UPDATE_GOLDEN=1 build/tests/engine_inductor_tests --gtest_filter='InductorGolden.*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../example_programs.h"
#include "inductor_support.h"

namespace {

namespace fs = std::filesystem;

const fs::path kGoldenDir = fs::path(CWB_TEST_DATA_DIR).parent_path() / "golden" / "inductor";

/// The wrapper without what changes from run to run (compile times, the debug trace's folder).
std::string stableLines(const std::string& text) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line)) {
        if (line.starts_with("# compiled in ") || line.starts_with("# debug trace written to ")) continue;
        out += line + "\n";
    }
    return out;
}

std::string goldenText(const fs::path& program, const inductortest::InductorRun& run) {
    std::string text = "# output code of tests/data/" + program.parent_path().filename().string() + "/" + program.filename().string() +
                       " (CWB_INDUCTOR_CODEGEN=interpreter)\n";
    int compile = 0;
    for (const auto& code : run.events.code) {
        text += "\n# ---- compile " + std::to_string(++compile) + " (" + code.filename + ")\n" + stableLines(code.source);
        for (const auto& kernel : code.kernels)
            text += "\n# ---- kernel " + kernel.name + " (" + kernel.language + ")\n" + kernel.source + (kernel.source.ends_with("\n") ? "" : "\n");
    }
    return text;
}

TEST(InductorGolden, OutputCodeOfEveryExampleProgram) {
    inductortest::useInterpreter(true);
    const bool update = std::getenv("CWB_UPDATE_GOLDEN") != nullptr;
    int checked = 0;
    for (const char* folder : {"examples", "capture_programs"}) {
        for (const fs::path& program : exampletest::programsIn(fs::path(CWB_TEST_DATA_DIR) / folder)) {
            SCOPED_TRACE(program.string());
            inductortest::InductorRun run =
                inductortest::runInductor(exampletest::readText(program), "main", {eng::vm::makeStr("cpu")},
                                          "corpus/programs/" + program.filename().string());
            ASSERT_TRUE(run.ok) << run.error;
            if (run.events.code.empty()) continue;  // nothing compiled (a program of graph breaks only)
            const std::string text = goldenText(program, run);
            const fs::path golden = kGoldenDir / (std::string(folder) + "_" + program.stem().string() + ".txt");
            if (update) {
                fs::create_directories(kGoldenDir);
                std::ofstream(golden, std::ios::binary) << text;
            } else {
                ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; rewrite the golden files with CWB_UPDATE_GOLDEN=1";
                EXPECT_EQ(exampletest::readText(golden), text)
                    << golden << " differs from the output code; after an intended change rewrite it with CWB_UPDATE_GOLDEN=1";
            }
            ++checked;
        }
    }
    EXPECT_GE(checked, 20);
}

}  // namespace
