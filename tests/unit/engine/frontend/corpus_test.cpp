// Real programs through the whole front end: ../shared/examples (skipped when absent, as in CI), the programs
// behind the bundled torch traces, and the subset tour. Each must parse, compile and verify.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/verifier.h"
#include "frontend_test_support.h"

using namespace eng::frontend;
namespace fs = std::filesystem;

namespace {

const fs::path kShared = CWB_SHARED_DIR;
const fs::path kTestData = CWB_TEST_DATA_DIR;

std::vector<fs::path> pythonFilesIn(const fs::path& dir) {
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".py") out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void countCode(const CodeObject& code, int& count) {
    ++count;
    for (const auto& nested : code.nestedCode()) countCode(*nested, count);
}

/// Compiles one file and checks what every consumer relies on; returns the number of code objects.
int checkProgram(const fs::path& path) {
    SCOPED_TRACE(path.string());
    SourceFile file(path.filename().string(), readFile(path));
    auto code = compileSource(file);
    if (!code) {
        ADD_FAILURE() << code.error().render();
        return 0;
    }
    EXPECT_EQ(verifyCodeTree(**code), std::vector<std::string>{});
    std::string listing = disassemble(**code, DisassemblyOptions{true, true});
    EXPECT_EQ(listing.find("(?)"), std::string::npos) << "an operand did not decode";
    // Every instruction points into the file.
    auto checkLines = [&](auto& self, const CodeObject& c) -> void {
        for (const auto& entry : c.lineTable.entries()) {
            EXPECT_GE(entry.range.begin.line, 1) << c.qualifiedName;
            EXPECT_LE(entry.range.end.line, file.lineCount()) << c.qualifiedName;
        }
        for (const auto& nested : c.nestedCode()) self(self, *nested);
    };
    checkLines(checkLines, **code);
    int count = 0;
    countCode(**code, count);
    return count;
}

}  // namespace

TEST(FrontendCorpus, SharedExamplesCompileAndVerify) {
    auto files = pythonFilesIn(kShared / "examples");
    if (files.empty()) GTEST_SKIP() << "no ../shared/examples here";
    for (const fs::path& file : files) EXPECT_GT(checkProgram(file), 1);
}

TEST(FrontendCorpus, TraceProgramsCompileAndVerify) {
    auto files = pythonFilesIn(kTestData / "torch_traces" / "programs");
    ASSERT_FALSE(files.empty());
    for (const fs::path& file : files) EXPECT_GT(checkProgram(file), 1);
}

TEST(FrontendCorpus, SubsetTourCompilesAndVerifies) {
    fs::path tour = kTestData / "engine" / "subset_tour.py";
    ASSERT_TRUE(fs::exists(tour));
    // module, 2 classes with 3 methods, 12 functions, 1 nested function, 2 lambdas, 4 comprehensions
    EXPECT_EQ(checkProgram(tour), 25);
}

TEST(FrontendCorpus, ExampleShapesCompileToTheExpectedCalls) {
    auto files = pythonFilesIn(kShared / "examples");
    if (files.empty()) GTEST_SKIP() << "no ../shared/examples here";
    auto code = frontendtest::compileOrFail(readFile(kShared / "examples" / "16_mlp_module.py"));
    auto forward = frontendtest::findCode(code, "forward");
    ASSERT_TRUE(forward);
    EXPECT_EQ(frontendtest::listing(*forward),
              "LOAD_FAST self\nLOAD_METHOD fc2\nLOAD_FAST self\nLOAD_METHOD act\nLOAD_FAST self\nLOAD_METHOD "
              "fc1\nLOAD_FAST x\n"
              "CALL 1\nCALL 1\nCALL 1\nRETURN_VALUE\n");
}
