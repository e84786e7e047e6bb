// torch.compile's modes and options with the inductor backend: unknown or unsupported options are refused when
// torch.compile is called, in PyTorch's wording; reduce-overhead and max-autotune say what they skipped on the
// CPU; trace.enabled writes the output code, kernels and fusion diagram to disk.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "inductor_support.h"

namespace {

namespace fs = std::filesystem;

std::string program(const std::string& compileArgs) {
    return "import torch\n\ndef f(x):\n    return torch.sin(x) * 2\n\ng = torch.compile(f, " + compileArgs +
           ")\n\ndef main():\n    x = torch.arange(8.0)\n    return [g(x), f(x)]\n";
}

TEST(InductorOptions, UnknownOptionsAreRefusedAtCompileTime) {
    auto run = inductortest::runInductor(program("options={'max_autotunes': True}"), "main", {});
    ASSERT_FALSE(run.ok);
    EXPECT_NE(run.error.find("RuntimeError: Unexpected optimization option max_autotunes, known options are ['max_autotune'"), std::string::npos)
        << run.error;
}

TEST(InductorOptions, WrongTypesAreRefused) {
    auto run = inductortest::runInductor(program("options={'max_autotune': 1}"), "main", {});
    ASSERT_FALSE(run.ok);
    EXPECT_NE(run.error.find("Unexpected type of attr max_autotune, got int should be bool"), std::string::npos) << run.error;
}

TEST(InductorOptions, OptionsCwbCannotHonourSayWhy) {
    auto run = inductortest::runInductor(program("options={'shape_padding': True}"), "main", {});
    ASSERT_FALSE(run.ok);
    EXPECT_NE(run.error.find("cwb cannot honour the inductor option shape_padding=True"), std::string::npos) << run.error;
    EXPECT_TRUE(inductortest::runInductor(program("options={'shape_padding': False}"), "main", {}).ok);
}

TEST(InductorModes, ReduceOverheadOnTheCpuRecordsPyTorchsSkipReason) {
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(program("mode='reduce-overhead'"), "main", {});
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_EQ(run.events.code.size(), 1u);
    EXPECT_NE(run.events.code[0].source.find("skipping cudagraphs due to cpu device (arg0_1)"), std::string::npos) << run.events.code[0].source;
}

TEST(InductorModes, MaxAutotuneOnTheCpuRecordsTheSkip) {
    auto run = inductortest::runInductor(program("mode='max-autotune-no-cudagraphs'"), "main", {});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_NE(run.events.code.at(0).source.find("max-autotune: skipped on the cpu"), std::string::npos);
    EXPECT_EQ(run.events.code.at(0).source.find("cudagraphs"), std::string::npos) << "no-cudagraphs means no cudagraphs";
}

TEST(InductorOptions, TraceEnabledWritesTheDebugFolder) {
    fs::path work = fs::temp_directory_path() / "cwb_inductor_trace_test";
    fs::remove_all(work);
    fs::create_directories(work);
    fs::path previous = fs::current_path();
    fs::current_path(work);
    auto run = inductortest::runInductor(program("options={'trace.enabled': True, 'trace.graph_diagram': True}"), "main", {});
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
