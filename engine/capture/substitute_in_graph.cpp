// substitute_in_graph (see substitute_in_graph.h), with torch/_dynamo/decorators.py's checks and messages.
#include "capture/substitute_in_graph.h"

#include <map>

#include <fmt/core.h>

#include "frontend/code_object.h"

namespace eng::capture {

namespace {

struct Substitute {
    vm::Value original;  // kept alive: the registry is keyed by its identity
    vm::Value polyfill;
};

std::map<const vm::Object*, Substitute>& registry() {
    static std::map<const vm::Object*, Substitute> substitutes;
    return substitutes;
}

bool isFunction(const vm::Value& v) { return v.is(vm::Kind::Function) || v.is(vm::Kind::Native) || v.is(vm::Kind::BoundMethod); }

std::string typeRepr(vm::Interpreter& vm, const vm::Value& v) { return fmt::format("<class '{}'>", vm.classOf(v)->name); }

bool flagOption(vm::Interpreter& vm, vm::CallArgs& a, const char* name) {
    std::optional<vm::Value> flag = a.take(name);
    if (flag && !flag->is(vm::Kind::Bool)) vm::typeError(fmt::format("{} must be a bool", name));
    (void)vm;
    return flag && flag->asBool();
}

}  // namespace

std::optional<vm::Value> graphSubstitute(const vm::Value& callable) {
    if (!isFunction(callable)) return std::nullopt;
    auto it = registry().find(callable.object().get());
    if (it == registry().end()) return std::nullopt;
    return it->second.polyfill;
}

void installSubstituteInGraph(vm::Namespace& compiler) {
    compiler["substitute_in_graph"] = vm::makeNative("substitute_in_graph", [](vm::Interpreter& vm, vm::CallArgs& a) {
        if (a.positional.size() != 1) vm::typeError("substitute_in_graph() takes 1 positional argument");
        const vm::Value original = a.positional[0];
        flagOption(vm, a, "can_constant_fold_through");  // cwb folds nothing through a polyfill: the trace inlines it
        flagOption(vm, a, "skip_signature_check");
        if (!a.keywords.empty()) vm::typeError(fmt::format("substitute_in_graph() got an unexpected keyword argument '{}'", a.keywords.front().first));
        if (!isFunction(original)) vm::typeError(fmt::format("substitute_in_graph expects a function but got {}", typeRepr(vm, original)));
        return vm::makeNative("wrapper", [original](vm::Interpreter& machine, vm::CallArgs& call) {
            const vm::Value traceable = call.positional.at(0);
            if (!isFunction(traceable))
                vm::typeError(fmt::format("@substitute_in_graph(...) expects a function but got {}", typeRepr(machine, traceable)));
            if (auto existing = registry().find(original.object().get()); existing != registry().end())
                vm::raise("ValueError", fmt::format("Duplicate polyfill handlers for {}: already handled by {}", machine.repr(original),
                                                    machine.repr(existing->second.polyfill)));
            // Called eagerly, the decorated name runs the original; traced, both run the polyfill.
            vm::Value wrapped = vm::makeNative(traceable.is(vm::Kind::Function) ? traceable.as<vm::FunctionObject>().code->name : "wrapped",
                                               [original](vm::Interpreter& m, vm::CallArgs& args) { return m.callArgs(original, args); });
            registry()[original.object().get()] = {original, traceable};
            registry()[wrapped.object().get()] = {wrapped, traceable};
            return wrapped;
        });
    });
}

}  // namespace eng::capture
