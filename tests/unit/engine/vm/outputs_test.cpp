// The `cwb run --outputs` JSON: the fields and value forms of ../shared/examples/*.json "outputs".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../test_programs.h"
#include "vm/outputs.h"

namespace {

nlohmann::json outputsOf(const std::string& source) {
    std::ostringstream out;
    eng::vm::Interpreter vm(out);
    EXPECT_TRUE(vm.runScript("x.py", source).ok);
    eng::vm::Value returned = vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")});
    return nlohmann::json::parse(eng::vm::outputsJson(vm, returned));
}

}  // namespace

TEST(VmOutputs, TensorSummariesFollowTheGroundTruthFormat) {
    nlohmann::json outputs = outputsOf(enginetest::testProgram("vm/outputs_in_the_ground_truth_format.py"));
    ASSERT_EQ(outputs.size(), 4u);
    const auto& a = outputs[0];
    EXPECT_EQ(a["kind"], "tensor");
    EXPECT_EQ(a["shape"], nlohmann::json::parse("[3, 2]"));
    EXPECT_EQ(a["stride"], nlohmann::json::parse("[1, 3]"));
    EXPECT_EQ(a["dtype"], "float32");
    EXPECT_EQ(a["values"], nlohmann::json::parse("[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]"));
    EXPECT_DOUBLE_EQ(a["sum"].get<double>(), 15.0);
    EXPECT_DOUBLE_EQ(a["max"].get<double>(), 5.0);
    EXPECT_EQ(outputs[1]["values"], nlohmann::json::parse(R"([1.0, "nan", "-inf"])"));
    EXPECT_EQ(outputs[2]["dtype"], "int64");
    EXPECT_FALSE(outputs[2].contains("values"));
    EXPECT_EQ(outputs[2]["first64"].size(), 64u);
    EXPECT_EQ(outputs[2]["sum"].get<int64_t>(), 4999 * 5000 / 2);
    EXPECT_EQ(outputs[3]["values"], nlohmann::json::parse("[true, false]"));
}
