// Calling (Python functions with CPython's argument binding and TypeError wording, natives, classes,
// callable instances) and attribute access on every kind of value.
#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include "frontend/code_object.h"
#include "tensor/registry.h"
#include "vm/interpreter.h"
#include "vm/python_warnings.h"

namespace eng::vm {

namespace {

constexpr size_t kMaxFrameDepth = 900;

std::string joinNames(const std::vector<std::string>& names) {
    std::string text;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) text += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
        text += "'" + names[i] + "'";
    }
    return text;
}

}  // namespace

Value Interpreter::callArgs(const Value& callable, CallArgs& args) {
    switch (callable.kind()) {
        case Kind::Function: {
            auto function = callable.ref<FunctionObject>();
            return callFunction(function, args, function->compiled.get());
        }
        case Kind::BoundMethod: {
            auto& method = callable.as<BoundMethodObject>();
            args.positional.insert(args.positional.begin(), method.self);
            return callArgs(method.function, args);
        }
        case Kind::Native: return callable.as<NativeObject>().fn(*this, args);
        case Kind::Class:
            // A metaclass's __call__ stands between the call and the instance (an enum class looks its members up).
            if (const auto& meta = callable.as<ClassObject>().metaclass)
                if (auto call = meta->lookup("__call__"); call && call->is(Kind::Function)) {
                    args.positional.insert(args.positional.begin(), callable);
                    return callArgs(*call, args);
                }
            return instantiate(callable, args);
        case Kind::Instance: {
            auto method = findAttr(callable, "__call__");
            if (method) return callArgs(*method, args);
            break;
        }
        default: break;
    }
    typeError(fmt::format("'{}' object is not callable", classOf(callable)->name));
}

Value Interpreter::instantiate(const Value& callable, CallArgs& args) {
    auto cls = callable.ref<ClassObject>();
    // Only builtin classes construct through a native __new__; user classes never inherit it.
    if (auto creator = cls->dict.find("__new__"); creator != cls->dict.end()) {
        args.positional.insert(args.positional.begin(), callable);
        return callArgs(creator->second, args);
    }
    checkInstantiable(*cls);
    // A user class over dict or one of collections' dict classes, with no __init__ of its own, is a dict of that
    // class (class D(OrderedDict): pass; D(a=1)): made by the base's __new__, its methods found through the class.
    if (cls->isSubclassOf(*builtinClass("dict"))) {
        for (const ClassObject* base : cls->mro()) {
            if (base->dict.contains("__init__")) break;
            auto creator = base->dict.find("__new__");
            if (creator == base->dict.end()) continue;
            args.positional.insert(args.positional.begin(), callable);
            Value made = callArgs(creator->second, args);
            if (made.is(Kind::Dict)) made.as<DictObject>().cls = cls;
            return made;
        }
    }
    Value instance(std::make_shared<InstanceObject>(cls));
    if (auto init = cls->lookup("__init__")) {
        args.positional.insert(args.positional.begin(), instance);
        callArgs(*init, args);
    } else if (!args.positional.empty() || !args.keywords.empty()) {
        typeError(fmt::format("{}() takes no arguments", cls->name));
    }
    return instance;
}

Value Interpreter::callFunction(const std::shared_ptr<FunctionObject>& function, CallArgs& args,
                                const CompileOptions* compiled) {
    if (frames_.size() > kMaxFrameDepth) raise("RecursionError", "maximum recursion depth exceeded");
    const frontend::CodeObject& code = *function->code;
    Frame frame;
    frame.code = function->code;
    frame.globals = function->globals;
    frame.fast.assign(code.varNames.size(), Value::null());
    bindArguments(*function, args, frame);
    frame.cells.reserve(code.cellVars.size() + function->closure.size());
    for (size_t i = 0; i < code.cellVars.size(); ++i) {
        auto cell = std::make_shared<CellObject>();
        int parameter = code.cellParameters[i];
        if (parameter >= 0) cell->value = frame.fast[static_cast<size_t>(parameter)];
        frame.cells.push_back(std::move(cell));
    }
    for (const auto& cell : function->closure) frame.cells.push_back(cell);
    // A generator function's call only binds the frame: its body runs as the generator is iterated (and a
    // compiled generator function runs eagerly, as Dynamo skips generator frames).
    if (code.isGenerator) return makeGenerator(std::move(frame));
    if (!compiled && hookEveryCall_ && !function->attributes.contains("_torchdynamo_disable")) compiled = hookEveryCall_;
    if (compiled && !compiled->disable && frameHook_) {
        if (std::optional<Value> result = frameHook_->onFrame(*this, frame, *compiled)) return *result;
    }
    return runFrame(frame);
}

void Interpreter::bindArguments(const FunctionObject& function, CallArgs& args, Frame& frame) {
    const frontend::CodeObject& code = *function.code;
    const std::string& name = code.qualifiedName;
    const auto positionalCount = static_cast<size_t>(code.argCount);
    const auto keywordOnlyCount = static_cast<size_t>(code.keywordOnlyArgCount);
    size_t given = args.positional.size();
    if (given > positionalCount && !code.hasVarArgs) {
        size_t required = positionalCount - std::min(positionalCount, function.defaults.size());
        std::string takes = required == positionalCount ? fmt::format("{}", positionalCount)
                                                        : fmt::format("from {} to {}", required, positionalCount);
        typeError(fmt::format("{}() takes {} positional argument{} but {} {} given", name, takes,
                              positionalCount == 1 && required == positionalCount ? "" : "s", given, given == 1 ? "was" : "were"));
    }
    for (size_t i = 0; i < std::min(given, positionalCount); ++i) frame.fast[i] = std::move(args.positional[i]);
    size_t slot = positionalCount + keywordOnlyCount;
    if (code.hasVarArgs) {
        ValueList rest;
        for (size_t i = positionalCount; i < given; ++i) rest.push_back(std::move(args.positional[i]));
        frame.fast[slot++] = makeTuple(std::move(rest));
    }
    std::shared_ptr<DictObject> extra;
    if (code.hasVarKeywords) {
        extra = std::make_shared<DictObject>();
        frame.fast[slot] = Value(extra);
    }
    for (auto& [keyword, value] : args.keywords) {
        auto begin = code.varNames.begin() + code.positionalOnlyArgCount;
        auto end = code.varNames.begin() + static_cast<std::ptrdiff_t>(positionalCount + keywordOnlyCount);
        auto found = std::find(begin, end, keyword);
        if (found == end) {
            if (!extra) typeError(fmt::format("{}() got an unexpected keyword argument '{}'", name, keyword));
            extra->set(makeStr(keyword), std::move(value));
            continue;
        }
        Value& target = frame.fast[static_cast<size_t>(found - code.varNames.begin())];
        if (!target.isNull()) typeError(fmt::format("{}() got multiple values for argument '{}'", name, keyword));
        target = std::move(value);
    }
    std::vector<std::string> missing;
    size_t firstDefault = positionalCount - std::min(positionalCount, function.defaults.size());
    for (size_t i = 0; i < positionalCount; ++i) {
        if (!frame.fast[i].isNull()) continue;
        if (i >= firstDefault) {
            frame.fast[i] = function.defaults[i - firstDefault];
        } else {
            missing.push_back(code.varNames[i]);
        }
    }
    if (!missing.empty())
        typeError(fmt::format("{}() missing {} required positional argument{}: {}", name, missing.size(),
                              missing.size() == 1 ? "" : "s", joinNames(missing)));
    for (size_t i = positionalCount; i < positionalCount + keywordOnlyCount; ++i) {
        if (!frame.fast[i].isNull()) continue;
        auto found = std::find_if(function.keywordDefaults.begin(), function.keywordDefaults.end(),
                                  [&](const auto& d) { return d.first == code.varNames[i]; });
        if (found != function.keywordDefaults.end()) {
            frame.fast[i] = found->second;
        } else {
            missing.push_back(code.varNames[i]);
        }
    }
    if (!missing.empty())
        typeError(fmt::format("{}() missing {} required keyword-only argument{}: {}", name, missing.size(),
                              missing.size() == 1 ? "" : "s", joinNames(missing)));
}

Value Interpreter::getAttr(const Value& object, const std::string& name) {
    if (auto value = findAttr(object, name)) return *value;
    if (object.is(Kind::Module) && object.as<ModuleObject>().closedConfig)
        raise("AttributeError", fmt::format("{}.{} does not exist", object.as<ModuleObject>().name, name));
    if (object.is(Kind::Module))
        raise("AttributeError", fmt::format("module '{}' has no attribute '{}'", object.as<ModuleObject>().name, name));
    if (object.is(Kind::Class))
        raise("AttributeError", fmt::format("type object '{}' has no attribute '{}'", object.as<ClassObject>().name, name));
    raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", classOf(object)->name, name));
}

namespace {

bool isMethodLike(const Value& v) { return v.is(Kind::Function) || v.is(Kind::Native); }

/// staticmethod/classmethod/property wrappers: the class name of the decorator, or empty.
std::string decoratorKind(const Value& v) {
    if (!v.is(Kind::Instance)) return "";
    const std::string& name = v.as<InstanceObject>().cls->name;
    bool builtin = v.as<InstanceObject>().cls->module == "builtins";
    return builtin && (name == "staticmethod" || name == "classmethod" || name == "property") ? name : "";
}

/// __mro__ of the class `cls`, as values.
ValueList mroOf(const Value& cls) {
    ValueList order{cls};
    for (const auto& ancestor : cls.as<ClassObject>().ancestors) order.push_back(Value(ancestor));
    return order;
}

}  // namespace

Value objectSlotMethod(const std::string& name);

/// A class attribute read through an instance: functions bind to it, the method decorators apply.
Value Interpreter::bindClassAttribute(const Value& object, const std::shared_ptr<ClassObject>& cls, const Value& value) {
    if (isMethodLike(value)) return Value(std::make_shared<BoundMethodObject>(object, value));
    std::string decorator = decoratorKind(value);
    const Value& function = decorator.empty() ? value : value.as<InstanceObject>().attributes.at("__func__");
    if (decorator == "staticmethod") return function;
    if (decorator == "classmethod") return Value(std::make_shared<BoundMethodObject>(Value(cls), function));
    if (decorator == "property") return call(function, {object});
    return value;
}

std::optional<Value> Interpreter::findAttr(const Value& object, const std::string& name) {
    switch (object.kind()) {
        case Kind::Instance: {
            auto& instance = object.as<InstanceObject>();
            auto it = instance.attributes.find(name);
            if (it != instance.attributes.end()) return it->second;
            if (name == "__class__") return Value(instance.cls);
            if (auto value = instance.cls->lookup(name)) return bindClassAttribute(object, instance.cls, *value);
            if (auto hook = instance.cls->lookup("__getattr__")) return call(*hook, {object, makeStr(name)});
            return std::nullopt;
        }
        case Kind::Dict:
        case Kind::Tuple: {
            // The collections module's subclasses of dict and tuple: their own attributes first, then the builtin's.
            const auto& cls = object.is(Kind::Dict) ? object.as<DictObject>().cls : object.as<TupleObject>().cls;
            if (cls && name != "__new__")
                if (auto value = cls->lookup(name)) return bindClassAttribute(object, cls, *value);
            return builtinAttribute(*this, object, name);
        }
        case Kind::Class: {
            auto& cls = object.as<ClassObject>();
            if (name == "__name__" || name == "__qualname__") return makeStr(cls.name);
            if (name == "__module__") return makeStr(cls.module);
            if (name == "__base__") return cls.bases.empty() ? Value() : Value(cls.bases.front());
            if (name == "__bases__") return makeTuple(ValueList(cls.bases.begin(), cls.bases.end()));
            if (name == "__mro__") return makeTuple(mroOf(object));
            if (name == "__dict__") {
                // The class's own namespace (CPython's read-only mappingproxy; here a snapshot dict), names in the
                // order the class body bound them.
                auto snapshot = std::make_shared<DictObject>();
                for (const std::string& key : cls.definitionOrder)
                    if (auto it = cls.dict.find(key); it != cls.dict.end()) snapshot->set(makeStr(key), it->second);
                for (const auto& [key, value] : cls.dict)
                    if (!snapshot->find(makeStr(key))) snapshot->set(makeStr(key), value);
                return Value(snapshot);
            }
            auto value = cls.lookup(name);
            if (!value && name == "mro")  // type.mro(), bound to the class: the MRO as a list
                return makeNative("mro", [object](Interpreter&, CallArgs&) { return makeList(mroOf(object)); });
            if (!value && &cls == classes_.at("Tensor").get() && tensor::OpRegistry::instance().find("Tensor." + name)) {
                // torch.Tensor.acos_: the method as a function of its receiver (a method descriptor, __objclass__ Tensor).
                Value method = makeNative(name, [name](Interpreter& m, CallArgs& args) {
                    if (args.positional.empty() || !args.positional[0].is(Kind::Tensor))
                        typeError(fmt::format("descriptor '{}' of 'torch._C.TensorBase' object needs an argument", name));
                    Value self = args.positional.front();
                    args.positional.erase(args.positional.begin());
                    return m.callArgs(m.getAttr(self, name), args);
                });
                method.as<NativeObject>().attributes["__objclass__"] = object;
                return method;
            }
            if (!value && &cls == classes_.at("object").get() && (name == "__setattr__" || name == "__delattr__")) return objectSlotMethod(name);
            // The class is an instance of its metaclass: the metaclass's methods and properties bind to it.
            if (!value && cls.metaclass)
                if (auto meta = cls.metaclass->lookup(name)) return bindClassAttribute(object, cls.metaclass, *meta);
            if (!value) return value;
            std::string decorator = decoratorKind(*value);
            if (decorator == "staticmethod") return value->as<InstanceObject>().attributes.at("__func__");
            if (decorator == "classmethod")
                return Value(std::make_shared<BoundMethodObject>(object, value->as<InstanceObject>().attributes.at("__func__")));
            return value;
        }
        case Kind::Super: {
            // The MRO of the receiver's type (of the receiver itself in a classmethod), after the class super() names.
            auto& super = object.as<SuperObject>();
            const bool classReceiver = super.self.is(Kind::Class) && super.self.as<ClassObject>().isSubclassOf(*super.cls);
            std::shared_ptr<ClassObject> receiverType = classReceiver ? super.self.ref<ClassObject>() : classOf(super.self);
            auto value = receiverType->lookupAfter(*super.cls, name);
            if (!value && (name == "__setattr__" || name == "__delattr__")) value = objectSlotMethod(name);
            if (!value && name == "__init_subclass__")  // object.__init_subclass__: takes no keywords, does nothing
                return makeNative(name, [](Interpreter&, CallArgs& a) {
                    if (!a.keywords.empty()) typeError(fmt::format("{}.__init_subclass__() takes no keyword arguments", "object"));
                    return Value();
                });
            if (!value) return value;
            if (decoratorKind(*value) == "classmethod")
                return Value(std::make_shared<BoundMethodObject>(Value(receiverType), value->as<InstanceObject>().attributes.at("__func__")));
            // super(C, cls).f with a class receiver: descriptors get no instance, so functions and properties come back as they are.
            if (classReceiver && decoratorKind(*value) != "staticmethod") return value;
            return bindClassAttribute(super.self, receiverType, *value);
        }
        case Kind::Module: {
            auto& module = object.as<ModuleObject>();
            module.fillOnFirstUse();
            auto it = module.attributes.find(name);
            if (it != module.attributes.end()) return it->second;
            if (name == "__name__") return makeStr(module.name);
            // torch's submodules written in the subset (torch.onnx) load on first use, as `import torch` makes them
            // attributes of torch.
            if (module.name.starts_with("torch") && polyfillSource(module.name + "." + name))
                return importName(module.name + "." + name, makeStr("*"));
            // torch.amp.GradScaler, written in the subset, loads with torch.amp.grad_scaler on first use.
            if (module.name == "torch.amp" && name == "GradScaler")
                return getAttr(importName("torch.amp.grad_scaler", makeStr("*")), name);
            if (module.name == "torch.autograd" && name == "Function")  // torch.autograd.function.Function
                return getAttr(importName("torch.autograd.function", makeStr("*")), name);
            if (module.name == "torch" && name == "vmap") return getAttr(importName("torch.func", makeStr("*")), "vmap");  // torch.func.vmap
            // torch.nn's layers written in the subset (Conv2d, Softmax, ...) load with their module on first use.
            if (module.name == "torch.nn")
                for (const std::string& layers : nnLayerModules()) {
                    const auto& loaded = importName(layers, makeStr("*")).as<ModuleObject>().attributes;
                    if (auto found = loaded.find(name); found != loaded.end() && found->second.is(Kind::Class)) return found->second;
                }
            if (module.registryPrefix.empty()) return std::nullopt;
            std::string qualified = module.registryPrefix + name;
            const tensor::OpEntry* entry = tensor::OpRegistry::instance().find(qualified);
            if (!entry) return std::nullopt;
            Value op = makeNative(name, [entry](Interpreter& vm, CallArgs& args) {
                // A range is a sequence of ints to torch (torch.tensor(range(n))).
                auto convert = [&vm](const Value& v) {
                    if (v.is(Kind::Instance) && v.as<InstanceObject>().cls == vm.builtinClass("range")) return toTensorValue(makeList(vm.toList(v)));
                    return toTensorValue(v);
                };
                tensor::ValueList positional;
                for (const Value& v : args.positional) positional.push_back(convert(v));
                tensor::KeywordArgs keywords;
                std::optional<tensor::Shape> outShape;  // of an out= tensor with elements, which PyTorch warns to resize
                for (const auto& [key, v] : args.keywords) {
                    keywords.emplace_back(key, convert(v));
                    if (key == "out" && v.is(Kind::Tensor) && v.tensor().numel() > 0) outShape = v.tensor().sizes();
                }
                tensor::Value result = tensor::OpRegistry::instance().call(*entry, positional, keywords);
                if (outShape && result.isTensor() && result.toTensor().sizes() != *outShape)
                    showWarning(vm, "UserWarning",
                                fmt::format("An output with one or more elements was resized since it had shape {}, which does not match the "
                                            "required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs "
                                            "will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by "
                                            "resizing it, inplace, to zero elements with t.resize_(0).",
                                            tensor::shapeStr(*outShape), tensor::shapeStr(result.toTensor().sizes())));
                // torch.mul(x, 3, out=o) returns o itself: the same VM object, as `is` expects.
                for (const auto& [key, v] : args.keywords)
                    if (key == "out" && v.is(Kind::Tensor) && result.isTensor() && result.toTensor().isSameTensor(v.tensor())) return v;
                return fromTensorValue(result);
            });
            module.attributes[name] = op;
            return op;
        }
        case Kind::Function: {
            auto& function = object.as<FunctionObject>();
            auto it = function.attributes.find(name);
            if (it != function.attributes.end()) return it->second;
            if (name == "__name__") return makeStr(function.code->name);
            if (name == "__qualname__") return makeStr(function.code->qualifiedName);
            if (name == "__module__") return makeStr("__main__");
            if (name == "__doc__") return function.code->docstring ? makeStr(*function.code->docstring) : Value();
            return std::nullopt;
        }
        case Kind::BoundMethod: {
            auto& method = object.as<BoundMethodObject>();
            if (name == "__self__") return method.self;
            if (name == "__func__") return method.function;
            return findAttr(method.function, name);
        }
        case Kind::Native: {
            auto& native = object.as<NativeObject>();
            auto it = native.attributes.find(name);
            if (it != native.attributes.end()) return it->second;
            if (name == "__name__" || name == "__qualname__") return makeStr(native.name);
            return std::nullopt;
        }
        default: return builtinAttribute(*this, object, name);
    }
}

void Interpreter::setAttr(const Value& object, const std::string& name, Value value) {
    switch (object.kind()) {
        case Kind::Instance: {
            auto& instance = object.as<InstanceObject>();
            if (auto hook = instance.cls->lookup("__setattr__")) {
                call(*hook, {object, makeStr(name), std::move(value)});
                return;
            }
            storeInstanceAttr(object, name, std::move(value));
            return;
        }
        case Kind::Class: object.as<ClassObject>().dict[name] = std::move(value); return;
        case Kind::Function: object.as<FunctionObject>().attributes[name] = std::move(value); return;
        case Kind::Module: {
            auto& module = object.as<ModuleObject>();
            module.fillOnFirstUse();
            if (module.closedConfig && !module.attributes.contains(name))
                raise("AttributeError", fmt::format("{}.{} does not exist", module.name, name));
            module.attributes[name] = std::move(value);
            return;
        }
        case Kind::Native: object.as<NativeObject>().attributes[name] = std::move(value); return;
        case Kind::Tensor:
            callOp("Tensor.__setattr__", {object, makeStr(name), value});
            return;
        default:
            raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", classOf(object)->name, name));
    }
}

void Interpreter::storeInstanceAttr(const Value& object, const std::string& name, Value value) {
    auto& instance = object.as<InstanceObject>();
    // A property of the class is a data descriptor: the store goes to its setter (or fails without one).
    if (auto descriptor = instance.cls->lookup(name); descriptor && decoratorKind(*descriptor) == "property") {
        const auto& attributes = descriptor->as<InstanceObject>().attributes;
        auto fset = attributes.find("fset");
        if (fset == attributes.end()) raise("AttributeError", fmt::format("property '{}' of '{}' object has no setter", name, instance.cls->name));
        call(fset->second, {object, std::move(value)});
        return;
    }
    instance.attributes[name] = std::move(value);
}

void Interpreter::deleteInstanceAttr(const Value& object, const std::string& name) {
    auto& instance = object.as<InstanceObject>();
    if (auto descriptor = instance.cls->lookup(name); descriptor && decoratorKind(*descriptor) == "property") {
        const auto& attributes = descriptor->as<InstanceObject>().attributes;
        auto fdel = attributes.find("fdel");
        if (fdel == attributes.end() || fdel->second.isNone())
            raise("AttributeError", fmt::format("property '{}' of '{}' object has no deleter", name, instance.cls->name));
        call(fdel->second, {object});
        return;
    }
    if (instance.attributes.erase(name) == 0)
        raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", instance.cls->name, name));
}

void Interpreter::delAttr(const Value& object, const std::string& name) {
    switch (object.kind()) {
        case Kind::Instance:
            if (auto hook = object.as<InstanceObject>().cls->lookup("__delattr__")) {
                call(*hook, {object, makeStr(name)});
                return;
            }
            deleteInstanceAttr(object, name);
            return;
        case Kind::Class:
            if (object.as<ClassObject>().dict.erase(name) == 0)
                raise("AttributeError", fmt::format("type object '{}' has no attribute '{}'", object.as<ClassObject>().name, name));
            return;
        case Kind::Function:
            if (object.as<FunctionObject>().attributes.erase(name) > 0) return;
            break;
        case Kind::Module:
            object.as<ModuleObject>().fillOnFirstUse();
            if (object.as<ModuleObject>().attributes.erase(name) == 0)
                raise("AttributeError", fmt::format("module '{}' has no attribute '{}'", object.as<ModuleObject>().name, name));
            return;
        default: break;
    }
    raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", classOf(object)->name, name));
}

/// object.__setattr__ / object.__delattr__, found where no class of the chain defines one (super().__setattr__,
/// object.__delattr__(self, name)).
Value objectSlotMethod(const std::string& name) {
    return makeNative(name, [name](Interpreter& m, CallArgs& a) {
        const size_t arity = name == "__setattr__" ? 3 : 2;
        if (a.positional.size() != arity || !a.positional[1].is(Kind::Str))
            typeError(fmt::format("expected {} arguments, got {}", arity - 1, a.positional.size() - 1));
        if (!a.positional[0].is(Kind::Instance)) {
            if (name == "__setattr__") m.setAttr(a.positional[0], a.positional[1].str(), a.positional[2]);
            else m.delAttr(a.positional[0], a.positional[1].str());
        } else if (name == "__setattr__") {
            m.storeInstanceAttr(a.positional[0], a.positional[1].str(), a.positional[2]);
        } else {
            m.deleteInstanceAttr(a.positional[0], a.positional[1].str());
        }
        return Value();
    });
}

std::shared_ptr<ClassObject> Interpreter::defineClass(const std::string& name, const std::string& baseName) {
    auto cls = std::make_shared<ClassObject>(name, baseName.empty() ? nullptr : classes_.at(baseName));
    classes_[name] = cls;
    return cls;
}

std::shared_ptr<ClassObject> Interpreter::builtinClass(const std::string& name) const { return classes_.at(name); }

std::shared_ptr<ClassObject> Interpreter::classOf(const Value& v) {
    static constexpr const char* kNames[] = {"NoneType", "NoneType", "bool",  "int",    "float",   "str",
                                             "Tensor",   "dtype",    "device", "list",  "tuple",   "dict",
                                             "set",      "slice",    "ellipsis", "function", "method",
                                             "builtin_function_or_method", "type", "object", "module", "cell",
                                             "iterator", "super", "code"};
    switch (v.kind()) {
        case Kind::Instance: return v.as<InstanceObject>().cls;
        case Kind::Class:
            if (v.as<ClassObject>().metaclass) return v.as<ClassObject>().metaclass;
            return classes_.at("type");
        case Kind::Tensor: return classes_.at(v.as<TensorObject>().parameter ? "Parameter" : "Tensor");
        case Kind::Tuple:
            if (v.as<TupleObject>().cls) return v.as<TupleObject>().cls;
            return classes_.at(v.as<TupleObject>().typeName == "torch.Size" ? "Size" : "tuple");
        case Kind::Dict: return v.as<DictObject>().cls ? v.as<DictObject>().cls : classes_.at("dict");
        case Kind::Set: return classes_.at(v.as<SetObject>().frozen ? "frozenset" : "set");
        case Kind::Iterator:
            return classes_.at(dynamic_cast<const GeneratorObject*>(&v.as<IteratorObject>()) ? "generator" : "iterator");
        default: return classes_.at(kNames[static_cast<size_t>(v.kind())]);
    }
}

bool Interpreter::isInstance(const Value& v, const ClassObject& cls) { return classOf(v)->isSubclassOf(cls); }

}  // namespace eng::vm
