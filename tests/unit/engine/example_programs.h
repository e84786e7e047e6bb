// The test programs with real PyTorch ground truth (tests/data/examples, tests/data/capture_programs): listing
// them, reading them, and checking main()'s returned tensors against the outputs PyTorch recorded.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "vm/value.h"

namespace exampletest {

inline std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The .py programs of `folder` that have a ground-truth .json beside them, in name order.
inline std::vector<std::filesystem::path> programsIn(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> programs;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().extension() == ".py" && std::filesystem::exists(std::filesystem::path(entry.path()).replace_extension(".json")))
            programs.push_back(entry.path());
    std::sort(programs.begin(), programs.end());
    return programs;
}

/// A recorded number: JSON numbers, or "nan"/"inf"/"-inf" strings.
inline double recordedNumber(const nlohmann::json& j) {
    if (j.is_string()) return j == "nan" ? std::nan("") : (j == "inf" ? INFINITY : -INFINITY);
    return j.get<double>();
}

/// main() returned a list of tensors equal (shape, then values within 1e-5 + 1e-4 relative) to `expected`.
inline void expectOutputsMatch(const nlohmann::json& expected, const eng::vm::Value& returned, const std::string& name) {
    using eng::vm::Kind;
    using eng::vm::Value;
    ASSERT_TRUE(returned.is(Kind::List)) << name;
    const auto& items = returned.as<eng::vm::ListObject>().items;
    ASSERT_EQ(items.size(), expected.size()) << name;
    for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_TRUE(items[i].is(Kind::Tensor)) << name;
        const auto& t = items[i].tensor();
        EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), expected[i]["shape"].get<std::vector<int64_t>>()) << name << " " << i;
        Value flat = eng::vm::callOp("Tensor.tolist", {eng::vm::callOp("Tensor.reshape", {items[i], Value(-1)})});
        const auto& values = flat.as<eng::vm::ListObject>().items;
        const nlohmann::json& reference = expected[i].contains("values") ? expected[i]["values"] : expected[i]["first64"];
        for (size_t k = 0; k < reference.size(); ++k) {
            double want = recordedNumber(reference[k]);
            ASSERT_NEAR(values[k].asFloat(), want, 1e-5 + 1e-4 * std::abs(want)) << name << " output " << i << " element " << k;
        }
    }
}

}  // namespace exampletest
