// `_inspect`, the native half of the `inspect` polyfill: the parameters of functions, bound methods, classes (their
// __init__ without self) and builtins with a __text_signature__ (parsed as CPython's inspect does, from
// `def f<text>: pass`), and what kind of object a value is.
#include <fmt/core.h>

#include "frontend/code_object.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

// inspect._ParameterKind values.
enum ParameterKind : int64_t { PositionalOnly = 0, PositionalOrKeyword = 1, VarPositional = 2, KeywordOnly = 3, VarKeyword = 4 };

Value parameter(const std::string& name, ParameterKind kind, const Value& defaultValue) {
    return makeTuple({makeStr(name), Value(static_cast<int64_t>(kind)), defaultValue});
}

/// In inspect's order: positional, *args, keyword-only, **kwargs (the code's varNames put *args after keyword-only).
ValueList functionParameters(const FunctionObject& f, const Value& empty) {
    const frontend::CodeObject& code = *f.code;
    ValueList out;
    const auto positional = static_cast<size_t>(code.argCount);
    const size_t firstDefault = positional - std::min(positional, f.defaults.size());
    for (size_t i = 0; i < positional; ++i)
        out.push_back(parameter(code.varNames[i], static_cast<int>(i) < code.positionalOnlyArgCount ? PositionalOnly : PositionalOrKeyword,
                                i >= firstDefault ? f.defaults[i - firstDefault] : empty));
    const auto keywordOnly = static_cast<size_t>(code.keywordOnlyArgCount);
    size_t slot = positional + keywordOnly;
    if (code.hasVarArgs) out.push_back(parameter(code.varNames[slot++], VarPositional, empty));
    for (size_t i = positional; i < positional + keywordOnly; ++i) {
        Value value = empty;
        for (const auto& [name, given] : f.keywordDefaults)
            if (name == code.varNames[i]) value = given;
        out.push_back(parameter(code.varNames[i], KeywordOnly, value));
    }
    if (code.hasVarKeywords) out.push_back(parameter(code.varNames[slot], VarKeyword, empty));
    return out;
}

ValueList fromTextSignature(Interpreter& vm, const std::string& text, const Value& empty) {
    std::shared_ptr<Namespace> globals = vm.runDefinitions("<signature>", "def _signature" + text + ":\n    pass\n");
    if (!globals) raise("ValueError", fmt::format("'{}' is not a valid signature", text));
    return functionParameters(globals->at("_signature").as<FunctionObject>(), empty);
}

ValueList dropFirst(ValueList parameters) {
    if (parameters.empty()) raise("ValueError", "invalid method signature");
    parameters.erase(parameters.begin());
    return parameters;
}

ValueList parametersOf(Interpreter& vm, const Value& object, const Value& empty) {
    bool callable = object.is(Kind::Function) || object.is(Kind::BoundMethod) || object.is(Kind::Native) || object.is(Kind::Class) ||
                    (object.is(Kind::Instance) && vm.findAttr(object, "__call__"));
    if (!callable) typeError(fmt::format("{} is not a callable object", vm.repr(object)));
    if (object.is(Kind::Function)) return functionParameters(object.as<FunctionObject>(), empty);
    if (object.is(Kind::BoundMethod)) return dropFirst(parametersOf(vm, object.as<BoundMethodObject>().function, empty));
    if (std::optional<Value> text = vm.findAttr(object, "__text_signature__"); text && text->is(Kind::Str))
        return fromTextSignature(vm, text->str(), empty);
    if (object.is(Kind::Class)) {
        Value init = vm.getAttr(object, "__init__");
        if (init.is(Kind::Function)) return dropFirst(functionParameters(init.as<FunctionObject>(), empty));
        raise("ValueError", fmt::format("no signature found for builtin type {}", vm.repr(object)));
    }
    if (object.is(Kind::Instance))
        if (std::optional<Value> call = vm.findAttr(object, "__call__")) return parametersOf(vm, *call, empty);
    raise("ValueError", fmt::format("no signature found for builtin {}", vm.repr(object)));
}

}  // namespace

void installInspect(Interpreter& vm) {
    auto module = std::make_shared<ModuleObject>("_inspect");
    vm.modules()["_inspect"] = Value(module);
    module->attributes["_parameters"] = makeNative("_parameters", [](Interpreter& m, CallArgs& a) {
        return makeList(parametersOf(m, a.positional.at(0), a.positional.at(1)));
    });
    module->attributes["_kind"] = makeNative("_kind", [](Interpreter&, CallArgs& a) {
        switch (a.positional.at(0).kind()) {
            case Kind::Class: return makeStr("class");
            case Kind::Function: return makeStr("function");
            case Kind::BoundMethod: return makeStr("method");
            case Kind::Module: return makeStr("module");
            case Kind::Native: return makeStr("builtin");
            default: return makeStr("other");
        }
    });
}

}  // namespace eng::vm
