// Python warnings raised by native code (PyTorch's FutureWarning and UserWarning texts), shown as CPython's default
// filter shows them.
#pragma once

#include <string>

namespace eng::vm {

class Interpreter;
/// A warning of `category` ("UserWarning", "FutureWarning"), shown once per message and calling line on stderr as
/// `file:line: Category: message` and the line's source.
void showWarning(Interpreter& vm, const std::string& category, const std::string& message);

}  // namespace eng::vm
