// Generators: a call of a function whose code holds `yield` binds its frame and returns a generator; next(),
// send(), throw() and close() run that frame to its next YIELD_VALUE (PEP 255/342/380, PEP 479's
// StopIteration-to-RuntimeError rule), and a `yield from` passes thrown exceptions on to its delegate. One dropped
// before its end is closed then, as CPython's finalizer does.
#include <fmt/core.h>

#include <iostream>

#include "frontend/code_object.h"
#include "frontend/opcodes.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

GeneratorObject* asGenerator(const Value& v) {
    return v.is(Kind::Iterator) ? dynamic_cast<GeneratorObject*>(&v.as<IteratorObject>()) : nullptr;
}

/// The exception instance generator.throw(e) raises: an exception class is instantiated, as Python does.
Value thrownInstance(Interpreter& vm, const Value& exception) {
    Value instance = exception.is(Kind::Class) ? vm.call(exception, {}) : exception;
    if (!instance.is(Kind::Instance) || !vm.isInstance(instance, *vm.builtinClass("BaseException")))
        typeError("exceptions must be classes or instances deriving from BaseException, not " + vm.classOf(exception)->name);
    return instance;
}

/// A finished generator's locals go at once, as CPython clears its frame (its code stays for __name__).
void releaseLocals(Frame& f) {
    f.fast.clear();
    f.cells.clear();
    f.stack.clear();
}

}  // namespace

Value Interpreter::makeGenerator(Frame frame) {
    auto generator = std::make_shared<GeneratorObject>();
    generator->frame = std::move(frame);
    generator->owner = self_;
    GeneratorObject* self = generator.get();  // the generator owns this function: the pointer lives as long
    generator->next = [this, self]() { return resumeGenerator(*self, Value(), std::nullopt); };
    return Value(std::shared_ptr<Object>(std::move(generator)));
}

void Interpreter::raiseStopIteration(const Value& value) {
    Value exception = value.isNone() ? call(Value(classes_.at("StopIteration")), {})
                                     : call(Value(classes_.at("StopIteration")), {value});
    exception.as<InstanceObject>().attributes["value"] = value;
    throw RaisedException(exception);
}

std::optional<Value> Interpreter::resumeGenerator(GeneratorObject& g, const Value& sent, const std::optional<Value>& thrown) {
    if (g.running) raise("ValueError", "generator already executing");
    if (g.finished) {
        if (thrown) throw RaisedException(*thrown);
        return std::nullopt;
    }
    Frame& f = g.frame;
    if (!g.started) {
        if (thrown) {
            g.finished = true;
            throw RaisedException(*thrown);
        }
        if (!sent.isNone()) typeError("can't send non-None value to a just-started generator");
    } else if (thrown) {
        const auto& instructions = f.code->instructions;
        GeneratorObject* delegate = f.pc > 0 && instructions[f.pc - 1].opcode == frontend::Opcode::Send ? asGenerator(f.stack.back()) : nullptr;
        if (delegate) {
            // Paused inside `yield from`: the delegate gets the exception first (PEP 380).
            std::optional<Value> yielded;
            Value raised = Value::null();
            try {
                yielded = resumeGenerator(*delegate, Value(), thrown);
            } catch (...) {
                raised = exceptionFrom(std::current_exception());
            }
            if (raised.isNull()) {
                if (yielded) return yielded;  // the delegate yields again: so does this generator, still paused here
                // The delegate returned: `yield from` has its value, and the frame goes on after the SEND loop.
                f.stack.back() = delegate->returnValue;
                f.pc = instructions[f.pc - 1].arg;
            } else {
                f.pendingThrow = raised;
            }
        } else {
            f.pendingThrow = *thrown;
        }
    } else {
        f.stack.push_back(sent);  // the value of the paused yield expression
        ++f.pc;
    }
    g.started = true;
    g.running = true;
    Value callerHandled = handledException_;
    if (!g.handled.isNone()) handledException_ = g.handled;
    Value result;
    try {
        result = runFrame(f);
    } catch (...) {
        g.running = false;
        g.finished = true;
        handledException_ = callerHandled;
        Value exception = exceptionFrom(std::current_exception());
        releaseLocals(f);
        if (isInstance(exception, *classes_.at("StopIteration"))) {
            // PEP 479: a StopIteration leaking out of the body would end the caller's loop silently.
            Value error = makeException("RuntimeError", "generator raised StopIteration");
            error.as<InstanceObject>().attributes["__cause__"] = exception;
            throw RaisedException(error);
        }
        throw RaisedException(exception);
    }
    g.running = false;
    if (f.suspended) {
        f.suspended = false;
        g.handled = handledException_.identical(callerHandled) ? Value() : handledException_;
        handledException_ = callerHandled;
        return result;
    }
    g.finished = true;
    g.returnValue = result;
    handledException_ = callerHandled;
    releaseLocals(f);
    return std::nullopt;
}

void Interpreter::closeGenerator(GeneratorObject& g) {
    if (!g.started || g.finished) {
        g.finished = true;
        return;
    }
    try {
        if (resumeGenerator(g, Value(), call(Value(builtinClass("GeneratorExit")), {}))) raise("RuntimeError", "generator ignored GeneratorExit");
    } catch (const RaisedException& raised) {
        if (isInstance(raised.exception(), *builtinClass("GeneratorExit")) || isInstance(raised.exception(), *builtinClass("StopIteration")))
            return;
        throw;
    }
}

GeneratorObject::~GeneratorObject() {
    Interpreter* vm = owner ? *owner : nullptr;
    if (!vm || !started || finished || running) return;
    // Only a yield inside a try block (a finally, an except clause, a with-block) has code to run on GeneratorExit.
    bool covered = false;
    for (const auto& entry : frame.code->exceptionTable) covered = covered || (entry.start <= frame.pc && frame.pc < entry.end);
    if (!covered) return;
    try {
        vm->closeGenerator(*this);
    } catch (...) {
        // CPython reports what the finalizer raised and goes on (PyErr_WriteUnraisable).
        std::string name = frame.code ? frame.code->name : "<generator>";
        try {
            std::cerr << "Exception ignored in: <generator object " << name << ">\n" << vm->formatUncaught(std::current_exception());
        } catch (...) {
            std::cerr << "Exception ignored in: <generator object " << name << ">\n";
        }
    }
}

std::optional<Value> generatorAttribute(Interpreter&, const Value& generator, const std::string& name) {
    GeneratorObject* g = asGenerator(generator);
    if (!g) return std::nullopt;
    auto method = [&](auto body) {
        return makeNative(name, [generator, body](Interpreter& m, CallArgs& args) { return body(m, *asGenerator(generator), args); });
    };
    if (name == "__next__")
        return method([](Interpreter& m, GeneratorObject& self, CallArgs&) -> Value {
            if (auto v = m.resumeGenerator(self, Value(), std::nullopt)) return *v;
            m.raiseStopIteration(self.returnValue);
        });
    if (name == "send")
        return method([](Interpreter& m, GeneratorObject& self, CallArgs& args) -> Value {
            if (args.positional.size() != 1) typeError(fmt::format("send() takes exactly one argument ({} given)", args.positional.size()));
            if (auto v = m.resumeGenerator(self, args.positional[0], std::nullopt)) return *v;
            m.raiseStopIteration(self.returnValue);
        });
    if (name == "throw")
        return method([](Interpreter& m, GeneratorObject& self, CallArgs& args) -> Value {
            if (args.positional.empty()) typeError("throw expected at least 1 argument, got 0");
            // throw(type, value): the value is the instance when given.
            const Value& exception = args.positional.size() > 1 && !args.positional[1].isNone() ? args.positional[1] : args.positional[0];
            if (auto v = m.resumeGenerator(self, Value(), thrownInstance(m, exception))) return *v;
            m.raiseStopIteration(self.returnValue);
        });
    if (name == "close")
        return method([](Interpreter& m, GeneratorObject& self, CallArgs&) -> Value {
            m.closeGenerator(self);
            return Value();
        });
    if (name == "__iter__") return makeNative(name, [generator](Interpreter&, CallArgs&) { return generator; });
    if (name == "__name__") return makeStr(g->frame.code ? g->frame.code->name : "<generator>");
    if (name == "gi_running") return Value(g->running);
    return std::nullopt;
}

}  // namespace eng::vm
