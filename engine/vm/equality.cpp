// Python's == and hash() where user classes take part: __eq__/__ne__ with NotImplemented's fallbacks, __hash__ (a
// class with __eq__ and no __hash__ is unhashable), the hash() builtin and NotImplemented, and the InstanceProtocol
// through which dict keys and set elements (value.h) reach them.
#include <fmt/core.h>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

/// The user class's own method `name` of an instance; nullopt for other values and for classes without one.
std::optional<Value> userMethod(const Value& v, const char* name) {
    if (!v.is(Kind::Instance)) return std::nullopt;
    return v.as<InstanceObject>().cls->lookup(name);
}

class InterpreterProtocol final : public InstanceProtocol {
public:
    explicit InterpreterProtocol(Interpreter& vm) : vm_(vm) {}
    bool instanceEquals(const Value& a, const Value& b) override { return vm_.truthy(vm_.equality(a, b)); }
    int64_t instanceHash(const Value& instance) override { return vm_.hash(instance); }

private:
    Interpreter& vm_;
};

}  // namespace

Value Interpreter::equality(const Value& a, const Value& b, bool negated) {
    const char* method = negated ? "__ne__" : "__eq__";
    // The right operand goes first when its class is a proper subclass of the left's that defines the method.
    bool rightFirst = false;
    if (a.is(Kind::Instance) && b.is(Kind::Instance)) {
        const auto& left = a.as<InstanceObject>().cls;
        const auto& right = b.as<InstanceObject>().cls;
        rightFirst = left != right && right->isSubclassOf(*left) && userMethod(b, method).has_value();
    }
    const Value& first = rightFirst ? b : a;
    const Value& second = rightFirst ? a : b;
    for (const auto& [self, other] : {std::pair{&first, &second}, std::pair{&second, &first}}) {
        std::optional<Value> dunder = userMethod(*self, method);
        if (!dunder && negated) {
            // object.__ne__: the negation of __eq__ unless that returns NotImplemented.
            if (std::optional<Value> eq = userMethod(*self, "__eq__")) {
                Value result = call(*eq, {*self, *other});
                if (!result.identical(notImplemented_)) return Value(!truthy(result));
            }
            continue;
        }
        if (!dunder) continue;
        Value result = call(*dunder, {*self, *other});
        if (!result.identical(notImplemented_)) return result;
    }
    if (a.is(Kind::Instance) || b.is(Kind::Instance)) return Value(negated != a.identical(b));
    return Value(negated != valuesEqual(a, b));
}

int64_t Interpreter::hash(const Value& v) {
    if (!v.is(Kind::Instance)) return hashValue(v);
    const auto& cls = v.as<InstanceObject>().cls;
    std::optional<Value> method = cls->lookup("__hash__");
    if (!method) return identityHash(v.object().get());
    if (method->isNone()) typeError(fmt::format("unhashable type: '{}'", cls->name));
    Value result = call(*method, {v});
    if (!result.is(Kind::Int) && !result.is(Kind::Bool)) typeError("__hash__ method should return an integer");
    const int64_t h = result.asInt();  // CPython's slot_tp_hash takes any int that fits a Py_ssize_t as it is
    return h == -1 ? -2 : h;
}

std::unique_ptr<InstanceProtocol> installEquality(Interpreter& vm, Namespace& builtins) {
    auto notImplementedType = vm.defineClass("NotImplementedType", "object");
    notImplementedType->dict["__repr__"] = makeNative("__repr__", [](Interpreter&, CallArgs&) { return makeStr("NotImplemented"); });
    builtins["NotImplemented"] = Value(std::make_shared<InstanceObject>(notImplementedType));
    builtins["hash"] = makeNative("hash", [](Interpreter&, CallArgs& a) {
        if (a.positional.size() != 1 || !a.keywords.empty())
            typeError(fmt::format("hash() takes exactly one argument ({} given)", a.positional.size() + a.keywords.size()));
        // Through the installed protocol: a trace that calls hash() breaks where a user __hash__ would run unseen.
        return Value(hashValue(a.positional[0]));
    });
    return std::make_unique<InterpreterProtocol>(vm);
}

}  // namespace eng::vm
