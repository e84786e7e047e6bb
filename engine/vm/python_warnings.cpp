// showWarning (python_warnings.h): a Python warning raised by native code, shown as CPython's default filter
// shows it, once per message and calling line.
#include "vm/python_warnings.h"

#include <fmt/core.h>

#include <iostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "vm/interpreter.h"

namespace eng::vm {

void showWarning(Interpreter& vm, const std::string& category, const std::string& message) {
    static std::set<std::tuple<std::string, int, std::string, std::string>> shown;
    const std::vector<TracebackEntry> stack = vm.callStack();
    const std::string file = stack.empty() ? "<unknown>" : stack.back().filename;
    const int line = stack.empty() ? 0 : stack.back().line;
    if (!shown.insert({file, line, category, message}).second) return;
    std::cerr << fmt::format("{}:{}: {}: {}\n", file, line, category, message);
    if (std::string source = vm.sourceLine(file, line); !source.empty()) std::cerr << "  " << source << "\n";
}


}  // namespace eng::vm
