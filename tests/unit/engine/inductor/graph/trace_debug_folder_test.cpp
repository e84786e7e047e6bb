// The inductor option trace.enabled writes the output code, kernels and fusion diagram to disk (the programs that
// check the other modes and options are in tests/scripts/inductor/options/).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "inductor_support.h"

namespace {

namespace fs = std::filesystem;

TEST(InductorOptions, TraceEnabledWritesTheDebugFolder) {
    fs::path work = fs::temp_directory_path() / "cwb_inductor_trace_test";
    fs::remove_all(work);
    fs::create_directories(work);
    fs::path previous = fs::current_path();
    fs::current_path(work);
    auto run = inductortest::runInductor(enginetest::testProgram("inductor/trace_enabled_with_a_graph_diagram.py"), "main", {});
    fs::current_path(previous);
    ASSERT_TRUE(run.ok) << run.error;
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(work / "torch_compile_debug"))
        if (entry.is_regular_file()) files.push_back(entry.path().filename());
    auto has = [&](const std::string& name) { return std::find(files.begin(), files.end(), fs::path(name)) != files.end(); };
    EXPECT_TRUE(has("output_code.py"));
    EXPECT_TRUE(has("fusion.dot"));
    EXPECT_TRUE(has(run.events.code.at(0).kernels.at(0).name + ".ll")) << run.events.code.at(0).kernels.at(0).name;
    fs::remove_all(work);
}

}  // namespace
