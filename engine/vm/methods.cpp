// Attributes of builtin values: str/list/tuple/dict/set methods, named-tuple fields, dtype/device fields,
// and tensor methods and properties, which go to the op registry.
#include <fmt/core.h>

#include <algorithm>

#include "ops/operators.h"
#include "tensor/autograd/node.h"
#include "tensor/registry.h"
#include "vm/interpreter.h"

namespace eng::vm {

/// Tensor.untyped_storage() (tensor_storage.cpp).
Value untypedStorage(Interpreter& vm, const Value& tensorValue, CallArgs& args);
/// The str methods of scalar_methods.cpp (rsplit, partition, zfill, ...), or nullopt.
std::optional<Value> strExtraAttribute(const Value& self, const std::string& name);
/// int's methods and number attributes (scalar_methods.cpp), or nullopt.
std::optional<Value> intAttribute(const Value& self, const std::string& name);
std::optional<Value> floatAttribute(const Value& self, const std::string& name);

namespace {

using Method = std::function<Value(Interpreter&, const Value& self, CallArgs&)>;

Value bindMethod(const Value& self, const std::string& name, Method method) {
    return makeNative(name, [self, method = std::move(method)](Interpreter& vm, CallArgs& args) { return method(vm, self, args); });
}

const Value& argAt(CallArgs& args, size_t i, const std::string& name) {
    if (i >= args.positional.size()) typeError(fmt::format("{}() missing required argument", name));
    return args.positional[i];
}

std::vector<std::string> splitText(const std::string& text, const Value& separator, int64_t maxSplit) {
    std::vector<std::string> parts;
    if (separator.isNone()) {
        size_t i = 0;
        while (i < text.size()) {
            while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
            if (i >= text.size()) break;
            if (maxSplit >= 0 && static_cast<int64_t>(parts.size()) == maxSplit) {
                parts.push_back(text.substr(i));
                break;
            }
            size_t end = i;
            while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
            parts.push_back(text.substr(i, end - i));
            i = end;
        }
        return parts;
    }
    const std::string& sep = separator.str();
    if (sep.empty()) raise("ValueError", "empty separator");
    size_t start = 0;
    for (size_t found; (found = text.find(sep, start)) != std::string::npos;) {
        if (maxSplit >= 0 && static_cast<int64_t>(parts.size()) == maxSplit) break;
        parts.push_back(text.substr(start, found - start));
        start = found + sep.size();
    }
    parts.push_back(text.substr(start));
    return parts;
}

std::string strip(const std::string& text, const Value& chars, bool left, bool right) {
    std::string set = chars.isNone() ? std::string(" \t\n\r\f\v") : chars.str();
    size_t begin = left ? text.find_first_not_of(set) : 0;
    if (begin == std::string::npos) return "";
    size_t end = right ? text.find_last_not_of(set) + 1 : text.size();
    return text.substr(begin, end - begin);
}

/// str.format: {} / {0} / {name} fields with optional !r/!s and :spec.
std::string formatString(Interpreter& vm, const std::string& pattern, CallArgs& args) {
    std::string out;
    size_t automatic = 0;
    for (size_t i = 0; i < pattern.size(); ++i) {
        char c = pattern[i];
        if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
            out += '{';
            ++i;
        } else if (c == '}' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
            out += '}';
            ++i;
        } else if (c == '{') {
            size_t close = pattern.find('}', i);
            if (close == std::string::npos) raise("ValueError", "Single '{' encountered in format string");
            std::string field = pattern.substr(i + 1, close - i - 1);
            std::string spec;
            if (size_t colon = field.find(':'); colon != std::string::npos) {
                spec = field.substr(colon + 1);
                field = field.substr(0, colon);
            }
            char conversion = 0;
            if (size_t bang = field.find('!'); bang != std::string::npos) {
                conversion = field.size() > bang + 1 ? field[bang + 1] : 's';
                field = field.substr(0, bang);
            }
            Value value;
            if (field.empty()) {
                value = argAt(args, automatic++, "format");
            } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
                value = argAt(args, static_cast<size_t>(std::stoul(field)), "format");
            } else {
                auto found = std::find_if(args.keywords.begin(), args.keywords.end(), [&](const auto& k) { return k.first == field; });
                if (found == args.keywords.end()) vm.raiseKeyError(makeStr(field));
                value = found->second;
            }
            if (conversion == 'r') value = makeStr(vm.repr(value));
            if (conversion == 's') value = makeStr(vm.str(value));
            out += vm.format(value, spec);
            i = close;
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<Value> strAttribute(const Value& self, const std::string& name) {
    static const std::unordered_map<std::string, Method> kMethods = {
        {"join", [](Interpreter& vm, const Value& s, CallArgs& a) {
             std::string out;
             ValueList items = vm.toList(argAt(a, 0, "join"));
             for (size_t i = 0; i < items.size(); ++i) {
                 if (!items[i].is(Kind::Str))
                     typeError(fmt::format("sequence item {}: expected str instance, {} found", i, vm.classOf(items[i])->name));
                 if (i > 0) out += s.str();
                 out += items[i].str();
             }
             return makeStr(std::move(out));
         }},
        {"split", [](Interpreter&, const Value& s, CallArgs& a) {
             std::optional<Value> sep = a.positional.empty() ? a.take("sep") : std::optional<Value>(a.positional[0]);
             std::optional<Value> limit = a.positional.size() > 1 ? std::optional<Value>(a.positional[1]) : a.take("maxsplit");
             ValueList parts;
             for (auto& part : splitText(s.str(), sep.value_or(Value()), limit ? limit->asInt() : -1)) parts.push_back(makeStr(part));
             return makeList(std::move(parts));
         }},
        {"splitlines", [](Interpreter&, const Value& s, CallArgs&) {
             ValueList lines;
             const std::string& text = s.str();
             size_t start = 0;
             while (start < text.size()) {
                 size_t end = text.find('\n', start);
                 if (end == std::string::npos) end = text.size();
                 lines.push_back(makeStr(text.substr(start, end - start)));
                 start = end + 1;
             }
             return makeList(std::move(lines));
         }},
        {"strip", [](Interpreter&, const Value& s, CallArgs& a) { return makeStr(strip(s.str(), a.positional.empty() ? Value() : a.positional[0], true, true)); }},
        {"lstrip", [](Interpreter&, const Value& s, CallArgs& a) { return makeStr(strip(s.str(), a.positional.empty() ? Value() : a.positional[0], true, false)); }},
        {"rstrip", [](Interpreter&, const Value& s, CallArgs& a) { return makeStr(strip(s.str(), a.positional.empty() ? Value() : a.positional[0], false, true)); }},
        {"upper", [](Interpreter&, const Value& s, CallArgs&) {
             std::string t = s.str();
             std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
             return makeStr(t);
         }},
        {"lower", [](Interpreter&, const Value& s, CallArgs&) {
             std::string t = s.str();
             std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
             return makeStr(t);
         }},
        {"startswith", [](Interpreter&, const Value& s, CallArgs& a) { return Value(s.str().starts_with(argAt(a, 0, "startswith").str())); }},
        {"endswith", [](Interpreter&, const Value& s, CallArgs& a) { return Value(s.str().ends_with(argAt(a, 0, "endswith").str())); }},
        {"find", [](Interpreter&, const Value& s, CallArgs& a) {
             size_t at = s.str().find(argAt(a, 0, "find").str());
             return Value(at == std::string::npos ? int64_t{-1} : static_cast<int64_t>(at));
         }},
        {"count", [](Interpreter&, const Value& s, CallArgs& a) {
             // Non-overlapping occurrences in s[start:end]; the empty string occurs between every two characters.
             const std::string& text = s.str();
             const std::string& sub = argAt(a, 0, "count").str();
             const auto size = static_cast<int64_t>(text.size());
             auto bound = [&](size_t i, int64_t fallback) {
                 if (a.positional.size() <= i || a.positional[i].isNone()) return fallback;
                 int64_t v = a.positional[i].asInt();
                 return std::clamp(v < 0 ? v + size : v, int64_t{0}, size);
             };
             const int64_t start = bound(1, 0), end = bound(2, size);
             if (start > end) return Value(int64_t{0});
             if (sub.empty()) return Value(end - start + 1);
             int64_t found = 0;
             for (size_t at = text.find(sub, static_cast<size_t>(start)); at != std::string::npos && static_cast<int64_t>(at + sub.size()) <= end;
                  at = text.find(sub, at + sub.size()))
                 ++found;
             return Value(found);
         }},
        {"replace", [](Interpreter&, const Value& s, CallArgs& a) {
             std::string text = s.str();
             const std::string& from = argAt(a, 0, "replace").str();
             const std::string& to = argAt(a, 1, "replace").str();
             if (from.empty()) return makeStr(text);
             for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
             return makeStr(text);
         }},
        {"format", [](Interpreter& vm, const Value& s, CallArgs& a) { return makeStr(formatString(vm, s.str(), a)); }},
        {"isdigit", [](Interpreter&, const Value& s, CallArgs&) {
             const std::string& t = s.str();
             return Value(!t.empty() && std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); }));
         }},
    };
    auto it = kMethods.find(name);
    if (it == kMethods.end()) return strExtraAttribute(self, name);
    return bindMethod(self, name, it->second);
}

std::optional<Value> listAttribute(const Value& self, const std::string& name) {
    static const std::unordered_map<std::string, Method> kMethods = {
        {"append", [](Interpreter&, const Value& s, CallArgs& a) { s.as<ListObject>().items.push_back(argAt(a, 0, "append")); return Value(); }},
        {"extend", [](Interpreter& vm, const Value& s, CallArgs& a) {
             ValueList extra = vm.toList(argAt(a, 0, "extend"));
             auto& items = s.as<ListObject>().items;
             items.insert(items.end(), extra.begin(), extra.end());
             return Value();
         }},
        {"pop", [](Interpreter&, const Value& s, CallArgs& a) {
             auto& items = s.as<ListObject>().items;
             if (items.empty()) raise("IndexError", "pop from empty list");
             int64_t i = a.positional.empty() ? -1 : a.positional[0].asInt();
             if (i < 0) i += static_cast<int64_t>(items.size());
             if (i < 0 || i >= static_cast<int64_t>(items.size())) raise("IndexError", "pop index out of range");
             Value v = items[static_cast<size_t>(i)];
             items.erase(items.begin() + i);
             return v;
         }},
        {"insert", [](Interpreter&, const Value& s, CallArgs& a) {
             auto& items = s.as<ListObject>().items;
             int64_t n = static_cast<int64_t>(items.size());
             int64_t i = argAt(a, 0, "insert").asInt();
             if (i < 0) i += n;
             items.insert(items.begin() + std::clamp<int64_t>(i, 0, n), argAt(a, 1, "insert"));
             return Value();
         }},
        {"remove", [](Interpreter&, const Value& s, CallArgs& a) {
             auto& items = s.as<ListObject>().items;
             auto it = std::find_if(items.begin(), items.end(), [&](const Value& v) { return valuesEqual(v, argAt(a, 0, "remove")); });
             if (it == items.end()) raise("ValueError", "list.remove(x): x not in list");
             items.erase(it);
             return Value();
         }},
        {"index", [](Interpreter& vm, const Value& s, CallArgs& a) {
             auto& items = s.as<ListObject>().items;
             for (size_t i = 0; i < items.size(); ++i)
                 if (valuesEqual(items[i], argAt(a, 0, "index"))) return Value(static_cast<int64_t>(i));
             raise("ValueError", fmt::format("{} is not in list", vm.repr(a.positional[0])));
         }},
        {"count", [](Interpreter&, const Value& s, CallArgs& a) {
             auto& items = s.as<ListObject>().items;
             return Value(static_cast<int64_t>(std::count_if(items.begin(), items.end(), [&](const Value& v) { return valuesEqual(v, argAt(a, 0, "count")); })));
         }},
        {"reverse", [](Interpreter&, const Value& s, CallArgs&) {
             std::reverse(s.as<ListObject>().items.begin(), s.as<ListObject>().items.end());
             return Value();
         }},
        {"sort", [](Interpreter& vm, const Value& s, CallArgs& a) {
             CallArgs sortArgs{{s}, a.keywords};
             Value sorted = vm.call(vm.builtins().at("sorted"), sortArgs.positional, sortArgs.keywords);
             s.as<ListObject>().items = sorted.as<ListObject>().items;
             return Value();
         }},
        {"copy", [](Interpreter&, const Value& s, CallArgs&) { return makeList(s.as<ListObject>().items); }},
        {"clear", [](Interpreter&, const Value& s, CallArgs&) { s.as<ListObject>().items.clear(); return Value(); }},
    };
    auto it = kMethods.find(name);
    if (it == kMethods.end()) return std::nullopt;
    return bindMethod(self, name, it->second);
}

/// The elements of each argument, as a set, for set methods taking any iterables.
std::vector<ValueList> argumentElements(Interpreter& vm, const CallArgs& a) {
    std::vector<ValueList> out;
    for (const Value& v : a.positional) out.push_back(vm.toList(v));
    return out;
}

/// A set of `like`'s type (set or frozenset) holding `items`.
Value setLike(const Value& like, ValueList items) {
    auto set = std::make_shared<SetObject>();
    set->frozen = like.as<SetObject>().frozen;
    for (const Value& v : items) set->add(v);
    return Value(set);
}

/// Whether `v` is among `elements` as a set element is: the same object, or equal hashes and ==.
bool isElementOf(const Value& v, const ValueList& elements) {
    const int64_t hash = hashValue(v);
    return std::any_of(elements.begin(), elements.end(), [&](const Value& x) {
        return x.identical(v) || (hashValue(x) == hash && valuesEqual(x, v));
    });
}

bool inAll(const Value& v, const std::vector<ValueList>& others) {
    return std::all_of(others.begin(), others.end(), [&](const ValueList& o) { return isElementOf(v, o); });
}

bool inAny(const Value& v, const std::vector<ValueList>& others) {
    return std::any_of(others.begin(), others.end(), [&](const ValueList& o) { return isElementOf(v, o); });
}

ValueList unionItems(const ValueList& mine, const std::vector<ValueList>& others) {
    ValueList kept = mine;
    for (const ValueList& other : others)
        for (const Value& v : other)
            if (!inAny(v, {kept})) kept.push_back(v);
    return kept;
}

ValueList intersectionItems(const ValueList& mine, const std::vector<ValueList>& others) {
    ValueList kept;
    for (const Value& v : mine)
        if (inAll(v, others)) kept.push_back(v);
    return kept;
}

ValueList differenceItems(const ValueList& mine, const std::vector<ValueList>& others) {
    ValueList kept;
    for (const Value& v : mine)
        if (!inAny(v, others)) kept.push_back(v);
    return kept;
}

ValueList symmetricDifferenceItems(const ValueList& mine, const ValueList& other) {
    ValueList kept = differenceItems(mine, {other});
    for (const Value& v : other)
        if (!inAny(v, {mine}) && !inAny(v, {kept})) kept.push_back(v);
    return kept;
}

/// The reading methods of set and frozenset: results have self's type.
std::optional<Value> setReadingAttribute(const Value& self, const std::string& name) {
    static const std::unordered_map<std::string, Method> kMethods = {
        // frozenset.copy() is the frozenset itself, as in CPython.
        {"copy", [](Interpreter&, const Value& s, CallArgs&) { return s.as<SetObject>().frozen ? s : setLike(s, s.as<SetObject>().items); }},
        {"union", [](Interpreter& vm, const Value& s, CallArgs& a) {
             return setLike(s, unionItems(s.as<SetObject>().items, argumentElements(vm, a)));
         }},
        {"intersection", [](Interpreter& vm, const Value& s, CallArgs& a) {
             return setLike(s, intersectionItems(s.as<SetObject>().items, argumentElements(vm, a)));
         }},
        {"difference", [](Interpreter& vm, const Value& s, CallArgs& a) {
             return setLike(s, differenceItems(s.as<SetObject>().items, argumentElements(vm, a)));
         }},
        {"symmetric_difference", [](Interpreter& vm, const Value& s, CallArgs& a) {
             return setLike(s, symmetricDifferenceItems(s.as<SetObject>().items, vm.toList(argAt(a, 0, "symmetric_difference"))));
         }},
        {"issubset", [](Interpreter& vm, const Value& s, CallArgs& a) {
             auto others = argumentElements(vm, a);
             const ValueList& mine = s.as<SetObject>().items;
             return Value(std::all_of(mine.begin(), mine.end(), [&](const Value& v) { return inAll(v, others); }));
         }},
        {"issuperset", [](Interpreter& vm, const Value& s, CallArgs& a) {
             ValueList other = vm.toList(argAt(a, 0, "issuperset"));
             const ValueList mine = s.as<SetObject>().items;
             return Value(std::all_of(other.begin(), other.end(), [&](const Value& v) { return inAny(v, {mine}); }));
         }},
        {"isdisjoint", [](Interpreter& vm, const Value& s, CallArgs& a) {
             ValueList other = vm.toList(argAt(a, 0, "isdisjoint"));
             const ValueList& mine = s.as<SetObject>().items;
             return Value(std::none_of(mine.begin(), mine.end(), [&](const Value& v) { return inAny(v, {other}); }));
         }},
    };
    auto it = kMethods.find(name);
    if (it == kMethods.end()) return std::nullopt;
    return bindMethod(self, name, it->second);
}

std::optional<Value> setAttribute(const Value& self, const std::string& name) {
    if (std::optional<Value> reading = setReadingAttribute(self, name)) return reading;
    if (self.as<SetObject>().frozen) return std::nullopt;  // a frozenset has no mutating methods
    static const std::unordered_map<std::string, Method> kMethods = {
        {"add", [](Interpreter&, const Value& s, CallArgs& a) { s.as<SetObject>().add(argAt(a, 0, "add")); return Value(); }},
        {"discard", [](Interpreter&, const Value& s, CallArgs& a) {
             s.as<SetObject>().erase(argAt(a, 0, "discard"));
             return Value();
         }},
        {"remove", [](Interpreter& vm, const Value& s, CallArgs& a) {
             const Value& v = argAt(a, 0, "remove");
             if (!s.as<SetObject>().erase(v)) vm.raiseKeyError(v);
             return Value();
         }},
        {"pop", [](Interpreter&, const Value& s, CallArgs&) {
             auto& items = s.as<SetObject>().items;
             if (items.empty()) raise("KeyError", "'pop from an empty set'");
             Value v = items.front();
             items.erase(items.begin());
             return v;
         }},
        {"clear", [](Interpreter&, const Value& s, CallArgs&) { s.as<SetObject>().items.clear(); return Value(); }},
        {"update", [](Interpreter& vm, const Value& s, CallArgs& a) {
             for (const ValueList& other : argumentElements(vm, a))
                 for (const Value& v : other) s.as<SetObject>().add(v);
             return Value();
         }},
        // The in-place forms of the reading methods keep self's identity (the `&=` / `-=` / `^=` of a set).
        {"intersection_update", [](Interpreter& vm, const Value& s, CallArgs& a) {
             s.as<SetObject>().items = intersectionItems(s.as<SetObject>().items, argumentElements(vm, a));
             return Value();
         }},
        {"difference_update", [](Interpreter& vm, const Value& s, CallArgs& a) {
             s.as<SetObject>().items = differenceItems(s.as<SetObject>().items, argumentElements(vm, a));
             return Value();
         }},
        {"symmetric_difference_update", [](Interpreter& vm, const Value& s, CallArgs& a) {
             ValueList other = vm.toList(argAt(a, 0, "symmetric_difference_update"));
             s.as<SetObject>().items = symmetricDifferenceItems(s.as<SetObject>().items, other);
             return Value();
         }},
    };
    auto it = kMethods.find(name);
    if (it == kMethods.end()) return std::nullopt;
    return bindMethod(self, name, it->second);
}

/// A live view of `dict` (builtins.cpp defines the view classes).
Value dictView(Interpreter& vm, const Value& dict, const char* viewClass) {
    auto view = std::make_shared<InstanceObject>(vm.builtinClass(viewClass));
    view->attributes["mapping"] = dict;
    return Value(view);
}

std::optional<Value> dictAttribute(const Value& self, const std::string& name) {
    static const std::unordered_map<std::string, Method> kMethods = {
        {"keys", [](Interpreter& vm, const Value& s, CallArgs&) { return dictView(vm, s, "dict_keys"); }},
        {"values", [](Interpreter& vm, const Value& s, CallArgs&) { return dictView(vm, s, "dict_values"); }},
        {"items", [](Interpreter& vm, const Value& s, CallArgs&) { return dictView(vm, s, "dict_items"); }},
        {"get", [](Interpreter&, const Value& s, CallArgs& a) {
             Value* found = s.as<DictObject>().find(argAt(a, 0, "get"));
             return found ? *found : (a.positional.size() > 1 ? a.positional[1] : Value());
         }},
        {"pop", [](Interpreter& vm, const Value& s, CallArgs& a) {
             auto& dict = s.as<DictObject>();
             const Value& key = argAt(a, 0, "pop");
             if (Value* found = dict.find(key)) {
                 Value v = *found;
                 dict.erase(key);
                 return v;
             }
             if (a.positional.size() > 1) return a.positional[1];
             vm.raiseKeyError(key);
         }},
        {"setdefault", [](Interpreter&, const Value& s, CallArgs& a) {
             auto& dict = s.as<DictObject>();
             if (Value* found = dict.find(argAt(a, 0, "setdefault"))) return *found;
             Value v = a.positional.size() > 1 ? a.positional[1] : Value();
             dict.set(a.positional[0], v);
             return v;
         }},
        {"update", [](Interpreter& vm, const Value& s, CallArgs& a) {
             if (a.positional.size() > 1) typeError(fmt::format("update expected at most 1 argument, got {}", a.positional.size()));
             if (!a.positional.empty()) updateDict(vm, s.as<DictObject>(), a.positional[0]);
             for (auto& [k, v] : a.keywords) s.as<DictObject>().set(makeStr(k), v);
             return Value();
         }},
        {"copy", [](Interpreter&, const Value& s, CallArgs&) {
             auto copy = std::make_shared<DictObject>(s.as<DictObject>());  // a subclass's copy keeps its class
             return Value(copy);
         }},
        {"clear", [](Interpreter&, const Value& s, CallArgs&) { s.as<DictObject>().clear(); return Value(); }},
        // The last pair inserted, removed (LIFO, as CPython's dict.popitem).
        {"popitem", [](Interpreter&, const Value& s, CallArgs&) {
             auto& dict = s.as<DictObject>();
             if (dict.empty()) raise("KeyError", "popitem(): dictionary is empty");
             auto [key, value] = dict.entries().back();
             dict.erase(key);
             return makeTuple({key, value});
         }},
    };
    auto it = kMethods.find(name);
    if (it == kMethods.end()) return std::nullopt;
    return bindMethod(self, name, it->second);
}

/// t.grad_fn: None for leaves, else an object of a class named after the node (MulBackward0) with name().
Value gradFnObject(Interpreter& vm, const Value& self) {
    const std::optional<std::string> nodeName = tensor::autograd::gradFnName(self.tensor());
    if (!nodeName) return Value();
    const void* node = self.tensor().impl()->autograd->gradFn.get();
    auto cls = std::make_shared<ClassObject>(*nodeName, vm.builtinClass("object"));
    cls->dict["name"] = makeNative("name", [nodeName](Interpreter&, CallArgs&) { return makeStr(*nodeName); });
    cls->dict["__repr__"] = makeNative("__repr__", [nodeName, node](Interpreter&, CallArgs&) {
        return makeStr(fmt::format("<{} object at {}>", *nodeName, node));
    });
    return Value(std::make_shared<InstanceObject>(cls));
}

/// The legacy `t.new(...)`: sizes (ints or a torch.Size) make a new tensor of t's dtype and device, any other
/// sequence is data, nothing an empty one.
Value legacyNew(Interpreter&, const Value& self, CallArgs& args) {
    const ValueList& positional = args.positional;
    const bool isSize = positional.size() == 1 && positional[0].is(Kind::Tuple) && positional[0].as<TupleObject>().typeName == "torch.Size";
    if (positional.size() == 1 && !isSize && (positional[0].is(Kind::List) || positional[0].is(Kind::Tuple)))
        return callOp("Tensor.new_tensor", {self, positional[0]}, args.keywords);
    if (positional.size() == 1 && positional[0].is(Kind::Tensor)) {
        // t.new(other): other's storage, seen as a tensor that does not require grad; of t's type only.
        const tensor::Tensor& other = positional[0].tensor();
        if (other.dtype() != self.tensor().dtype() || other.device() != self.tensor().device())
            typeError(fmt::format("expected {} (got {})", tensor::dtypeKernelName(self.tensor().dtype()), tensor::dtypeKernelName(other.dtype())));
        return callOp("Tensor.detach", {positional[0]});
    }
    ValueList sizes = isSize ? positional[0].as<TupleObject>().items : positional;
    if (positional.empty()) sizes = {Value(int64_t{0})};
    return callOp("Tensor.new_empty", {self, makeList(std::move(sizes))}, args.keywords);
}

std::optional<Value> tensorAttribute(Interpreter& vm, const Value& self, const std::string& name) {
    const auto& registry = tensor::OpRegistry::instance();
    if (name == "grad_fn") return gradFnObject(vm, self);
    if (name == "is_quantized") return Value(false);  // the runtime has no quantized dtypes
    if (name == "new") return bindMethod(self, name, legacyNew);
    if (name == "untyped_storage") return bindMethod(self, name, untypedStorage);
    if (tensor::OpRegistry::isTensorProperty(name))
        return callOp("Tensor." + name, {self});
    const tensor::OpEntry* entry = registry.find("Tensor." + name);
    if (!entry) return std::nullopt;
    return bindMethod(self, name, [entry](Interpreter&, const Value& s, CallArgs& a) {
        tensor::ValueList positional{toTensorValue(s)};
        for (const Value& v : a.positional) positional.push_back(toTensorValue(v));
        tensor::KeywordArgs keywords;
        for (const auto& [key, v] : a.keywords) keywords.emplace_back(key, toTensorValue(v));
        tensor::Value result = tensor::OpRegistry::instance().call(*entry, positional, keywords);
        // In-place methods return self: keep the same VM object so that identity (and Parameter-ness) holds.
        if (result.isTensor() && result.toTensor().isSameTensor(s.tensor())) return s;
        return fromTensorValue(result);
    });
}

}  // namespace

std::optional<Value> setOperator(ops::BinaryOperator op, bool inplace, const Value& a, const Value& b) {
    if (!a.is(Kind::Set) || !b.is(Kind::Set)) return std::nullopt;
    const ValueList& mine = a.as<SetObject>().items;
    const ValueList& other = b.as<SetObject>().items;
    ValueList kept;
    switch (op) {
        case ops::BinaryOperator::BitOr: kept = unionItems(mine, {other}); break;
        case ops::BinaryOperator::BitAnd: kept = intersectionItems(mine, {other}); break;
        case ops::BinaryOperator::Subtract: kept = differenceItems(mine, {other}); break;
        case ops::BinaryOperator::BitXor: kept = symmetricDifferenceItems(mine, other); break;
        default: return std::nullopt;
    }
    if (inplace && !a.as<SetObject>().frozen) {
        a.as<SetObject>().items = std::move(kept);
        return a;
    }
    return setLike(a, std::move(kept));
}

std::optional<Value> builtinAttribute(Interpreter& vm, const Value& object, const std::string& name) {
    if (name == "__class__") return Value(vm.classOf(object));
    switch (object.kind()) {
        case Kind::Str: return strAttribute(object, name);
        case Kind::List: return listAttribute(object, name);
        case Kind::Dict: return dictAttribute(object, name);
        case Kind::Tensor: return tensorAttribute(vm, object, name);
        case Kind::Tuple: {
            auto& tuple = object.as<TupleObject>();
            auto field = std::find(tuple.fieldNames.begin(), tuple.fieldNames.end(), name);
            if (field != tuple.fieldNames.end()) return tuple.items[static_cast<size_t>(field - tuple.fieldNames.begin())];
            if (name == "numel" && tuple.typeName == "torch.Size")
                return bindMethod(object, name, [](Interpreter&, const Value& s, CallArgs&) {
                    int64_t n = 1;
                    for (const Value& v : s.as<TupleObject>().items) n *= v.asInt();
                    return Value(n);
                });
            if (name == "index" || name == "count") {
                auto asList = makeList(tuple.items);
                return listAttribute(asList, name);
            }
            return std::nullopt;
        }
        case Kind::Set: return setAttribute(object, name);
        case Kind::Int: return intAttribute(object, name);
        case Kind::Float: return floatAttribute(object, name);
        case Kind::DType:
            if (name == "is_floating_point") return Value(tensor::isFloating(object.as<DTypeObject>().value));
            if (name == "is_complex") return Value(tensor::isComplex(object.as<DTypeObject>().value));
            if (name == "itemsize") return Value(static_cast<int64_t>(tensor::itemSize(object.as<DTypeObject>().value)));
            return std::nullopt;
        case Kind::Device:
            if (name == "type") return makeStr(object.as<DeviceObject>().value.isCpu() ? "cpu" : "cuda");
            return std::nullopt;
        case Kind::Iterator: return generatorAttribute(vm, object, name);
        default: return std::nullopt;
    }
}

}  // namespace eng::vm
