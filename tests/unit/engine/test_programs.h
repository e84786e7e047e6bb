// The Python programs that C++ tests drive through an engine interface (a frame hook, a sink's events, a trace
// recorder, the kernel cache) live as files under tests/data/engine/programs/, not as C++ strings.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace enginetest {

/// The text of tests/data/engine/programs/<name> (empty, with a test failure, when it cannot be read).
inline std::string testProgram(const std::string& name) {
    const std::filesystem::path path = std::filesystem::path(CWB_TEST_DATA_DIR) / "engine" / "programs" / name;
    std::ifstream in(path, std::ios::binary);
    if (!in) ADD_FAILURE() << "cannot read the test program " << path;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace enginetest
