// Programs that must fail (tests/data/vm_failures/NAME.py): the VM's traceback must equal NAME.expected, which
// is what CPython 3.12 with PyTorch prints, less the ~~~^^^ position markers that CPython adds under some lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "script_support.h"

namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST(VmFailures, TracebacksMatchPython) {
    const fs::path folder = fs::path(CWB_TEST_DATA_DIR) / "vm_failures";
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.path().extension() != ".py") continue;
        SCOPED_TRACE(entry.path().filename().string());
        auto run = vmtest::runScript(readText(entry.path()), entry.path().filename().string());
        EXPECT_FALSE(run.ok);
        EXPECT_EQ(run.error, readText(fs::path(entry.path()).replace_extension(".expected")));
        ++checked;
    }
    EXPECT_GE(checked, 4);
}
