// Running a script the way `cwb run` and `cwb explain` both do (script_entry.h).
#include "commands/script_entry.h"

#include <fmt/core.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cuda/device_context.h"

namespace cwb {

std::string readScript(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read the script");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

namespace {

/// The memory the system can give without swapping (MemAvailable), in bytes; 0 when unknown.
uint64_t availableMemory() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kilobytes = 0;
    std::string unit;
    while (meminfo >> key >> kilobytes >> unit)
        if (key == "MemAvailable:") return kilobytes << 10;
    return 0;
}

/// A script that allocates without end must end with Python's MemoryError (or PyTorch's "DefaultCPUAllocator:
/// can't allocate memory"), not be killed by the kernel's out-of-memory killer: the data segment is capped at the
/// memory available when it starts. CWB_MEMORY_LIMIT_MB sets the cap (0: none). CPU runs only: the CUDA driver's
/// host mappings are not ours to limit.
void capScriptMemory(const std::string& device) {
    uint64_t limit = 0;
    if (const char* env = std::getenv("CWB_MEMORY_LIMIT_MB")) limit = std::strtoull(env, nullptr, 10) << 20;
    else if (device.rfind("cpu", 0) == 0) limit = availableMemory();
    if (limit == 0) return;
    rlimit current{};
    if (getrlimit(RLIMIT_DATA, &current) != 0 || current.rlim_cur <= limit) return;
    current.rlim_cur = std::min<rlim_t>(limit, current.rlim_max);
    setrlimit(RLIMIT_DATA, &current);
}

/// PYTHONPATH's directories (colon-separated, empty entries skipped), searched for the program's own modules
/// after the script's directory as Python does.
std::vector<std::filesystem::path> pythonPath() {
    std::vector<std::filesystem::path> directories;
    const char* env = std::getenv("PYTHONPATH");
    std::istringstream entries(env ? env : "");
    for (std::string entry; std::getline(entries, entry, ':');)
        if (!entry.empty()) directories.emplace_back(entry);
    return directories;
}

}  // namespace

EntryResult runModuleAndEntry(eng::vm::Interpreter& vm, const ScriptEntry& entry, const std::string& text) {
    capScriptMemory(entry.device);
    vm.setModuleSearchPath(pythonPath());
    eng::vm::RunResult result = vm.runScript(entry.script, text);
    if (!result.ok) {
        std::cout.flush();
        fmt::print(stderr, "{}", result.error);
        return {1, std::nullopt};
    }
    std::string name = entry.call.empty() ? "main" : entry.call;
    std::optional<eng::vm::Value> function = vm.global(name);
    if (!function && !entry.call.empty()) {
        fmt::print(stderr, "{}: the script defines no '{}'\n", entry.script, name);
        return {1, std::nullopt};
    }
    try {
        // Scripts without main(device) are plain programs: running the module was the whole job.
        std::optional<eng::vm::Value> returned;
        if (function) returned = vm.call(*function, {eng::vm::makeStr(entry.device)});
        // The end of the program is a synchronisation point: a device-side assertion that no copy or synchronize
        // raised yet (a cuda loss with a target out of range) is raised now, as an uncaught error.
        eng::cuda::DeviceContext::synchronizeStarted();
        return {0, std::move(returned)};
    } catch (...) {
        std::cout.flush();
        fmt::print(stderr, "{}", vm.formatUncaught(std::current_exception()));
        return {1, std::nullopt};
    }
}

}  // namespace cwb
