// Compiled equals eager: every example and capture program run through the inductor backend (with the reference
// interpreter and LLVM code on the CPU, NVRTC code on a GPU) gives PyTorch's recorded outputs for that device;
// graphs that need autograd run eagerly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

namespace fs = std::filesystem;
using eng::vm::Kind;
using eng::vm::Value;
using nlohmann::json;

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<fs::path> programsIn(const fs::path& folder) {
    std::vector<fs::path> programs;
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().extension() == ".py" && fs::exists(fs::path(entry.path()).replace_extension(".json"))) programs.push_back(entry.path());
    std::sort(programs.begin(), programs.end());
    return programs;
}

double number(const json& j) {
    if (j.is_string()) return j == "nan" ? std::nan("") : (j == "inf" ? INFINITY : -INFINITY);
    return j.get<double>();
}

void expectOutputsMatch(const json& expected, const Value& returned, const std::string& name) {
    std::vector<Value> items;
    if (returned.is(Kind::List) || returned.is(Kind::Tuple))
        items = returned.is(Kind::List) ? returned.as<eng::vm::ListObject>().items : returned.as<eng::vm::TupleObject>().items;
    else items = {returned};
    ASSERT_EQ(items.size(), expected.size()) << name;
    for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is(Kind::Tensor)) continue;
        const auto& t = items[i].tensor();
        EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), expected[i]["shape"].get<std::vector<int64_t>>()) << name << " " << i;
        Value flat = eng::vm::callOp("Tensor.tolist", {eng::vm::callOp("Tensor.reshape", {items[i], Value(-1)})});
        const auto& values = flat.as<eng::vm::ListObject>().items;
        const json& reference = expected[i].contains("values") ? expected[i]["values"] : expected[i]["first64"];
        for (size_t k = 0; k < reference.size(); ++k) {
            double want = number(reference[k]);
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(values[k].asFloat())) << name << " output " << i << " element " << k;
                continue;
            }
            ASSERT_NEAR(values[k].asFloat(), want, 1e-5 + 1e-4 * std::abs(want)) << name << " output " << i << " element " << k;
        }
    }
}

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
            for (const auto& code : run.code) {
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
