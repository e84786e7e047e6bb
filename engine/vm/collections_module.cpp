// The native half of the collections module (`_collections`): the dict subclasses OrderedDict, defaultdict and
// Counter (dicts carrying their class, so every dict operation works on them), namedtuple (tuples carrying their
// class), and dict.fromkeys. The Python half (python_polyfills.cpp) adds deque, Counter's methods and abc.
#include <fmt/core.h>

#include <algorithm>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

Value classMethod(Interpreter& vm, Value function) {
    auto wrapper = std::make_shared<InstanceObject>(vm.builtinClass("classmethod"));
    wrapper->attributes["__func__"] = std::move(function);
    return Value(wrapper);
}

}  // namespace

void updateDict(Interpreter& vm, DictObject& dict, const Value& source, DictSource how) {
    auto store = [&](const Value& key, const Value& value) {
        if (how == DictSource::Keywords && dict.find(key))
            typeError(fmt::format("got multiple values for keyword argument '{}'", vm.str(key)));
        dict.set(key, value);
    };
    if (source.is(Kind::Dict)) {
        // Read in place: a dict updated with itself only overwrites its own entries.
        for (const auto& [key, value] : source.as<DictObject>().entries()) store(key, value);
        return;
    }
    // Any other mapping: its keys(), then each item, as PyDict_Merge reads one.
    if (how != DictSource::Pairs || source.is(Kind::Instance)) {
        if (std::optional<Value> keys = vm.findAttr(source, "keys")) {
            for (const Value& key : vm.toList(vm.call(*keys, {}))) store(key, vm.getItem(source, key));
            return;
        }
    }
    if (how != DictSource::Pairs) typeError(fmt::format("'{}' object is not a mapping", vm.classOf(source)->name));
    size_t index = 0;
    for (const Value& pair : vm.toList(source)) {
        ValueList kv = vm.toList(pair);
        if (kv.size() != 2)
            raise("ValueError", fmt::format("dictionary update sequence element #{} has length {}; 2 is required", index, kv.size()));
        dict.set(kv[0], kv[1]);
        ++index;
    }
}

namespace {

std::shared_ptr<DictObject> newDict(const Value& cls) {
    auto dict = std::make_shared<DictObject>();
    if (cls.is(Kind::Class) && cls.as<ClassObject>().module != "builtins") dict->cls = cls.ref<ClassObject>();
    return dict;
}

std::string entriesRepr(Interpreter& vm, const std::vector<DictObject::Entry>& entries) {
    std::string text = "{";
    for (size_t i = 0; i < entries.size(); ++i) text += (i ? ", " : "") + vm.repr(entries[i].first) + ": " + vm.repr(entries[i].second);
    return text + "}";
}

/// A dict subclass the collections module defines: `__new__(cls, *args, **kwargs)` is given the new dict.
std::shared_ptr<ClassObject> dictSubclass(Interpreter& vm, ModuleObject& module, const std::string& name,
                                          std::function<void(Interpreter&, DictObject&, CallArgs&)> init) {
    auto cls = std::make_shared<ClassObject>(name, vm.builtinClass("dict"));
    cls->module = "collections";
    cls->dict["__new__"] = makeNative(name, [init = std::move(init)](Interpreter& m, CallArgs& a) {
        Value self(newDict(a.positional.at(0)));
        a.positional.erase(a.positional.begin());
        init(m, self.as<DictObject>(), a);
        return self;
    });
    module.attributes[name] = Value(cls);
    return cls;
}

void dictArguments(Interpreter& vm, DictObject& dict, CallArgs& a, const std::string& name) {
    if (a.positional.size() > 1) typeError(fmt::format("{} expected at most 1 argument, got {}", name, a.positional.size()));
    if (!a.positional.empty()) updateDict(vm, dict, a.positional[0]);
    for (auto& [key, value] : a.keywords) dict.set(makeStr(key), value);
}

void defineNamedTuple(ModuleObject& module) {
    module.attributes["namedtuple"] = makeNative("namedtuple", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> defaults = a.take("defaults");
        std::optional<Value> moduleName = a.take("module");
        a.take("rename");
        if (a.positional.size() != 2) typeError("namedtuple() missing required argument 'field_names'");
        std::vector<std::string> fields;
        if (a.positional[1].is(Kind::Str)) {
            std::string text = a.positional[1].str();
            for (char& c : text)
                if (c == ',') c = ' ';
            size_t at = 0;
            while ((at = text.find_first_not_of(' ', at)) != std::string::npos) {
                size_t end = text.find(' ', at);
                fields.push_back(text.substr(at, end - at));
                at = end;
            }
        } else {
            for (const Value& field : m.toList(a.positional[1])) fields.push_back(m.str(field));
        }
        ValueList defaultValues = defaults && !defaults->isNone() ? m.toList(*defaults) : ValueList{};
        if (defaultValues.size() > fields.size()) typeError("Got more default values than field names");
        return makeNamedTupleClass(m, a.positional[0].str(), fields, defaultValues,
                                   moduleName && !moduleName->isNone() ? m.str(*moduleName) : "__main__");
    });
}

}  // namespace

Value makeNamedTupleClass(Interpreter& vm, const std::string& name, const std::vector<std::string>& fields,
                          const ValueList& defaultValues, const std::string& moduleName) {
    auto cls = std::make_shared<ClassObject>(name, vm.builtinClass("tuple"));
    cls->module = moduleName;
    ValueList fieldValues;
    for (const std::string& field : fields) fieldValues.push_back(makeStr(field));
    cls->dict["_fields"] = makeTuple(fieldValues);
    auto fieldDefaults = std::make_shared<DictObject>();
    size_t firstDefault = fields.size() - defaultValues.size();
    for (size_t i = 0; i < defaultValues.size(); ++i) fieldDefaults->set(makeStr(fields[firstDefault + i]), defaultValues[i]);
    cls->dict["_field_defaults"] = Value(fieldDefaults);
    auto make = [fields, name](const std::shared_ptr<ClassObject>& type, ValueList items) {
        auto tuple = std::make_shared<TupleObject>(std::move(items));
        tuple->typeName = name;
        tuple->fieldNames = fields;
        tuple->cls = type;
        return Value(tuple);
    };
    cls->dict["__new__"] = makeNative(name, [fields, name, defaultValues, firstDefault, make](Interpreter&, CallArgs& a) {
        auto type = a.positional.at(0).ref<ClassObject>();
        if (a.positional.size() - 1 > fields.size())
            typeError(fmt::format("{}.__new__() takes {} positional arguments but {} were given", name, fields.size() + 1,
                                  a.positional.size()));
        std::vector<std::optional<Value>> slots(fields.size());
        for (size_t i = 1; i < a.positional.size(); ++i) slots[i - 1] = a.positional[i];
        for (auto& [key, value] : a.keywords) {
            auto field = std::find(fields.begin(), fields.end(), key);
            if (field == fields.end()) typeError(fmt::format("{}.__new__() got an unexpected keyword argument '{}'", name, key));
            auto& slot = slots[static_cast<size_t>(field - fields.begin())];
            if (slot) typeError(fmt::format("{}.__new__() got multiple values for argument '{}'", name, key));
            slot = value;
        }
        ValueList items;
        std::vector<std::string> missing;
        for (size_t i = 0; i < fields.size(); ++i) {
            if (!slots[i] && i >= firstDefault) slots[i] = defaultValues[i - firstDefault];
            if (!slots[i]) missing.push_back("'" + fields[i] + "'");
            items.push_back(slots[i].value_or(Value()));
        }
        if (!missing.empty()) {
            std::string names;
            for (size_t i = 0; i < missing.size(); ++i)
                names += (i == 0 ? "" : (i + 1 == missing.size() ? (missing.size() == 2 ? " and " : ", and ") : ", ")) + missing[i];
            typeError(fmt::format("{}.__new__() missing {} required positional argument{}: {}", name, missing.size(),
                                  missing.size() == 1 ? "" : "s", names));
        }
        return make(type, std::move(items));
    });
    cls->dict["_make"] = classMethod(vm, makeNative("_make", [make](Interpreter& m, CallArgs& a) {
        return make(a.positional.at(0).ref<ClassObject>(), m.toList(a.positional.at(1)));
    }));
    cls->dict["_asdict"] = makeNative("_asdict", [](Interpreter&, CallArgs& a) {
        const auto& tuple = a.positional.at(0).as<TupleObject>();
        auto dict = std::make_shared<DictObject>();
        for (size_t i = 0; i < tuple.fieldNames.size(); ++i) dict->set(makeStr(tuple.fieldNames[i]), tuple.items[i]);
        return Value(dict);
    });
    cls->dict["_replace"] = makeNative("_replace", [make](Interpreter&, CallArgs& a) {
        const auto& tuple = a.positional.at(0).as<TupleObject>();
        ValueList items = tuple.items;
        for (auto& [key, value] : a.keywords) {
            auto field = std::find(tuple.fieldNames.begin(), tuple.fieldNames.end(), key);
            if (field == tuple.fieldNames.end()) raise("ValueError", fmt::format("Got unexpected field names: ['{}']", key));
            items[static_cast<size_t>(field - tuple.fieldNames.begin())] = value;
        }
        return make(tuple.cls, std::move(items));
    });
    cls->dict["__repr__"] = makeNative("__repr__", [](Interpreter& m, CallArgs& a) {
        const auto& tuple = a.positional.at(0).as<TupleObject>();
        std::string text = tuple.cls->name + "(";
        for (size_t i = 0; i < tuple.items.size(); ++i)
            text += (i ? ", " : "") + tuple.fieldNames[i] + "=" + m.repr(tuple.items[i]);
        return makeStr(text + ")");
    });
    return Value(cls);
}

void installCollections(Interpreter& vm) {
    auto module = std::make_shared<ModuleObject>("_collections");
    vm.modules()["_collections"] = Value(module);

    // dict.fromkeys(iterable, value=None), a classmethod: OrderedDict.fromkeys makes an OrderedDict.
    vm.builtinClass("dict")->dict["fromkeys"] = classMethod(vm, makeNative("fromkeys", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> value = a.take("value");
        if (a.positional.size() < 2) typeError("fromkeys expected at least 1 argument, got 0");
        if (a.positional.size() > 2) value = a.positional[2];
        Value dict(newDict(a.positional[0]));
        for (const Value& key : m.toList(a.positional[1])) dict.as<DictObject>().set(key, value.value_or(Value()));
        return dict;
    }));
    auto ordered = dictSubclass(vm, *module, "OrderedDict", [](Interpreter& m, DictObject& d, CallArgs& a) { dictArguments(m, d, a, "OrderedDict"); });
    ordered->dict["__repr__"] = makeNative("__repr__", [](Interpreter& m, CallArgs& a) {
        const auto& dict = a.positional.at(0).as<DictObject>();
        return makeStr(dict.cls->name + (dict.entries().empty() ? "()" : "(" + entriesRepr(m, dict.entries()) + ")"));
    });
    ordered->dict["move_to_end"] = makeNative("move_to_end", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> last = a.take("last");
        auto& dict = a.positional.at(0).as<DictObject>();
        const Value& key = a.positional.at(1);
        if (a.positional.size() > 2) last = a.positional[2];
        if (!dict.moveToEnd(key, !last || m.truthy(*last))) m.raiseKeyError(key);
        return Value();
    });
    ordered->dict["popitem"] = makeNative("popitem", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> last = a.take("last");
        auto& dict = a.positional.at(0).as<DictObject>();
        if (a.positional.size() > 1) last = a.positional[1];
        if (dict.entries().empty()) m.raiseKeyError(makeStr("dictionary is empty"));
        DictObject::Entry entry = dict.popItem(!last || m.truthy(*last));
        return makeTuple({entry.first, entry.second});
    });

    auto defaultDict = dictSubclass(vm, *module, "defaultdict", [](Interpreter& m, DictObject& d, CallArgs& a) {
        if (!a.positional.empty()) {
            const Value& factory = a.positional[0];
            if (!factory.isNone() && !factory.is(Kind::Function) && !factory.is(Kind::Native) && !factory.is(Kind::Class) &&
                !factory.is(Kind::BoundMethod) && !m.findAttr(factory, "__call__"))
                typeError("first argument must be callable or None");
            d.defaultFactory = factory;
            a.positional.erase(a.positional.begin());
        }
        dictArguments(m, d, a, "defaultdict");
    });
    defaultDict->dict["__missing__"] = makeNative("__missing__", [](Interpreter& m, CallArgs& a) {
        auto& dict = a.positional.at(0).as<DictObject>();
        const Value& key = a.positional.at(1);
        if (dict.defaultFactory.isNone()) m.raiseKeyError(key);
        Value made = m.call(dict.defaultFactory, {});
        dict.set(key, made);
        return made;
    });
    auto factoryProperty = std::make_shared<InstanceObject>(vm.builtinClass("property"));
    factoryProperty->attributes["__func__"] = makeNative("default_factory", [](Interpreter&, CallArgs& a) {
        return a.positional.at(0).as<DictObject>().defaultFactory;
    });
    defaultDict->dict["default_factory"] = Value(factoryProperty);
    defaultDict->dict["__repr__"] = makeNative("__repr__", [](Interpreter& m, CallArgs& a) {
        const auto& dict = a.positional.at(0).as<DictObject>();
        return makeStr(fmt::format("defaultdict({}, {})", m.repr(dict.defaultFactory), entriesRepr(m, dict.entries())));
    });

    // Counter(iterable or mapping): counts; its other methods are Python (python_polyfills.cpp).
    auto counter = dictSubclass(vm, *module, "Counter", [](Interpreter& m, DictObject& d, CallArgs& a) {
        if (a.positional.size() > 1) typeError(fmt::format("expected at most 1 argument, got {}", a.positional.size()));
        if (!a.positional.empty()) {
            if (a.positional[0].is(Kind::Dict)) {
                updateDict(m, d, a.positional[0]);
            } else {
                for (const Value& item : m.toList(a.positional[0])) {
                    Value* count = d.find(item);
                    d.set(item, Value((count ? count->asInt() : 0) + 1));
                }
            }
        }
        for (auto& [key, value] : a.keywords) d.set(makeStr(key), value);
    });
    counter->dict["__missing__"] = makeNative("__missing__", [](Interpreter&, CallArgs&) { return Value(0); });
    counter->dict["__repr__"] = makeNative("__repr__", [](Interpreter& m, CallArgs& a) {
        // Python shows the counts most common first (most_common's order: stable, by count).
        std::vector<DictObject::Entry> byCount = a.positional.at(0).as<DictObject>().entries();
        std::stable_sort(byCount.begin(), byCount.end(), [](const auto& x, const auto& y) {
            return x.second.isNumber() && y.second.isNumber() && x.second.asFloat() > y.second.asFloat();
        });
        return makeStr("Counter(" + (byCount.empty() ? std::string() : entriesRepr(m, byCount)) + ")");
    });

    defineNamedTuple(*module);
}

}  // namespace eng::vm
