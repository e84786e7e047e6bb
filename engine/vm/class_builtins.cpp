// The builtins that make classes and walk their MRO at run time: type(name, bases, namespace), super(), and what
// type.__new__ does once a class exists (__set_name__, __init_subclass__, implicit classmethods).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "frontend/code_object.h"
#include "vm/errors.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

// abc without metaclasses: ABC marks the classes whose abstract methods finishClass computes (ABCMeta.__new__'s
// work) and whose instantiation checkInstantiable refuses while any is left.
const char* kAbc = R"PY(
def abstractmethod(funcobj):
    funcobj.__isabstractmethod__ = True
    return funcobj


class ABC:
    __slots__ = ()


def update_abstractmethods(cls):
    return cls
)PY";

bool isAbcClass(const ClassObject& cls) {
    const auto mro = cls.mro();
    return std::any_of(mro.begin(), mro.end(), [](const ClassObject* c) { return c->module == "abc" && c->name == "ABC"; });
}

/// getattr(value, "__isabstractmethod__", False): set by abstractmethod on a function, and seen through the
/// staticmethod / classmethod / property that wraps one.
bool isAbstract(Interpreter& m, const Value& value) {
    if (value.is(Kind::Function)) {
        const auto& attributes = value.as<FunctionObject>().attributes;
        auto flag = attributes.find("__isabstractmethod__");
        return flag != attributes.end() && m.truthy(flag->second);
    }
    if (!value.is(Kind::Instance) || value.as<InstanceObject>().cls->module != "builtins") return false;
    const auto& attributes = value.as<InstanceObject>().attributes;
    auto function = attributes.find("__func__");
    return function != attributes.end() && isAbstract(m, function->second);
}

/// ABCMeta.__new__: the class's own abstract names, and those of its bases' that it still leaves abstract.
void computeAbstractMethods(Interpreter& m, const std::shared_ptr<ClassObject>& cls) {
    std::set<std::string> abstracts;
    for (const auto& [name, value] : cls->dict)
        if (isAbstract(m, value)) abstracts.insert(name);
    for (const auto& base : cls->bases) {
        std::optional<Value> inherited = base->lookup("__abstractmethods__");
        if (!inherited || !inherited->is(Kind::Set)) continue;
        for (const Value& name : inherited->as<SetObject>().items)
            if (std::optional<Value> value = cls->lookup(name.str()); value && isAbstract(m, *value)) abstracts.insert(name.str());
    }
    auto names = std::make_shared<SetObject>();
    names->frozen = true;
    for (const std::string& name : abstracts) names->items.push_back(makeStr(name));
    cls->dict["__abstractmethods__"] = Value(names);
}

}  // namespace

const char* abcPolyfillSource() { return kAbc; }

void checkInstantiable(const ClassObject& cls) {
    std::optional<Value> abstracts = cls.lookup("__abstractmethods__");
    if (!abstracts || !abstracts->is(Kind::Set) || abstracts->as<SetObject>().items.empty()) return;
    std::vector<std::string> names;
    for (const Value& name : abstracts->as<SetObject>().items) names.push_back(name.str());
    std::sort(names.begin(), names.end());
    typeError(fmt::format("Can't instantiate abstract class {} without an implementation for abstract method{} '{}'", cls.name,
                          names.size() > 1 ? "s" : "", fmt::join(names, "', '")));
}

// What type.__new__ does once the class exists (a class statement's and type()'s).
void finishClass(Interpreter& m, const std::shared_ptr<ClassObject>& cls) {
    // __init_subclass__ and __class_getitem__ written as plain functions are classmethods, as type.__new__ makes them.
    for (const char* implicit : {"__init_subclass__", "__class_getitem__"})
        if (auto it = cls->dict.find(implicit); it != cls->dict.end() && it->second.is(Kind::Function))
            it->second = m.call(Value(m.builtinClass("classmethod")), {it->second});
    // Descriptors learn their owner and name (__set_name__).
    std::vector<std::pair<std::string, Value>> named(cls->dict.begin(), cls->dict.end());
    for (const auto& [name, value] : named)
        if (value.is(Kind::Instance))
            if (auto hook = value.as<InstanceObject>().cls->lookup("__set_name__")) m.call(*hook, {value, Value(cls), makeStr(name)});
    // super(cls, cls).__init_subclass__(): the nearest base's hook (object's does nothing).
    if (cls->lookupAfter(*cls, "__init_subclass__"))
        m.call(m.getAttr(Value(std::make_shared<SuperObject>(cls, Value(cls))), "__init_subclass__"), {});
    if (isAbcClass(*cls)) computeAbstractMethods(m, cls);
}

void applyMetaclass(Interpreter& m, const std::shared_ptr<ClassObject>& cls, const std::optional<Value>& written) {
    const auto type = m.builtinClass("type");
    std::shared_ptr<ClassObject> meta;
    if (written) {
        if (!written->is(Kind::Class) || !written->as<ClassObject>().isSubclassOf(*type))
            typeError(fmt::format("class {}: a metaclass is a subclass of type in the cwb subset, not {}", cls->name, m.repr(*written)));
        if (written->ref<ClassObject>() != type) meta = written->ref<ClassObject>();
    }
    // The most derived of the written metaclass and the bases' (CPython's _calculate_meta).
    for (const auto& base : cls->bases) {
        if (!base->metaclass || (meta && meta->isSubclassOf(*base->metaclass))) continue;
        if (meta && !base->metaclass->isSubclassOf(*meta))
            typeError("metaclass conflict: the metaclass of a derived class must be a (non-strict) subclass of the metaclasses of all its bases");
        meta = base->metaclass;
    }
    if (!meta) return;
    if (auto creator = meta->lookup("__new__"); creator && !creator->is(Kind::Native))
        typeError(fmt::format("class {}: metaclass {} defines __new__, which the cwb subset does not run (its __init__ runs once the "
                              "class exists)", cls->name, meta->name));
    cls->metaclass = meta;
    auto init = meta->lookup("__init__");
    if (!init || !init->is(Kind::Function)) return;
    // The namespace as the class body left it: its names in the order the body bound them.
    auto names = std::make_shared<DictObject>();
    for (const std::string& name : cls->definitionOrder)
        if (auto it = cls->dict.find(name); it != cls->dict.end()) names->set(makeStr(name), it->second);
    // The bases as a class statement writes them: none for a class whose only base is the implicit object.
    ValueList bases(cls->bases.begin(), cls->bases.end());
    if (bases.size() == 1 && bases[0].identical(Value(m.builtinClass("object")))) bases.clear();
    m.call(*init, {Value(cls), makeStr(cls->name), makeTuple(std::move(bases)), Value(names)});
}

std::optional<Value> Interpreter::metaclassMethod(const Value& cls, const std::string& name) {
    const auto& meta = cls.as<ClassObject>().metaclass;
    if (!meta) return std::nullopt;
    auto method = meta->lookup(name);
    if (!method || !method->is(Kind::Function)) return std::nullopt;
    return Value(std::make_shared<BoundMethodObject>(cls, *method));
}

// type(name, bases, namespace): a class made at run time, as a class statement with that body would make it.
Value makeClassFromNamespace(Interpreter& m, const Value& name, const Value& bases, const Value& namespaceDict) {
    if (!name.is(Kind::Str)) typeError(fmt::format("type.__new__() argument 1 must be str, not {}", m.classOf(name)->name));
    if (!bases.is(Kind::Tuple)) typeError(fmt::format("type.__new__() argument 2 must be tuple, not {}", m.classOf(bases)->name));
    if (!namespaceDict.is(Kind::Dict)) typeError(fmt::format("type.__new__() argument 3 must be dict, not {}", m.classOf(namespaceDict)->name));
    std::vector<std::shared_ptr<ClassObject>> baseList;
    for (const Value& base : bases.as<TupleObject>().items) {
        if (!base.is(Kind::Class)) typeError("bases must be types");
        baseList.push_back(base.ref<ClassObject>());
    }
    if (baseList.empty()) baseList.push_back(m.builtinClass("object"));
    auto cls = std::make_shared<ClassObject>(name.str(), std::move(baseList));
    cls->module = "__main__";
    if (Frame* caller = m.currentFrame(); caller && caller->globals) {
        auto moduleName = caller->globals->find("__name__");
        if (moduleName != caller->globals->end() && moduleName->second.is(Kind::Str)) cls->module = moduleName->second.str();
    }
    for (const auto& [key, value] : namespaceDict.as<DictObject>().entries()) {
        if (!key.is(Kind::Str)) typeError("type() namespace keys must be str");
        cls->dict[key.str()] = value;
    }
    if (auto module = cls->dict.find("__module__"); module != cls->dict.end() && module->second.is(Kind::Str)) cls->module = module->second.str();
    finishClass(m, cls);
    return Value(cls);
}

// super(C, obj) and the zero-argument super() of a method (its __class__ cell and first argument); attribute reads
// through it continue along the MRO of obj's type after C (Interpreter::findAttr).
Value makeSuper(Interpreter& m, CallArgs& a) {
    if (!a.positional.empty()) {
        if (a.positional.size() != 2) typeError("super() takes 0 or 2 arguments");
        if (!a.positional[0].is(Kind::Class)) typeError(fmt::format("super() argument 1 must be a type, not {}", m.classOf(a.positional[0])->name));
        const ClassObject& start = a.positional[0].as<ClassObject>();
        const Value& receiver = a.positional[1];
        if (!m.isInstance(receiver, start) && !(receiver.is(Kind::Class) && receiver.as<ClassObject>().isSubclassOf(start)))
            typeError("super(type, obj): obj must be an instance or subtype of type");
        return Value(std::make_shared<SuperObject>(a.positional[0].ref<ClassObject>(), receiver));
    }
    Frame* frame = m.currentFrame();
    const auto& freeVars = frame ? frame->code->freeVars : std::vector<std::string>{};
    auto it = std::find(freeVars.begin(), freeVars.end(), "__class__");
    if (!frame || it == freeVars.end() || frame->fast.empty()) raise("RuntimeError", "super(): no arguments");
    auto& cell = frame->cells[frame->code->cellVars.size() + static_cast<size_t>(it - freeVars.begin())];
    if (!cell->value) raise("RuntimeError", "super(): empty __class__ cell");
    return Value(std::make_shared<SuperObject>(cell->value->ref<ClassObject>(), frame->fast[0]));
}

}  // namespace eng::vm
