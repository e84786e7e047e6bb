// Instances of user classes in the trace (Dynamo's UserDefinedObjectVariable): a class called in the compiled
// frame makes an object whose attributes are traced values and whose __init__, methods, properties and dunder
// methods are inlined; objects from outside the frame get their dunder methods inlined the same way.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "capture/symbolic_eval.h"
#include "ops/operators.h"

namespace eng::capture {

namespace {

/// A class the trace can model as a plain object: built by class statements, with `object` as the only builtin
/// class in its MRO and no native constructor (nn.Module, exceptions, named tuples and dict subclasses are not).
bool isPlainUserClass(Tracer& tracer, const vm::ClassObject& cls) {
    const vm::ClassObject* object = tracer.vm().builtinClass("object").get();
    for (const vm::ClassObject* c : cls.mro()) {
        if (c == object) continue;
        // torch.distributions is Python that Dynamo inlines (its allowed_functions_module_string_ignorelist), as here.
        const bool torchClass = c->module.rfind("torch", 0) == 0 && c->module.rfind("torch.distributions", 0) != 0;
        if (c->module == "builtins" || torchClass || c->dict.contains("__new__")) return false;
    }
    return cls.isSubclassOf(*object);
}

const char* decoratorOf(const vm::Value& v) {
    if (!v.is(vm::Kind::Instance)) return nullptr;
    const auto& cls = *v.as<vm::InstanceObject>().cls;
    if (cls.module != "builtins") return nullptr;
    for (const char* name : {"staticmethod", "classmethod", "property"})
        if (cls.name == name) return name;
    return nullptr;
}

}  // namespace

VarRef boundMethod(const vm::Value& function, const VarRef& self, const std::string& name) {
    auto method = std::make_shared<Variable>();
    method->kind = Variable::Kind::BoundMethod;
    method->value = function;
    method->self = self;
    method->name = name;
    return method;
}

bool Tracer::isUserInstance(const VarRef& v) {
    if (v->kind == Variable::Kind::Object) return true;
    // An enum member is Dynamo's EnumVariable, a constant: its operators and attributes fold.
    return v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Instance) && !isEnumMember(v->value) &&
           isPlainUserClass(*this, *v->value.as<vm::InstanceObject>().cls);
}

bool Tracer::allConstant(const std::vector<VarRef>& args, const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    return std::all_of(args.begin(), args.end(), [this](const VarRef& a) { return isConstant(a); }) &&
           std::all_of(kwargs.begin(), kwargs.end(), [this](const auto& kw) { return isConstant(kw.second); });
}

vm::Value Tracer::callOnExamples(const vm::Value& callee, const std::vector<VarRef>& args,
                                 const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    vm::ValueList values;
    for (const VarRef& a : args) {
        argOf(a);
        values.push_back(exampleOf(a));
    }
    vm::KwArgs kw;
    for (const auto& [key, a] : kwargs) {
        argOf(a);
        kw.emplace_back(key, exampleOf(a));
    }
    return vm_.call(callee, std::move(values), std::move(kw));
}

std::optional<VarRef> Tracer::constructModule(const VarRef& cls, const std::vector<VarRef>& args,
                                              const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    const auto& classObject = cls->value.as<vm::ClassObject>();
    if (!classObject.isSubclassOf(*vm_.builtinClass("Module"))) return std::nullopt;
    // Only torch.nn's own constructors run at trace time (native ones, and those of its layers written in the subset,
    // torch.nn.modules.*): a user __init__ could have effects outside the module.
    std::optional<vm::Value> init = classObject.lookup("__init__");
    bool builtinInit = !init || init->is(vm::Kind::Native);
    for (const vm::ClassObject* base : classObject.mro())
        if (base->dict.contains("__init__")) {
            builtinInit = builtinInit || base->module.rfind("torch.nn.", 0) == 0;
            break;
        }
    if (!builtinInit || !allConstant(args, kwargs))
        unsupported("Unsupported nn.Module construction", fmt::format("Dynamo does not trace the construction of `{}` here.", classObject.name), {},
                    "call_function UserDefinedClassVariable(" + classObject.name + ")");
    guardValue(cls);
    vm::Value module = callOnExamples(cls->value, args, kwargs);
    // Its parameters and buffers would be the trace's constants, made once: a module holding any is refused.
    std::function<bool(const vm::Value&)> stateless = [&](const vm::Value& m) {
        const auto& instance = m.as<vm::InstanceObject>();
        if (!instance.parameterOrder.empty() || !instance.bufferOrder.empty()) return false;
        for (const std::string& child : instance.moduleOrder)
            if (!stateless(instance.attributes.at(child))) return false;
        return true;
    };
    if (!stateless(module))
        unsupported("Unsupported nn.Module construction",
                    fmt::format("Dynamo does not trace the construction of `{}`: it holds parameters or buffers.", classObject.name), {},
                    "call_function UserDefinedClassVariable(" + classObject.name + ")");
    keepAlive(module);
    madeModules_[module.object().get()] = rootFrame()->pc;
    return constant(module);
}

std::optional<VarRef> Tracer::constructObject(TraceFrame& frame, const VarRef& cls, std::vector<VarRef> args,
                                              std::vector<std::pair<std::string, VarRef>> kwargs) {
    if (!cls->value.is(vm::Kind::Class)) return std::nullopt;
    if (std::optional<VarRef> module = constructModule(cls, args, kwargs)) return module;
    if (cls->value.as<vm::ClassObject>().isSubclassOf(*vm_.builtinClass("BaseException")))
        return constructException(*this, frame, cls, std::move(args), std::move(kwargs));
    if (!isPlainUserClass(*this, cls->value.as<vm::ClassObject>())) return std::nullopt;
    auto classRef = cls->value.ref<vm::ClassObject>();
    // types.SimpleNamespace is a builtin type to Dynamo, which does not trace its construction.
    if (classRef->module == "types" && classRef->name == "SimpleNamespace") {
        std::vector<std::string> positional, keywords;
        for (const VarRef& a : args) positional.push_back(variableRepr(*this, *a));
        for (const auto& [key, value] : kwargs) keywords.push_back(fmt::format("'{}': {}", key, variableRepr(*this, *value)));
        const std::string type = "`<class 'types.SimpleNamespace'>`";
        unsupported("Unsupported function call", "Dynamo does not know how to trace the function " + type,
                    {"Avoid calling " + type + " in your code.", "Please report an issue to PyTorch."},
                    fmt::format("call_function UserDefinedClassVariable(<class 'types.SimpleNamespace'>) [{}] {{{}}}", fmt::join(positional, ", "),
                                fmt::join(keywords, ", ")),
                    147);
    }
    if (std::optional<vm::Value> setter = classRef->lookup("__setattr__"); setter && setter->is(vm::Kind::Function))
        unsupported("Unsupported user-defined class", fmt::format("Dynamo does not trace the construction of `{}`: its class defines __setattr__.", classRef->name),
                    {}, "call_function UserDefinedClassVariable(" + classRef->name + ")");
    vm::checkInstantiable(*classRef);  // an abc.ABC subclass with abstract methods left raises as in eager
    guardValue(cls);
    auto object = std::make_shared<Variable>();
    object->kind = Variable::Kind::Object;
    object->value = vm::Value(std::make_shared<vm::InstanceObject>(classRef));
    object->fresh = true;
    object->classSource = cls->source;
    keepAlive(object->value);
    std::optional<vm::Value> init = classRef->lookup("__init__");
    if (!init) {
        if (!args.empty() || !kwargs.empty()) vm::typeError(fmt::format("{}() takes no arguments", classRef->name));
        return object;
    }
    if (!init->is(vm::Kind::Function))
        unsupported("Unsupported user-defined class", fmt::format("Dynamo does not trace the __init__ of `{}`.", classRef->name), {},
                    "call_function UserDefinedClassVariable(" + classRef->name + ")");
    VarRef result = inlineFunction(frame, *init, std::move(args), std::move(kwargs), object);
    if (!(result->kind == Variable::Kind::Python && result->value.isNone()))
        vm::typeError(fmt::format("__init__() should return None, not '{}'", vm_.classOf(exampleOf(result))->name));
    return object;
}

VarRef Tracer::objectAttr(TraceFrame& frame, const VarRef& object, const std::string& name) {
    if (object->kind == Variable::Kind::Super) {
        // super(): the first class after `value` in the MRO of the receiver's type that has the name. That MRO is
        // the receiver's class's: a receiver from outside the frame is guarded by its type (TYPE_MATCH), as a
        // method lookup on it is.
        const auto& start = object->value.as<vm::ClassObject>();
        const VarRef& self = object->self;
        if (self->kind == Variable::Kind::Python) guardValue(self);
        const vm::Value receiver = self->kind == Variable::Kind::Object || self->kind == Variable::Kind::Python ? self->value : exampleOf(self);
        const bool classReceiver = receiver.is(vm::Kind::Class) && receiver.as<vm::ClassObject>().isSubclassOf(start);
        std::shared_ptr<vm::ClassObject> receiverType = classReceiver ? receiver.ref<vm::ClassObject>() : vm_.classOf(receiver);
        std::optional<vm::Value> found = receiverType->lookupAfter(start, name);
        // object.__init__ (the VM's `object` has none): a call that does nothing.
        if (!found && name == "__init__" && isUserInstance(object->self)) {
            VarRef init = constant(vm::makeNative("__init__", [](vm::Interpreter&, vm::CallArgs&) { return vm::Value(); }));
            init->name = kObjectInit;
            return init;
        }
        // object.__delattr__: the plain deletion, called with the receiver (callFunction).
        if (!found && name == "__delattr__") {
            VarRef plain = constant(vm_.getAttr(vm::Value(vm_.builtinClass("object")), name));
            plain->name = kObjectDelattr;
            plain->self = object->self;
            return plain;
        }
        if (!found) vm::raise("AttributeError", fmt::format("'super' object has no attribute '{}'", name));
        // With a class receiver (super() in a classmethod) functions come back unbound, as CPython's super gives them.
        if (found->is(vm::Kind::Function)) return classReceiver ? constant(*found) : boundMethod(*found, self, name);
        if (const char* decorator = decoratorOf(*found)) {
            const vm::Value& function = found->as<vm::InstanceObject>().attributes.at("__func__");
            if (std::string(decorator) == "staticmethod") return constant(function);
            if (std::string(decorator) == "classmethod" && function.is(vm::Kind::Function))
                return boundMethod(function, classReceiver ? self : constant(vm::Value(receiverType)), name);
        }
        if (found->is(vm::Kind::Native))  // BaseException.__init__ under an exception class's own __init__, say
            unsupported("Attempted to call a super() attribute that is not a function or method",
                        fmt::format("Dynamo does not know how to trace the call `super().{0}()` because `super().{0}` is not a function or method attribute.", name),
                        {"Ensure the attribute accessed via `super()` is a standard method or function."},
                        "call_method SuperVariable() " + name, 6);
        unsupported("Unsupported attribute access", fmt::format("Dynamo does not trace `super().{}` here.", name), {}, "var_getattr SuperVariable " + name);
    }
    for (size_t i = 0; i < object->keys.size(); ++i)
        if (object->keys[i].str() == name) return object->items[i];
    const auto& cls = object->value.as<vm::InstanceObject>().cls;
    if (name == "__class__") return constant(vm::Value(cls));
    if (name == "__dict__")
        unsupported("Unsupported attribute access", "Dynamo does not trace `__dict__` of an object made in the compiled frame.", {},
                    "var_getattr UserDefinedObjectVariable __dict__");
    std::optional<vm::Value> onClass = cls->lookup(name);
    if (!onClass) {
        if (std::optional<vm::Value> hook = cls->lookup("__getattr__"); hook && hook->is(vm::Kind::Function))
            return inlineFunction(frame, *hook, {constant(vm::makeStr(name))}, {}, object);
        vm::raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", cls->name, name));
    }
    if (onClass->is(vm::Kind::Function)) return boundMethod(*onClass, object, name);
    if (const char* decorator = decoratorOf(*onClass)) {
        const vm::Value& function = onClass->as<vm::InstanceObject>().attributes.at("__func__");
        if (std::string(decorator) == "staticmethod") return constant(function);
        if (std::string(decorator) == "classmethod") return boundMethod(function, constant(vm::Value(cls)), name);
        if (!function.is(vm::Kind::Function))
            unsupported("Unsupported attribute access", fmt::format("Dynamo does not trace the property `{}`.", name), {}, "var_getattr " + name);
        return inlineFunction(frame, function, {}, {}, object);
    }
    if (onClass->is(vm::Kind::Native) || onClass->is(vm::Kind::Instance))
        unsupported("Unsupported attribute access", fmt::format("Dynamo does not trace the class attribute `{}` of `{}`.", name, cls->name), {},
                    "var_getattr UserDefinedObjectVariable " + name);
    // A class attribute: guarded through the class when the class came from a source (G['Config'].scale).
    if (object->classSource) return wrapSource(*onClass, Source::child(object->classSource, Source::Kind::Attr, name));
    return constant(*onClass);
}

void Tracer::storeObjectAttr(const VarRef& object, const std::string& name, const VarRef& value) {
    const auto& cls = object->value.as<vm::InstanceObject>().cls;
    if (std::optional<vm::Value> onClass = cls->lookup(name); onClass && decoratorOf(*onClass))
        unsupported("Unsupported attribute assignment", fmt::format("Dynamo does not trace `obj.{} = ...` here: the class defines a descriptor of that name.", name),
                    {}, "STORE_ATTR " + name);
    for (size_t i = 0; i < object->keys.size(); ++i)
        if (object->keys[i].str() == name) {
            object->items[i] = value;
            return;
        }
    object->keys.push_back(vm::makeStr(name));
    object->items.push_back(value);
}

/// collections.deque's polyfill class, which Dynamo models as the builtin DequeVariable (its methods rebuild).
bool isDequePolyfill(const vm::Value& v) {
    if (!v.is(vm::Kind::Instance)) return false;
    const auto& cls = *v.as<vm::InstanceObject>().cls;
    return cls.module == "collections" && cls.name == "deque";
}

void Tracer::failOnUnreconstructable(TraceFrame& root, TraceResult& result, const GraphBreakInfo& atBreak) {
    current_ = &root;
    GraphBreakInfo info;
    try {
        unsupported("Reconstruction failure",
                    fmt::format("Dynamo has no bytecode reconstruction implemented for sourceless variable {}.", unreconstructable_),
                    {"If Dynamo is attempting to trace a return statement and your code is attempting to return a variable that Dynamo "
                     "cannot reconstruct, then remove it from the return statement.",
                     "This graph break may have been caused by an earlier graph break. Resolving the earlier graph break may resolve "
                     "this one.",
                     "Report an issue to PyTorch if you need reconstrtuction support. Note that objects that don't have reconstruction "
                     "rules may be fundamentally unreconstructable."},
                    unreconstructable_, 92);
    } catch (Unsupported& u) {
        info = u.info;
    }
    info.skipFrame = true;
    info.unresumedBreak = std::make_shared<GraphBreakInfo>(atBreak);
    result = TraceResult{};
    result.graphBreak = info;
    result.restartAt = root.pc;
}

void Tracer::checkDequeMethod(const VarRef& method, const std::vector<VarRef>& args) {
    const VarRef& self = method->self;
    if (!self || !isDequePolyfill(self->value)) return;
    // DequeVariable's own methods and those of CommonListMethodsVariable / BaseListVariable (Dynamo's lists.py).
    static const std::set<std::string> kTraced = {"__init__", "append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft",
                                                  "clear", "copy", "reverse", "remove", "index", "count", "__getitem__", "__setitem__",
                                                  "__delitem__", "__contains__", "__len__", "__iter__", "__bool__", "__eq__", "__repr__"};
    if (kTraced.contains(method->name)) return;
    std::vector<std::string> shown;
    for (const VarRef& a : args) shown.push_back(variableRepr(*this, *a));
    unsupported("Unsupported method call", fmt::format("Dynamo does not know how to trace method `{}` of class `deque`", method->name),
                {fmt::format("Avoid calling `deque.{}` in your code.", method->name), "Please report an issue to PyTorch."},
                fmt::format("call_method DequeVariable() {} [{}] {{}}", method->name, fmt::join(shown, ", ")), 156);
}

/// a + b on a collections dict subclass whose operator is Python (Counter's __add__/__sub__): the class's method
/// inlined on the dict, as Dynamo inlines collections' own code; nullopt for any other operands.
std::optional<VarRef> dictClassOperator(Tracer& tracer, TraceFrame& frame, uint32_t op, const VarRef& a, const VarRef& b) {
    const auto operand = ops::decodeBinaryOpArg(op);
    if (!operand || operand->inplace || a->kind != Variable::Kind::Dict || !a->value.is(vm::Kind::Dict)) return std::nullopt;
    const auto& cls = a->value.as<vm::DictObject>().cls;
    std::optional<vm::Value> method = cls ? cls->lookup(ops::dunder(operand->op)) : std::nullopt;
    if (!method || !method->is(vm::Kind::Function)) return std::nullopt;
    return tracer.inlineFunction(frame, *method, {b}, {}, a);
}

std::optional<VarRef> Tracer::callDunder(TraceFrame& frame, const VarRef& object, const std::string& name, std::vector<VarRef> args) {
    if (!inlinesDunder(*this, object, name)) return std::nullopt;
    const auto& cls = object->value.as<vm::InstanceObject>().cls;
    std::optional<vm::Value> method = cls->lookup(name);
    if (!method) return std::nullopt;
    if (!method->is(vm::Kind::Function))
        unsupported("Unsupported method call", fmt::format("Dynamo does not trace `{}.{}`.", cls->name, name), {}, "call_method " + name);
    if (object->kind == Variable::Kind::Python) guardValue(object);
    return inlineFunction(frame, *method, std::move(args), {}, object);
}

VarRef Tracer::makeSuper(TraceFrame& frame, const std::vector<VarRef>& args) {
    auto super = std::make_shared<Variable>();
    super->kind = Variable::Kind::Super;
    if (args.size() == 2) {
        if (!isConstant(args[0]) || !args[0]->value.is(vm::Kind::Class)) vm::typeError("super() argument 1 must be a type");
        argOf(args[0]);
        super->value = args[0]->value;
        super->self = args[1];
        return super;
    }
    if (!args.empty()) vm::typeError("super() takes 0 or 2 arguments");
    // Zero-argument super(): the method's __class__ cell and its first argument, as the compiler arranged them.
    const auto& freeVars = frame.code->freeVars;
    auto it = std::find(freeVars.begin(), freeVars.end(), "__class__");
    if (it == freeVars.end() || frame.locals.empty() || !frame.locals[0]) vm::raise("RuntimeError", "super(): no arguments");
    size_t index = frame.code->cellVars.size() + static_cast<size_t>(it - freeVars.begin());
    const auto& cell = frame.cells.at(index);
    if (!cell->value || !cell->value->is(vm::Kind::Class)) vm::raise("RuntimeError", "super(): empty __class__ cell");
    super->value = *cell->value;
    super->self = frame.locals[0];
    return super;
}

/// OrderedDict(...) / defaultdict(factory, ...) / dict.fromkeys(...) called in the frame: a dict the trace owns.
std::optional<VarRef> Tracer::constructDictSubclass(const VarRef& callable, std::vector<VarRef>& args,
                                                          std::vector<std::pair<std::string, VarRef>>& kwargs) {
    const vm::Value& value = callable->value;
    auto dictClass = vm_.builtinClass("dict");
    // OrderedDict.fromkeys / dict.fromkeys of constants: made now, a dict the trace owns.
    if (value.is(vm::Kind::BoundMethod) && value.as<vm::BoundMethodObject>().self.is(vm::Kind::Class) &&
        value.as<vm::BoundMethodObject>().self.as<vm::ClassObject>().isSubclassOf(*dictClass) &&
        value.as<vm::BoundMethodObject>().function.is(vm::Kind::Native) &&
        value.as<vm::BoundMethodObject>().function.as<vm::NativeObject>().name == "fromkeys" && !args.empty() && args.size() <= 2) {
        VarRef item = args.size() > 1 ? args[1] : constant(vm::Value());
        for (const auto& [keyword, a] : kwargs) {
            if (keyword != "value" || args.size() > 1) vm::typeError("fromkeys() got an unexpected keyword argument '" + keyword + "'");
            item = a;
        }
        VarRef out = dictVariable(vm_.call(value, {vm::makeList({})}));  // the empty dict of the class
        for (const VarRef& key : unpack(args[0])) storeItem(out, key, item);
        return out;
    }
    if (!value.is(vm::Kind::Class) || !value.as<vm::ClassObject>().isSubclassOf(*dictClass)) return std::nullopt;
    // A user class over one of them (class Config(OrderedDict): pass) with no __init__ / __new__ of its own is built
    // as its base is (the VM's Interpreter::instantiate), a dict of the user class.
    std::string name;
    for (const vm::ClassObject* base : value.as<vm::ClassObject>().mro()) {
        if (base->module == "collections" || base == dictClass.get()) {
            name = base->name;
            break;
        }
        if (base->dict.contains("__init__") || base->dict.contains("__new__")) return std::nullopt;
    }
    if (name.empty() || (name == "dict" && value.as<vm::ClassObject>().module == "builtins")) return std::nullopt;
    if (name == "Counter") {
        // Counter(...) of constants counts now: a dict the trace owns (Dynamo's UserDefinedDictVariable), whose
        // Python methods (update, most_common) are inlined on it.
        if (!allConstant(args, kwargs)) return std::nullopt;
        guardValue(callable);
        return dictVariable(callOnExamples(value, args, kwargs));
    }
    if (name != "OrderedDict" && name != "defaultdict" && name != "dict") return std::nullopt;
    guardValue(callable);
    // The empty dict of this class (and factory), then dict(...)'s filling through the trace.
    vm::Value factory;
    if (name == "defaultdict" && !args.empty()) {
        if (args[0]->kind != Variable::Kind::Python) vm::typeError("first argument must be callable or None");
        argOf(args[0]);
        factory = args[0]->value;
        args.erase(args.begin());
    }
    vm::Value empty = vm_.call(value, factory.isNone() ? vm::ValueList{} : vm::ValueList{factory});
    VarRef out = dictVariable(empty);
    if (args.size() > 1) vm::typeError(fmt::format("{} expected at most 1 argument, got {}", name, args.size()));
    std::vector<std::pair<VarRef, VarRef>> pairs;
    if (!args.empty()) pairs = dictPairs(args[0], false);
    for (auto& [keyword, item] : kwargs) pairs.emplace_back(constant(vm::makeStr(keyword)), item);
    for (auto& [key, item] : pairs) storeItem(out, key, item);
    return out;
}

void breakOnDataclassFieldsOfNonInstance(Tracer& tracer, const vm::Value& function, const std::vector<VarRef>& args) {
    const auto& fn = function.as<vm::FunctionObject>();
    if (fn.code->name != "fields" || !fn.globals || args.size() != 1) return;
    auto module = fn.globals->find("__name__");
    if (module == fn.globals->end() || !module->second.is(vm::Kind::Str) || module->second.str() != "dataclasses") return;
    const Variable& obj = *args[0];
    if ((obj.kind == Variable::Kind::Python || obj.kind == Variable::Kind::Object) && obj.value.is(vm::Kind::Instance)) return;
    const bool isClass = obj.kind == Variable::Kind::Python && obj.value.is(vm::Kind::Class);
    // Dynamo's explanation ends in a newline: its message has a blank line more before the debug context.
    const std::string repr = isClass ? "UserDefinedClassVariable(" + tracer.vm().repr(obj.value) + ")" : variableRepr(tracer, obj);
    tracer.unsupported("dataclass fields failure",
                       fmt::format("Dataclass fields handling fails for {}. Expected it to be a user-defined object.\n", repr), {},
                       isClass ? fmt::format("obj: {}; variable type: <class 'torch._dynamo.variables.user_defined.UserDefinedClassVariable'>", repr)
                               : "obj: " + repr,
                       180);
}

}  // namespace eng::capture
