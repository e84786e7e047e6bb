// A program imports its own modules and packages from the directory of its script, as Python does with the
// script's directory first on sys.path, then the module search path (PYTHONPATH's directories for `cwb run`).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "script_support.h"

namespace {

namespace fs = std::filesystem;

void writeFile(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

TEST(VmImports, SiblingModulesAndPackagesBesideTheScript) {
    fs::path dir = fs::temp_directory_path() / ("cwb_imports_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::remove_all(dir);
    writeFile(dir / "model.py", "from dataclasses import dataclass\n\n@dataclass\nclass Config:\n    width: int = 4\n\ndef name():\n    return __name__\n");
    writeFile(dir / "pkg" / "__init__.py", "VERSION = 2\n");
    writeFile(dir / "pkg" / "utils.py", "from pkg import VERSION\n\nclass CfgNode:\n    version = VERSION\n");
    const std::string script =
        "import model\n"
        "from model import Config\n"
        "from pkg.utils import CfgNode\n"
        "import pkg.utils\n"
        "print(Config(), model.name(), CfgNode.version, pkg.utils.CfgNode is CfgNode, pkg.VERSION)\n"
        "try:\n"
        "    import not_there\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e)\n";
    auto run = vmtest::runScript(script, (dir / "main.py").string());
    EXPECT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "Config(width=4) model 2 True 2\nNo module named 'not_there'\n");
    fs::remove_all(dir);
}

TEST(VmImports, ModuleSearchPathComesAfterTheScriptsDirectory) {
    fs::path dir = fs::temp_directory_path() / ("cwb_import_path_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::remove_all(dir);
    writeFile(dir / "lib" / "shared" / "__init__.py", "");
    writeFile(dir / "lib" / "shared" / "helpers.py", "def where():\n    return 'lib'\n");
    writeFile(dir / "lib" / "beside.py", "WHERE = 'lib'\n");
    writeFile(dir / "app" / "beside.py", "WHERE = 'app'\n");
    const std::string script =
        "from shared.helpers import where\n"
        "import beside\n"
        "print(where(), beside.WHERE)\n";
    std::ostringstream out;
    eng::vm::Interpreter vm(out);
    vm.setModuleSearchPath({dir / "lib"});
    eng::vm::RunResult result = vm.runScript((dir / "app" / "main.py").string(), script);
    EXPECT_TRUE(result.ok) << result.error;
    EXPECT_EQ(out.str(), "lib app\n");
    fs::remove_all(dir);
}

}  // namespace
