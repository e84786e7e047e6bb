// Exceptions raised and caught inside the trace (Dynamo's exception handling since 3.11): `raise` of an exception
// object made in the frame unwinds the traced frames through their exception tables, `except` clauses match by
// class, and `raise ... from ...` / implicit chaining set __cause__ / __context__ on the traced object. An
// exception no traced handler catches leaves the compiled frame: the graph breaks at the root instruction and the
// interpreter raises it for real ("Observed exception").
#include <fmt/core.h>

#include "capture/symbolic_eval.h"

namespace eng::capture {

namespace {

bool isExceptionClass(Tracer& tracer, const vm::Value& value) {
    return value.is(vm::Kind::Class) && value.as<vm::ClassObject>().isSubclassOf(*tracer.vm().builtinClass("BaseException"));
}

/// The classes an except clause names: a class or a tuple of classes, all constants.
std::vector<vm::Value> clauseClasses(Tracer& tracer, const VarRef& type) {
    std::vector<vm::Value> classes;
    if (type->kind == Variable::Kind::Tuple) {
        for (const VarRef& item : type->items) {
            if (!tracer.isConstant(item)) tracer.unsupported("Unsupported except clause", "An except clause names a traced value.", {}, "CHECK_EXC_MATCH");
            classes.push_back(item->value);
        }
    } else if (tracer.isConstant(type) && type->value.is(vm::Kind::Tuple)) {
        classes = type->value.as<vm::TupleObject>().items;
    } else if (tracer.isConstant(type)) {
        classes.push_back(type->value);
    } else {
        tracer.unsupported("Unsupported except clause", "An except clause names a traced value.", {}, "CHECK_EXC_MATCH");
    }
    for (const vm::Value& c : classes)
        if (!isExceptionClass(tracer, c)) vm::typeError("catching classes that do not inherit from BaseException is not allowed");
    return classes;
}

}  // namespace

bool isTracedException(Tracer& tracer, const VarRef& v) {
    return v->kind == Variable::Kind::Object && isExceptionClass(tracer, vm::Value(v->value.as<vm::InstanceObject>().cls));
}

VarRef constructException(Tracer& tracer, TraceFrame& frame, const VarRef& cls, std::vector<VarRef> args,
                          std::vector<std::pair<std::string, VarRef>> kwargs) {
    auto classRef = cls->value.ref<vm::ClassObject>();
    tracer.guardValue(cls);
    auto object = std::make_shared<Variable>();
    object->kind = Variable::Kind::Object;
    object->value = vm::Value(std::make_shared<vm::InstanceObject>(classRef));
    object->fresh = true;
    object->classSource = cls->source;
    tracer.keepAlive(object->value);
    for (const char* name : {"__cause__", "__context__"}) tracer.storeObjectAttr(object, name, tracer.constant(vm::Value()));
    tracer.storeObjectAttr(object, "__suppress_context__", tracer.constant(vm::Value(false)));
    std::optional<vm::Value> init = classRef->lookup("__init__");
    if (init && init->is(vm::Kind::Function)) {
        // A user __init__ is inlined (its super().__init__(...) reaches BaseException's, which Dynamo does not trace).
        VarRef result = tracer.inlineFunction(frame, *init, std::move(args), std::move(kwargs), object);
        if (!(result->kind == Variable::Kind::Python && result->value.isNone()))
            vm::typeError(fmt::format("__init__() should return None, not '{}'", tracer.vm().classOf(tracer.exampleOf(result))->name));
        return object;
    }
    if (!kwargs.empty()) vm::typeError(fmt::format("{}() takes no keyword arguments", classRef->name));
    // BaseException.__init__: the arguments become `args`.
    tracer.storeObjectAttr(object, "args", container(Variable::Kind::Tuple, std::move(args)));
    return object;
}

bool evaluateExceptionInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in) {
    using frontend::Opcode;
    auto& stack = frame.stack;
    switch (in.opcode) {
        case Opcode::RaiseVarargs: {
            if (in.arg == 0) {
                // A bare `raise` re-raises the exception being handled.
                if (!tracer.handledException()) unsupportedInstruction(tracer, in);
                throw TracedRaise{tracer.handledException()};
            }
            VarRef cause = in.arg == 2 ? popVar(frame) : nullptr;
            VarRef exception = popVar(frame);
            if (exception->kind == Variable::Kind::Python && isExceptionClass(tracer, exception->value))
                exception = tracer.callFunction(frame, exception, {}, {});
            if (!isTracedException(tracer, exception)) unsupportedInstruction(tracer, in);
            if (cause) {
                if (cause->kind == Variable::Kind::Python && isExceptionClass(tracer, cause->value)) cause = tracer.callFunction(frame, cause, {}, {});
                if (!isTracedException(tracer, cause) && !(tracer.isConstant(cause) && cause->value.isNone()))
                    vm::typeError("exception causes must derive from BaseException");
                tracer.storeObjectAttr(exception, "__cause__", cause);
                tracer.storeObjectAttr(exception, "__suppress_context__", tracer.constant(vm::Value(true)));
            }
            tracer.chainContext(exception);
            throw TracedRaise{exception};
        }
        case Opcode::Reraise: throw TracedRaise{popVar(frame)};
        case Opcode::PushExcInfo: {
            VarRef exception = popVar(frame);
            VarRef previous = tracer.handledException();
            stack.push_back(previous ? previous : tracer.constant(vm::Value()));
            tracer.setHandledException(exception);
            stack.push_back(exception);
            return true;
        }
        case Opcode::PopExcept: {
            VarRef previous = popVar(frame);
            tracer.setHandledException(tracer.isConstant(previous) && previous->value.isNone() ? nullptr : previous);
            return true;
        }
        case Opcode::CheckExcMatch: {
            VarRef type = popVar(frame);
            const VarRef& exception = stack.back();
            bool matches = false;
            for (const vm::Value& c : clauseClasses(tracer, type))
                matches = matches || exception->value.as<vm::InstanceObject>().cls->isSubclassOf(c.as<vm::ClassObject>());
            stack.push_back(tracer.constant(vm::Value(matches)));
            return true;
        }
        case Opcode::WithExceptStart: {
            // [exit, prev_exc, exc]: exit(type(exc), exc, None), traced like the normal path's call.
            const VarRef exception = stack.back();
            const VarRef exit = stack[stack.size() - 3];
            VarRef type = tracer.constant(vm::Value(exception->value.as<vm::InstanceObject>().cls));
            stack.push_back(tracer.callFunction(frame, exit, {type, exception, tracer.constant(vm::Value())}, {}));
            return true;
        }
        default: return false;
    }
}

bool Tracer::catchRaise(TraceFrame& frame, const VarRef& exception) {
    for (const auto& entry : frame.code->exceptionTable)
        if (entry.start <= frame.pc && frame.pc < entry.end) {
            frame.stack.resize(entry.depth);
            frame.stack.push_back(exception);
            frame.pc = entry.target;
            return true;
        }
    return false;
}

void Tracer::chainContext(const VarRef& exception) {
    // Raised while another is handled: Python sets the handled one as __context__ (unless it is the same object).
    if (handled_ && handled_ != exception && exception->kind == Variable::Kind::Object) {
        for (size_t i = 0; i < exception->keys.size(); ++i)
            if (exception->keys[i].str() == "__context__" && !(isConstant(exception->items[i]) && exception->items[i]->value.isNone())) return;
        storeObjectAttr(exception, "__context__", handled_);
    }
}

}  // namespace eng::capture
