// The builtin exception hierarchy, the conversion of C++ errors (VmError, TensorError) into exception
// instances, and the Python-style traceback printed for uncaught exceptions.
#include <fmt/core.h>

#include <new>

#include "frontend/source.h"
#include "tensor/error.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

// Child, parent: parents come first so that each base exists when its subclasses are made.
constexpr std::pair<const char*, const char*> kExceptionClasses[] = {
    {"BaseException", "object"},
    {"Exception", "BaseException"},
    {"KeyboardInterrupt", "BaseException"},
    {"GeneratorExit", "BaseException"},
    {"StopIteration", "Exception"},
    {"ArithmeticError", "Exception"},
    {"ZeroDivisionError", "ArithmeticError"},
    {"OverflowError", "ArithmeticError"},
    {"AssertionError", "Exception"},
    {"AttributeError", "Exception"},
    {"ImportError", "Exception"},
    {"ModuleNotFoundError", "ImportError"},
    {"LookupError", "Exception"},
    {"IndexError", "LookupError"},
    {"KeyError", "LookupError"},
    {"NameError", "Exception"},
    {"UnboundLocalError", "NameError"},
    {"RuntimeError", "Exception"},
    {"NotImplementedError", "RuntimeError"},
    {"RecursionError", "RuntimeError"},
    {"MemoryError", "Exception"},
    {"TypeError", "Exception"},
    {"ValueError", "Exception"},
};

}  // namespace

void installExceptions(Interpreter& vm, Namespace& builtins) {
    for (const auto& [name, parent] : kExceptionClasses) {
        auto cls = vm.defineClass(name, parent);
        builtins[name] = Value(cls);
    }
    auto base = vm.builtinClass("BaseException");
    // Unset chaining reads as Python's defaults (class attributes; raising and chaining set the instance's own).
    base->dict["__cause__"] = Value();
    base->dict["__context__"] = Value();
    base->dict["__suppress_context__"] = Value(false);
    base->dict["__init__"] = makeNative("__init__", [](Interpreter&, CallArgs& args) {
        auto& self = args.positional.at(0).as<InstanceObject>();
        self.attributes["args"] = makeTuple(ValueList(args.positional.begin() + 1, args.positional.end()));
        return Value();
    });
}

Value Interpreter::makeException(const std::string& className, const std::string& message) {
    auto it = classes_.find(className);
    auto cls = it != classes_.end() ? it->second : classes_.at("RuntimeError");
    return call(Value(cls), {makeStr(message)});
}

void Interpreter::raiseKeyError(const Value& key) { throw RaisedException(call(Value(classes_.at("KeyError")), {key})); }

Value Interpreter::exceptionFrom(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const RaisedException& raised) {
        return raised.exception();
    } catch (const VmError& vmError) {
        return makeException(vmError.pythonClass(), vmError.what());
    } catch (const tensor::TensorError& tensorError) {
        return makeException(std::string(tensorError.pythonClass()), tensorError.what());
    } catch (const std::bad_alloc&) {
        // Python raises MemoryError without a message when an allocation fails.
        return call(Value(classes_.at("MemoryError")), {});
    } catch (const std::exception& other) {
        return makeException("RuntimeError", fmt::format("internal error: {}", other.what()));
    }
}

std::string Interpreter::sourceLine(const std::string& filename, int line) const {
    auto it = sources_.find(filename);
    if (it == sources_.end()) return "";
    std::string_view text = it->second->lineText(line);
    size_t start = text.find_first_not_of(" \t");
    return start == std::string_view::npos ? "" : std::string(text.substr(start));
}

namespace {

constexpr const char* kCauseSeparator = "\nThe above exception was the direct cause of the following exception:\n\n";
constexpr const char* kContextSeparator = "\nDuring handling of the above exception, another exception occurred:\n\n";

}  // namespace

std::string Interpreter::formatException(const Value& exception, int depth) {
    auto& instance = exception.as<InstanceObject>();
    std::string text;
    // Chained exceptions print first, as CPython does (bounded, in case of a cycle).
    auto chained = [&](const char* key) -> std::optional<Value> {
        auto it = instance.attributes.find(key);
        if (it == instance.attributes.end() || !it->second.is(Kind::Instance)) return std::nullopt;
        return it->second;
    };
    if (depth < 16) {
        auto suppressed = instance.attributes.find("__suppress_context__");
        bool suppress = suppressed != instance.attributes.end() && suppressed->second.asBool();
        if (auto cause = chained("__cause__")) {
            text += formatException(*cause, depth + 1) + kCauseSeparator;
        } else if (auto context = chained("__context__"); context && !suppress) {
            text += formatException(*context, depth + 1) + kContextSeparator;
        }
    }
    if (!instance.traceback.empty()) {
        text += "Traceback (most recent call last):\n";
        for (const TracebackEntry& entry : instance.traceback) {
            text += fmt::format("  File \"{}\", line {}, in {}\n", entry.filename, entry.line, entry.function);
            std::string line = sourceLine(entry.filename, entry.line);
            if (!line.empty()) text += "    " + line + "\n";
        }
    }
    const ClassObject& cls = *instance.cls;
    std::string name = cls.module == "builtins" ? cls.name : cls.module + "." + cls.name;
    std::string message = str(exception);
    text += message.empty() ? name + "\n" : name + ": " + message + "\n";
    return text;
}

std::string Interpreter::formatUncaught(std::exception_ptr error) { return formatException(exceptionFrom(std::move(error)), 0); }

}  // namespace eng::vm
