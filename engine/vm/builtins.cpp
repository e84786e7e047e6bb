// The builtin classes (object, int, float, str, list, tuple, dict, set, range, ...) and functions (print,
// len, min, max, sorted, isinstance, getattr, zip, enumerate, ...) of the subset.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "frontend/code_object.h"
#include "ops/operators.h"
#include "tensor/registry.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

Value tensorDunder(const char* name, const Value& v) {
    return callOp(name, {v});
}

const Value& arg(CallArgs& args, size_t i, const char* function) {
    if (i >= args.positional.size())
        typeError(fmt::format("{} expected at least {} argument{}, got {}", function, i + 1, i == 0 ? "" : "s",
                              args.positional.size()));
    return args.positional[i];
}

Value toInt(Interpreter& vm, const Value& v) {
    switch (v.kind()) {
        case Kind::Bool:
        case Kind::Int: return Value(v.asInt());
        case Kind::Float: {
            double x = v.asFloat();
            if (std::isnan(x)) raise("ValueError", "cannot convert float NaN to integer");
            if (std::isinf(x)) raise("OverflowError", "cannot convert float infinity to integer");
            return Value(static_cast<int64_t>(std::trunc(x)));
        }
        case Kind::Str: {
            const std::string& text = v.str();
            size_t used = 0;
            try {
                int64_t n = std::stoll(text, &used);
                if (used == text.size()) return Value(n);
            } catch (const std::exception&) {
            }
            raise("ValueError", fmt::format("invalid literal for int() with base 10: {}", vm.repr(v)));
        }
        case Kind::Tensor: return tensorDunder("Tensor.__int__", v);
        case Kind::Instance:
            // An object's own __int__, else __index__ (an IntEnum member), as int() asks for them.
            for (const char* dunder : {"__int__", "__index__"})
                if (auto method = vm.findAttr(v, dunder)) {
                    Value result = vm.call(*method, {});
                    if (!result.is(Kind::Int) && !result.is(Kind::Bool)) typeError(fmt::format("{} returned non-int (type {})", dunder, vm.classOf(result)->name));
                    return Value(result.asInt());
                }
            [[fallthrough]];
        default: typeError(fmt::format("int() argument must be a string, a bytes-like object or a real number, not '{}'", vm.classOf(v)->name));
    }
}

Value toFloat(Interpreter& vm, const Value& v) {
    switch (v.kind()) {
        case Kind::Bool:
        case Kind::Int:
        case Kind::Float: return Value(v.asFloat());
        case Kind::Str: {
            std::string text = v.str();
            std::string lower = text;
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
            if (lower == "inf" || lower == "+inf" || lower == "infinity") return Value(HUGE_VAL);
            if (lower == "-inf" || lower == "-infinity") return Value(-HUGE_VAL);
            if (lower == "nan") return Value(std::nan(""));
            size_t used = 0;
            try {
                double x = std::stod(text, &used);
                if (used == text.size()) return Value(x);
            } catch (const std::exception&) {
            }
            raise("ValueError", fmt::format("could not convert string to float: {}", vm.repr(v)));
        }
        case Kind::Tensor: return tensorDunder("Tensor.__float__", v);
        default: typeError(fmt::format("float() argument must be a string or a real number, not '{}'", vm.classOf(v)->name));
    }
}

Value extremum(Interpreter& vm, CallArgs& args, bool wantMax) {
    const char* name = wantMax ? "max" : "min";
    std::optional<Value> key = args.take("key");
    std::optional<Value> fallback = args.take("default");
    ValueList items = args.positional.size() == 1 ? vm.toList(args.positional[0]) : args.positional;
    if (items.empty()) {
        if (fallback) return *fallback;
        raise("ValueError", fmt::format("{}() iterable argument is empty", name));
    }
    Value best = items[0];
    Value bestKey = key ? vm.call(*key, {best}) : best;
    for (size_t i = 1; i < items.size(); ++i) {
        Value candidateKey = key ? vm.call(*key, {items[i]}) : items[i];
        // Python keeps the first of equal extremes: only a strict improvement replaces it.
        if (vm.truthy(vm.compare(wantMax ? 4 : 0, candidateKey, bestKey))) {
            best = items[i];
            bestKey = candidateKey;
        }
    }
    return best;
}

Value makeIterator(std::function<std::optional<Value>()> next) { return Value(std::make_shared<IteratorObject>(std::move(next))); }

/// dict_keys, dict_values and dict_items: live views of their dict (they see later stores), as in Python.
void defineDictViews(Interpreter& vm) {
    auto mapping = [](const Value& view) -> DictObject& { return view.as<InstanceObject>().attributes.at("mapping").as<DictObject>(); };
    for (const char* name : {"dict_keys", "dict_values", "dict_items"}) {
        auto cls = vm.defineClass(name, "object");
        const std::string kind = name;
        // One element of the view: the key, the value or the (key, value) pair of entry i.
        auto element = [kind](const std::pair<Value, Value>& entry) {
            if (kind == "dict_keys") return entry.first;
            if (kind == "dict_values") return entry.second;
            return makeTuple({entry.first, entry.second});
        };
        cls->dict["__len__"] = makeNative("__len__", [mapping](Interpreter&, CallArgs& a) {
            return Value(static_cast<int64_t>(mapping(a.positional.at(0)).size()));
        });
        cls->dict["__iter__"] = makeNative("__iter__", [mapping, element](Interpreter&, CallArgs& a) {
            Value view = a.positional.at(0);
            size_t i = 0;
            size_t size = mapping(view).entries().size();
            return makeIterator([mapping, element, view, i, size]() mutable -> std::optional<Value> {
                const auto& entries = mapping(view).entries();
                if (entries.size() != size) raise("RuntimeError", "dictionary changed size during iteration");
                if (i >= entries.size()) return std::nullopt;
                return element(entries[i++]);
            });
        });
        cls->dict["__repr__"] = makeNative("__repr__", [mapping, element, kind](Interpreter& m, CallArgs& a) {
            std::string out = kind + "([";
            bool first = true;
            for (const auto& entry : mapping(a.positional.at(0)).entries()) {
                out += (first ? "" : ", ") + m.repr(element(entry));
                first = false;
            }
            return makeStr(out + "])");
        });
        if (kind == "dict_values") continue;  // values views compare by identity, as in Python
        // Keys and items views are set-like: equal to a view or set with the same elements.
        cls->dict["__eq__"] = makeNative("__eq__", [](Interpreter& m, CallArgs& a) {
            const Value& self = a.positional.at(0);
            const Value& other = a.positional.at(1);
            bool setLike = other.is(Kind::Set) || (other.is(Kind::Instance) && other.as<InstanceObject>().cls == self.as<InstanceObject>().cls);
            if (!setLike) return Value(false);
            ValueList mine = m.toList(self), theirs = m.toList(other);
            if (mine.size() != theirs.size()) return Value(false);
            for (const Value& item : mine)
                if (!m.contains(other, item)) return Value(false);
            return Value(true);
        });
    }
}

void defineConstructors(Interpreter& vm) {
    auto constructor = [&vm](const char* name, NativeFn fn) {
        vm.builtinClass(name)->dict["__new__"] = makeNative(name, [fn = std::move(fn)](Interpreter& machine, CallArgs& args) {
            args.positional.erase(args.positional.begin());
            return fn(machine, args);
        });
    };
    constructor("int", [](Interpreter& m, CallArgs& a) { return a.positional.empty() ? Value(0) : toInt(m, a.positional[0]); });
    constructor("float", [](Interpreter& m, CallArgs& a) { return a.positional.empty() ? Value(0.0) : toFloat(m, a.positional[0]); });
    constructor("bool", [](Interpreter& m, CallArgs& a) { return Value(!a.positional.empty() && m.truthy(a.positional[0])); });
    constructor("str", [](Interpreter& m, CallArgs& a) { return makeStr(a.positional.empty() ? "" : m.str(a.positional[0])); });
    constructor("list", [](Interpreter& m, CallArgs& a) { return makeList(a.positional.empty() ? ValueList{} : m.toList(a.positional[0])); });
    constructor("tuple", [](Interpreter& m, CallArgs& a) { return makeTuple(a.positional.empty() ? ValueList{} : m.toList(a.positional[0])); });
    for (bool frozen : {false, true})
        constructor(frozen ? "frozenset" : "set", [frozen](Interpreter& m, CallArgs& a) {
            auto set = std::make_shared<SetObject>();
            set->frozen = frozen;
            if (!a.positional.empty())
                for (const Value& v : m.toList(a.positional[0])) set->add(v);
            return Value(set);
        });
    constructor("dict", [](Interpreter& m, CallArgs& a) {
        auto dict = std::make_shared<DictObject>();
        if (a.positional.size() > 1) typeError(fmt::format("dict expected at most 1 argument, got {}", a.positional.size()));
        if (!a.positional.empty()) updateDict(m, *dict, a.positional[0]);
        for (auto& [key, value] : a.keywords) dict->set(makeStr(key), value);
        return Value(dict);
    });
    constructor("type", [](Interpreter& m, CallArgs& a) {
        if (a.positional.size() == 1) return Value(m.classOf(a.positional[0]));
        if (a.positional.size() != 3) typeError("type() takes 1 or 3 arguments");
        return makeClassFromNamespace(m, a.positional[0], a.positional[1], a.positional[2]);
    });
    // type.__call__(cls, *args): what a metaclass's __call__ reaches through super() to make an instance.
    vm.builtinClass("type")->dict["__call__"] = makeNative("__call__", [](Interpreter& m, CallArgs& a) {
        if (a.positional.empty() || !a.positional[0].is(Kind::Class)) typeError("descriptor '__call__' requires a 'type' object");
        Value cls = a.positional.front();
        a.positional.erase(a.positional.begin());
        return m.instantiate(cls, a);
    });
    // types.MethodType(function, object) and types.ModuleType(name).
    constructor("method", [](Interpreter&, CallArgs& a) {
        if (a.positional.size() != 2) typeError(fmt::format("method expected 2 arguments, got {}", a.positional.size()));
        return Value(std::make_shared<BoundMethodObject>(a.positional[1], a.positional[0]));
    });
    constructor("module", [](Interpreter& m, CallArgs& a) {
        if (a.positional.empty() || !a.positional[0].is(Kind::Str)) typeError("module.__new__() argument 'name' must be str");
        return Value(std::make_shared<ModuleObject>(m.str(a.positional[0])));
    });
    constructor("object", [](Interpreter& m, CallArgs&) { return Value(std::make_shared<InstanceObject>(m.builtinClass("object"))); });
    constructor("slice", [](Interpreter&, CallArgs& a) {
        ValueList b = a.positional;
        if (b.size() == 1) return Value(std::make_shared<SliceObject>(Value(), b[0], Value()));
        b.resize(3);
        return Value(std::make_shared<SliceObject>(b[0], b[1], b[2]));
    });
    constructor("super", makeSuper);
}

}  // namespace

void installBuiltinFunctions(Namespace& builtins);
void installTextBuiltins(Namespace& builtins);  // chr() and ord() (scalar_methods.cpp)
void defineRange(Interpreter& vm, Namespace& builtins);  // range (range_builtin.cpp)

void installBuiltins(Interpreter& vm, Namespace& builtins) {
    vm.defineClass("object", "");
    for (const char* name : {"type", "NoneType", "int", "float", "str", "list", "tuple", "dict", "set", "frozenset", "slice",
                             "ellipsis", "function", "method", "builtin_function_or_method", "module", "cell", "iterator", "generator", "super", "code",
                             "dtype", "device", "Tensor"})
        vm.defineClass(name, "object");
    vm.defineClass("bool", "int");
    vm.defineClass("Size", "tuple")->module = "torch";
    vm.defineClass("Parameter", "Tensor")->module = "torch.nn.parameter";
    vm.builtinClass("Tensor")->module = "torch";
    vm.builtinClass("dtype")->module = "torch";
    vm.builtinClass("device")->module = "torch";
    for (const char* name : {"object", "type", "int", "float", "bool", "str", "list", "tuple", "dict", "set", "frozenset", "slice",
                             "super"})
        builtins[name] = Value(vm.builtinClass(name));
    installExceptions(vm, builtins);
    defineConstructors(vm);
    defineRange(vm, builtins);
    defineDictViews(vm);
    // Method decorators: instances hold the function in "__func__"; attribute lookup (calls.cpp) applies them.
    for (const char* name : {"staticmethod", "classmethod", "property"}) {
        auto cls = vm.defineClass(name, "object");
        cls->dict["__new__"] = makeNative(name, [](Interpreter&, CallArgs& a) {
            auto wrapper = std::make_shared<InstanceObject>(a.positional.at(0).ref<ClassObject>());
            wrapper->attributes["__func__"] = a.positional.at(1);
            return Value(wrapper);
        });
        builtins[name] = Value(cls);
    }
    // property.setter(fset) / property.deleter(fdel): a new property with the same getter that attribute stores /
    // deletions call (calls.cpp storeInstanceAttr, deleteInstanceAttr).
    for (const char* accessor : {"setter", "deleter"})
        vm.builtinClass("property")->dict[accessor] = makeNative(accessor, [accessor](Interpreter&, CallArgs& a) {
            const auto& old = a.positional.at(0).as<InstanceObject>();
            auto copy = std::make_shared<InstanceObject>(old.cls);
            copy->attributes = old.attributes;
            copy->attributes[std::string(accessor) == "setter" ? "fset" : "fdel"] = a.positional.at(1);
            return Value(copy);
        });
    builtins["None"] = Value();
    builtins["Ellipsis"] = ellipsisValue();
    installBuiltinFunctions(builtins);
    installTextBuiltins(builtins);
}

void installBuiltinFunctions(Namespace& builtins) {
    auto def = [&builtins](const char* name, NativeFn fn) { builtins[name] = makeNative(name, std::move(fn)); };
    def("print", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> sep = a.take("sep");
        std::optional<Value> end = a.take("end");
        a.take("flush");
        std::string line;
        for (size_t i = 0; i < a.positional.size(); ++i) {
            if (i > 0) line += sep && !sep->isNone() ? sep->str() : " ";
            line += m.str(a.positional[i]);
        }
        line += end && !end->isNone() ? end->str() : "\n";
        m.out() << line;
        return Value();
    });
    def("len", [](Interpreter& m, CallArgs& a) { return Value(m.length(arg(a, 0, "len"))); });
    def("repr", [](Interpreter& m, CallArgs& a) { return makeStr(m.repr(arg(a, 0, "repr"))); });
    def("id", [](Interpreter&, CallArgs& a) {
        const Value& v = arg(a, 0, "id");
        return Value(v.isNumber() || v.isNone() ? int64_t{0} : static_cast<int64_t>(reinterpret_cast<uintptr_t>(v.object().get())));
    });
    def("abs", [](Interpreter& m, CallArgs& a) {
        const Value& v = arg(a, 0, "abs");
        if (v.is(Kind::Float)) return Value(std::fabs(v.asFloat()));
        if (v.is(Kind::Int) || v.is(Kind::Bool)) return Value(std::llabs(v.asInt()));
        if (v.is(Kind::Tensor)) return tensorDunder("Tensor.__abs__", v);
        typeError(fmt::format("bad operand type for abs(): '{}'", m.classOf(v)->name));
    });
    def("divmod", [](Interpreter& m, CallArgs& a) {
        // (a // b, a % b) with the operators' own rules (floor semantics, ZeroDivisionError, tensors).
        constexpr uint32_t kFloorDivide = ops::binaryOpArg(ops::BinaryOperator::FloorDivide, false);
        constexpr uint32_t kRemainder = ops::binaryOpArg(ops::BinaryOperator::Remainder, false);
        const Value& x = arg(a, 0, "divmod");
        const Value& y = arg(a, 1, "divmod");
        return makeTuple({m.binaryOp(kFloorDivide, x, y), m.binaryOp(kRemainder, x, y)});
    });
    def("pow", [](Interpreter& m, CallArgs& a) {
        // pow(base, exp) is base ** exp; pow(base, exp, mod) is modular exponentiation of ints, as CPython's.
        constexpr uint32_t kPower = ops::binaryOpArg(ops::BinaryOperator::Power, false);
        const Value& base = arg(a, 0, "pow");
        const Value& exponent = arg(a, 1, "pow");
        if (a.positional.size() < 3 || a.positional[2].isNone()) return m.binaryOp(kPower, base, exponent);
        const Value& modulus = a.positional[2];
        auto integral = [](const Value& v) { return v.is(Kind::Int) || v.is(Kind::Bool); };
        if (!integral(base) || !integral(exponent) || !integral(modulus))
            typeError("pow() 3rd argument not allowed unless all arguments are integers");
        if (exponent.asInt() < 0) raise("ValueError", "base is not invertible for the given modulus");
        const int64_t mod = modulus.asInt();
        if (mod == 0) raise("ValueError", "pow() 3rd argument cannot be 0");
        __extension__ typedef __int128 Wide;  // products of two residues fit
        Wide result = 1 % mod, b = base.asInt() % mod;
        for (int64_t e = exponent.asInt(); e > 0; e >>= 1) {
            if (e & 1) result = result * b % mod;
            b = b * b % mod;
        }
        int64_t r = static_cast<int64_t>(result);
        if (r != 0 && ((r < 0) != (mod < 0))) r += mod;  // the result takes the modulus's sign
        return Value(r);
    });
    def("min", [](Interpreter& m, CallArgs& a) { return extremum(m, a, false); });
    def("max", [](Interpreter& m, CallArgs& a) { return extremum(m, a, true); });
    def("sum", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> start = a.take("start");
        Value total = a.positional.size() > 1 ? a.positional[1] : start.value_or(Value(0));
        constexpr uint32_t kAdd = ops::binaryOpArg(ops::BinaryOperator::Add, false);
        for (const Value& v : m.toList(arg(a, 0, "sum"))) total = m.binaryOp(kAdd, total, v);
        return total;
    });
    def("isinstance", [](Interpreter& m, CallArgs& a) {
        const Value& types = arg(a, 1, "isinstance");
        ValueList options = types.is(Kind::Tuple) ? types.as<TupleObject>().items : ValueList{types};
        for (const Value& t : options) {
            if (!t.is(Kind::Class)) typeError("isinstance() arg 2 must be a type, a tuple of types, or a union");
            // The abstract base classes of collections.abc decide for themselves (their metaclass's hook in Python).
            if (auto hook = t.as<ClassObject>().dict.find("__instancecheck__"); hook != t.as<ClassObject>().dict.end()) {
                if (m.truthy(m.call(hook->second, {t, a.positional[0]}))) return Value(true);
                continue;
            }
            if (m.isInstance(a.positional[0], t.as<ClassObject>())) return Value(true);
        }
        return Value(false);
    });
    def("issubclass", [](Interpreter&, CallArgs& a) {
        const Value& types = arg(a, 1, "issubclass");
        if (!a.positional[0].is(Kind::Class)) typeError("issubclass() arg 1 must be a class");
        ValueList options = types.is(Kind::Tuple) ? types.as<TupleObject>().items : ValueList{types};
        for (const Value& t : options)
            if (t.is(Kind::Class) && a.positional[0].as<ClassObject>().isSubclassOf(t.as<ClassObject>())) return Value(true);
        return Value(false);
    });
    def("callable", [](Interpreter& m, CallArgs& a) {
        const Value& v = arg(a, 0, "callable");
        bool result = v.is(Kind::Function) || v.is(Kind::BoundMethod) || v.is(Kind::Native) || v.is(Kind::Class) ||
                      (v.is(Kind::Instance) && m.findAttr(v, "__call__"));
        return Value(result);
    });
    def("getattr", [](Interpreter& m, CallArgs& a) {
        const Value& name = arg(a, 1, "getattr");
        if (!name.is(Kind::Str)) typeError("attribute name must be string");
        if (a.positional.size() > 2) {
            if (auto v = m.findAttr(a.positional[0], name.str())) return *v;
            return a.positional[2];
        }
        return m.getAttr(a.positional[0], name.str());
    });
    def("setattr", [](Interpreter& m, CallArgs& a) {
        m.setAttr(arg(a, 0, "setattr"), arg(a, 1, "setattr").str(), arg(a, 2, "setattr"));
        return Value();
    });
    def("delattr", [](Interpreter& m, CallArgs& a) {
        const Value& name = arg(a, 1, "delattr");
        if (!name.is(Kind::Str)) typeError(fmt::format("attribute name must be string, not '{}'", m.classOf(name)->name));
        m.delAttr(arg(a, 0, "delattr"), name.str());
        return Value();
    });
    def("hasattr", [](Interpreter& m, CallArgs& a) {
        try {
            return Value(m.findAttr(arg(a, 0, "hasattr"), arg(a, 1, "hasattr").str()).has_value());
        } catch (const VmError& error) {
            if (error.pythonClass() == "AttributeError") return Value(false);
            throw;
        }
    });
    def("round", [](Interpreter& m, CallArgs& a) -> Value {
        const Value& v = arg(a, 0, "round");
        std::optional<Value> digits = a.positional.size() > 1 ? std::optional<Value>(a.positional[1]) : a.take("ndigits");
        if (v.is(Kind::Tensor)) return callOp("torch.round", {v});
        if (v.is(Kind::Int) || v.is(Kind::Bool)) {
            if (!digits || digits->isNone() || digits->asInt() >= 0) return Value(v.asInt());
            // round(1250, -2): to a multiple of 10**-ndigits, halves to even, as int.__round__.
            const int64_t unit = static_cast<int64_t>(std::pow(10.0, static_cast<double>(-digits->asInt())));
            return Value(static_cast<int64_t>(std::nearbyint(static_cast<double>(v.asInt()) / static_cast<double>(unit))) * unit);
        }
        if (!v.is(Kind::Float)) typeError(fmt::format("type {} doesn't define __round__ method", m.classOf(v)->name));
        if (!digits || digits->isNone()) return Value(static_cast<int64_t>(std::nearbyint(v.asFloat())));
        const double x = v.asFloat();
        const int64_t n = digits->asInt();
        if (!std::isfinite(x) || n > 300) return Value(x);
        if (n >= 0) {  // Python rounds the exact binary value (2.675 is 2.67499999...: 2.67), as printf's conversion does
            char text[1024];
            std::snprintf(text, sizeof text, "%.*f", static_cast<int>(n), x);
            return Value(std::strtod(text, nullptr));
        }
        const double scale = std::pow(10.0, static_cast<double>(-n));
        return Value(std::nearbyint(x / scale) * scale);
    });
    def("sorted", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> key = a.take("key");
        std::optional<Value> reverse = a.take("reverse");
        ValueList items = m.toList(arg(a, 0, "sorted"));
        ValueList keys;
        for (const Value& v : items) keys.push_back(key && !key->isNone() ? m.call(*key, {v}) : v);
        std::vector<size_t> order(items.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        bool descending = reverse && m.truthy(*reverse);
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
            constexpr uint32_t kLess = static_cast<uint32_t>(ops::CompareOperator::Less);
            return m.truthy(descending ? m.compare(kLess, keys[y], keys[x]) : m.compare(kLess, keys[x], keys[y]));
        });
        ValueList sortedItems;
        for (size_t i : order) sortedItems.push_back(items[i]);
        return makeList(std::move(sortedItems));
    });
    def("any", [](Interpreter& m, CallArgs& a) {
        for (const Value& v : m.toList(arg(a, 0, "any")))
            if (m.truthy(v)) return Value(true);
        return Value(false);
    });
    def("all", [](Interpreter& m, CallArgs& a) {
        for (const Value& v : m.toList(arg(a, 0, "all")))
            if (!m.truthy(v)) return Value(false);
        return Value(true);
    });
    def("reversed", [](Interpreter& m, CallArgs& a) {
        ValueList items = m.toList(arg(a, 0, "reversed"));
        std::reverse(items.begin(), items.end());
        return m.iterate(makeList(std::move(items)));
    });
    def("iter", [](Interpreter& m, CallArgs& a) { return m.iterate(arg(a, 0, "iter")); });
    def("next", [](Interpreter& m, CallArgs& a) {
        const Value& it = arg(a, 0, "next");
        if (!it.is(Kind::Iterator)) typeError(fmt::format("'{}' object is not an iterator", m.classOf(it)->name));
        if (auto v = it.as<IteratorObject>().next()) return *v;
        if (a.positional.size() > 1) return a.positional[1];
        // A generator's return value travels as StopIteration.value.
        const auto* generator = dynamic_cast<const GeneratorObject*>(&it.as<IteratorObject>());
        m.raiseStopIteration(generator ? generator->returnValue : Value());
    });
    def("enumerate", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> start = a.take("start");
        int64_t index = a.positional.size() > 1 ? a.positional[1].asInt() : start ? start->asInt() : 0;
        Value iterator = m.iterate(arg(a, 0, "enumerate"));
        return makeIterator([iterator, index]() mutable -> std::optional<Value> {
            auto v = iterator.as<IteratorObject>().next();
            if (!v) return std::nullopt;
            return makeTuple({Value(index++), std::move(*v)});
        });
    });
    def("zip", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> strictArg = a.take("strict");
        bool strict = strictArg && m.truthy(*strictArg);
        ValueList iterators;
        for (const Value& v : a.positional) iterators.push_back(m.iterate(v));
        return makeIterator([iterators, strict]() -> std::optional<Value> {
            if (iterators.empty()) return std::nullopt;
            // strict=True: the first exhausted iterator must be exhausted together with all the others.
            auto lengthMismatch = [](size_t i, const char* how) {
                raise("ValueError", fmt::format("zip() argument {} is {} than argument{}", i + 1, how, i == 1 ? " 1" : fmt::format("s 1-{}", i)));
            };
            ValueList row;
            for (size_t i = 0; i < iterators.size(); ++i) {
                auto v = iterators[i].as<IteratorObject>().next();
                if (!v) {
                    if (strict && i > 0) lengthMismatch(i, "shorter");
                    for (size_t j = 1; strict && i == 0 && j < iterators.size(); ++j)
                        if (iterators[j].as<IteratorObject>().next()) lengthMismatch(j, "longer");
                    return std::nullopt;
                }
                row.push_back(std::move(*v));
            }
            return makeTuple(std::move(row));
        });
    });
    def("map", [](Interpreter& m, CallArgs& a) {
        Value function = arg(a, 0, "map");
        ValueList iterators;
        for (size_t i = 1; i < a.positional.size(); ++i) iterators.push_back(m.iterate(a.positional[i]));
        return makeIterator([&m, function, iterators]() -> std::optional<Value> {
            ValueList row;
            for (const Value& it : iterators) {
                auto v = it.as<IteratorObject>().next();
                if (!v) return std::nullopt;
                row.push_back(std::move(*v));
            }
            return m.call(function, std::move(row));
        });
    });
    def("filter", [](Interpreter& m, CallArgs& a) {
        Value function = arg(a, 0, "filter");
        Value iterator = m.iterate(arg(a, 1, "filter"));
        return makeIterator([&m, function, iterator]() -> std::optional<Value> {
            while (auto v = iterator.as<IteratorObject>().next()) {
                bool keep = function.isNone() ? m.truthy(*v) : m.truthy(m.call(function, {*v}));
                if (keep) return v;
            }
            return std::nullopt;
        });
    });
}

}  // namespace eng::vm
