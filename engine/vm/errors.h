// How Python exceptions travel through the VM's C++ code: RaisedException carries an exception instance,
// VmError is the cheap form native code throws ("TypeError", message) and the interpreter turns into one.
#pragma once

#include <stdexcept>
#include <string>

#include "vm/value.h"

namespace eng::vm {

class VmError : public std::runtime_error {
public:
    VmError(std::string pythonClass, const std::string& message)
        : std::runtime_error(message), pythonClass_(std::move(pythonClass)) {}
    const std::string& pythonClass() const { return pythonClass_; }

private:
    std::string pythonClass_;
};

/// A raised exception instance (an InstanceObject of a BaseException subclass).
class RaisedException : public std::exception {
public:
    explicit RaisedException(Value exception) : exception_(std::move(exception)) {}
    const Value& exception() const { return exception_; }
    const char* what() const noexcept override { return "python exception"; }

private:
    Value exception_;
};

[[noreturn]] inline void raise(std::string pythonClass, const std::string& message) {
    throw VmError(std::move(pythonClass), message);
}
[[noreturn]] inline void typeError(const std::string& message) { raise("TypeError", message); }

}  // namespace eng::vm
