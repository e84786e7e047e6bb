// Compiled equals eager: every example and capture program run through the inductor backend (with the reference
// interpreter and LLVM code on the CPU, NVRTC code on a GPU) gives PyTorch's recorded outputs for that device;
// graphs that need autograd run eagerly.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../../example_programs.h"
#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using exampletest::expectOutputsMatch;
using exampletest::programsIn;
using exampletest::readText;

void runAll(bool interpreter, const std::string& device = "cpu") {
    inductortest::useInterpreter(interpreter);
    int programs = 0, compiled = 0;
    for (const char* folder : {"examples", "capture_programs"}) {
        for (const fs::path& program : programsIn(fs::path(CWB_TEST_DATA_DIR) / folder)) {
            const std::string name = program.stem().string();
            SCOPED_TRACE(name);
            json truth = json::parse(readText(fs::path(program).replace_extension(".json")));
            if (!truth.contains(device) || !truth[device].contains("outputs")) continue;
            std::string filename = "corpus/programs/" + program.filename().string();
            inductortest::InductorRun run = inductortest::runInductor(readText(program), "main", {eng::vm::makeStr(device)}, filename);
            ++programs;
            compiled += inductortest::compiledGraphs(run);
            ASSERT_TRUE(run.ok) << run.error;
            expectOutputsMatch(truth[device]["outputs"], run.returned, name);
            EXPECT_EQ(run.out, truth[device]["stdout"].get<std::string>());
            for (const auto& code : run.events.code) {
                if (code.filename == "cwb_inductor_output_code") continue;
                EXPECT_NE(code.source.find("require grad"), std::string::npos) << "only autograd graphs may run eagerly:\n" << code.source;
            }
        }
    }
    EXPECT_GE(programs, 20);
    EXPECT_GE(compiled, 20);
}

TEST(InductorExamples, CompiledEqualsEagerWithTheReferenceInterpreter) { runAll(true); }

TEST(InductorExamples, CompiledEqualsEagerWithNativeCode) { runAll(false); }

TEST(InductorExamples, CompiledEqualsEagerOnCuda) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    runAll(false, "cuda");
}

}  // namespace
