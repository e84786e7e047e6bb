// Errors raised by the tensor runtime. Each carries the Python exception class PyTorch would raise, so the VM
// can surface RuntimeError / IndexError / TypeError / ValueError with PyTorch's message text.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace eng::tensor {

enum class ErrorKind { Runtime, Index, Type, Value, NotImplemented, ZeroDivision };

class TensorError : public std::runtime_error {
public:
    TensorError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const { return kind_; }
    // "RuntimeError", "IndexError", ...: the Python class name for tracebacks.
    std::string_view pythonClass() const;

private:
    ErrorKind kind_;
};

/// The allocator found no memory: PyTorch's RuntimeError "DefaultCPUAllocator: can't allocate memory". Its own type so
/// that the capture can tell running out of memory (no property of the instruction) from an op's error.
class AllocationError : public TensorError {
public:
    explicit AllocationError(const std::string& message) : TensorError(ErrorKind::Runtime, message) {}
};

[[noreturn]] void fail(ErrorKind kind, const std::string& message);
inline void check(bool condition, ErrorKind kind, const std::string& message) {
    if (!condition) fail(kind, message);
}

}  // namespace eng::tensor
