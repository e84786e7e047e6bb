// Side effects on values from outside the compiled frame (Dynamo's SideEffects): stores to globals, attribute
// stores on outside objects, item stores/deletes on outside dicts and lists, dict.update and list.append/extend
// are recorded during the trace (later reads in the trace see them) and replayed on the real objects after the graph.
#include <fmt/core.h>

#include <algorithm>
#include <utility>

#include "capture/symbolic_eval.h"

namespace eng::capture {

namespace {

const void* identityOf(const vm::Value& v) { return v.object().get(); }

bool isModuleInstance(Tracer& tracer, const vm::Value& v) {
    return v.is(vm::Kind::Instance) && tracer.vm().isInstance(v, *tracer.vm().builtinClass("Module"));
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Tracer::PendingEffect* Tracer::findEffect(SideEffect::Kind kind, const void* identity, const std::string& name, const vm::Value* key) {
    return const_cast<PendingEffect*>(std::as_const(*this).findEffect(kind, identity, name, key));
}

const Tracer::PendingEffect* Tracer::findEffect(SideEffect::Kind kind, const void* identity, const std::string& name,
                                                const vm::Value* key) const {
    for (const PendingEffect& e : effects_) {
        // A key's store and deletion are one slot, as are an attribute's.
        auto slot = [](SideEffect::Kind k) {
            return k == SideEffect::Kind::DictDelete ? SideEffect::Kind::DictSet : k == SideEffect::Kind::DelAttr ? SideEffect::Kind::SetAttr : k;
        };
        bool dictKind = slot(kind) == SideEffect::Kind::DictSet;
        bool sameKind = slot(e.kind) == slot(kind);
        if (!sameKind || e.identity != identity) continue;
        if (dictKind ? vm::valuesEqual(e.key, *key) : e.name == name) return &e;
    }
    return nullptr;
}

void Tracer::addEffect(PendingEffect effect) {
    // One effect per target: a later store replaces the value (and a dict key's set/delete) in place.
    ++effectWrites_;
    const vm::Value* key = &effect.key;
    if (PendingEffect* existing = findEffect(effect.kind, effect.identity, effect.name, key)) {
        existing->kind = effect.kind;
        existing->value = std::move(effect.value);
        return;
    }
    effects_.push_back(std::move(effect));
}

std::optional<VarRef> Tracer::pendingAttr(const vm::Value& object, const std::string& name) const {
    if (!object.is(vm::Kind::Instance)) return std::nullopt;
    if (const PendingEffect* e = findEffect(SideEffect::Kind::SetAttr, identityOf(object), name, nullptr))
        return e->kind == SideEffect::Kind::DelAttr ? VarRef() : e->value;
    return std::nullopt;
}

std::optional<VarRef> Tracer::pendingGlobal(const vm::Namespace& globals, const std::string& name) const {
    if (const PendingEffect* e = findEffect(SideEffect::Kind::SetGlobal, &globals, name, nullptr)) return e->value;
    return std::nullopt;
}

std::optional<VarRef> Tracer::pendingItem(const vm::Value& dict, const vm::Value& key) const {
    if (!dict.is(vm::Kind::Dict)) return std::nullopt;
    if (const PendingEffect* e = findEffect(SideEffect::Kind::DictSet, identityOf(dict), "", &key))
        return e->kind == SideEffect::Kind::DictDelete ? VarRef() : e->value;
    return std::nullopt;
}

void Tracer::requireNoPendingItems(const vm::Value& value, const std::string& what) {
    // A dict view (d.keys(), d.values(), d.items()) reads its dict live.
    const vm::Value* dictOfView = nullptr;
    if (value.is(vm::Kind::Instance) && value.as<vm::InstanceObject>().cls->name.rfind("dict_", 0) == 0)
        if (auto it = value.as<vm::InstanceObject>().attributes.find("mapping"); it != value.as<vm::InstanceObject>().attributes.end())
            dictOfView = &it->second;
    const vm::Value& dict = dictOfView ? *dictOfView : value;
    if (!dict.is(vm::Kind::Dict)) return;
    for (const PendingEffect& e : effects_)
        if (e.identity == identityOf(dict) && (e.kind == SideEffect::Kind::DictSet || e.kind == SideEffect::Kind::DictDelete))
            unsupported("Unsupported dict operation",
                        fmt::format("Dynamo does not trace `{}` on a dict from outside the compiled frame after storing into it.", what),
                        {}, fmt::format("call_method ConstDictVariable() {}", what));
}

void Tracer::storeAttr(const VarRef& object, const std::string& name, const VarRef& value) {
    auto refuse = [&](const std::string& why) {
        unsupported("Unsupported attribute assignment", fmt::format("Dynamo does not trace `{}` here: {}.", "obj." + name + " = ...", why), {},
                    fmt::format("STORE_ATTR {}", name));
    };
    if (object->kind == Variable::Kind::Object) return storeObjectAttr(object, name, value);
    if (object->kind != Variable::Kind::Python || !object->value.is(vm::Kind::Instance)) refuse("the object is not a plain Python object");
    if (!object->source) refuse("the object has no source to replay the store on");
    const auto& instance = object->value.as<vm::InstanceObject>();
    // The replay runs the VM's setattr: only plain attribute stores replay as they traced.
    std::optional<vm::Value> hook = instance.cls->lookup("__setattr__");
    if (hook && hook->is(vm::Kind::Function)) refuse("its class defines __setattr__");
    std::optional<vm::Value> onClass = instance.cls->lookup(name);
    if (onClass && onClass->is(vm::Kind::Instance)) refuse("the class defines a descriptor of that name");
    if (isModuleInstance(*this, object->value)) {
        if (contains(instance.parameterOrder, name) || contains(instance.bufferOrder, name) || contains(instance.moduleOrder, name))
            refuse("it is a parameter, buffer or submodule of the nn.Module");
        if ((value->kind == Variable::Kind::Tensor && value->value.as<vm::TensorObject>().parameter) ||
            (value->kind == Variable::Kind::Python && isModuleInstance(*this, value->value)))
            refuse("assigning a parameter or module registers it");
    }
    guardValue(object);
    addEffect(PendingEffect{SideEffect::Kind::SetAttr, identityOf(object->value), object->source, name, vm::Value(), value});
}

void Tracer::deleteAttr(TraceFrame& frame, const VarRef& object, const std::string& name, bool throughHook) {
    auto refuse = [&](const std::string& why) {
        unsupported("Unsupported attribute deletion", fmt::format("Dynamo does not trace `del obj.{}` here: {}.", name, why), {},
                    fmt::format("DELETE_ATTR {}", name));
    };
    auto missing = [&](const std::string& cls) { vm::raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", cls, name)); };
    if (object->kind != Variable::Kind::Object && (object->kind != Variable::Kind::Python || !object->value.is(vm::Kind::Instance)))
        refuse("the object is not a plain Python object");
    const auto& cls = object->value.as<vm::InstanceObject>().cls;
    // A class's own __delattr__ is inlined (Dynamo calls obj.__delattr__(name)); object's plain deletion otherwise.
    if (std::optional<vm::Value> hook = cls->lookup("__delattr__"); throughHook && hook && hook->is(vm::Kind::Function)) {
        if (object->kind == Variable::Kind::Python) guardValue(object);
        inlineFunction(frame, *hook, {constant(vm::makeStr(name))}, {}, object);
        return;
    }
    if (std::optional<vm::Value> onClass = cls->lookup(name); onClass && onClass->is(vm::Kind::Instance))
        refuse("the class defines a descriptor of that name");
    if (object->kind == Variable::Kind::Object) {
        for (size_t i = 0; i < object->keys.size(); ++i)
            if (object->keys[i].str() == name) {
                object->keys.erase(object->keys.begin() + static_cast<long>(i));
                object->items.erase(object->items.begin() + static_cast<long>(i));
                return;
            }
        missing(cls->name);
    }
    if (!object->source) refuse("the object has no source to replay the deletion on");
    const auto& instance = object->value.as<vm::InstanceObject>();
    if (isModuleInstance(*this, object->value) &&
        (contains(instance.parameterOrder, name) || contains(instance.bufferOrder, name) || contains(instance.moduleOrder, name)))
        refuse("it is a parameter, buffer or submodule of the nn.Module");
    guardValue(object);
    std::optional<VarRef> stored = pendingAttr(object->value, name);
    if (stored ? !*stored : !instance.attributes.contains(name)) missing(cls->name);
    addEffect(PendingEffect{SideEffect::Kind::DelAttr, identityOf(object->value), object->source, name, vm::Value(), nullptr});
}

void Tracer::storeGlobal(TraceFrame& frame, const std::string& name, const VarRef& value) {
    // The replay writes the compiled frame's globals: a store by a function of another module would go elsewhere.
    if (frame.globals != rootFrame()->globals)
        unsupported("Unsupported global store", fmt::format("Dynamo does not replay the store to global `{}` of another module.", name), {},
                    "STORE_GLOBAL " + name);
    addEffect(PendingEffect{SideEffect::Kind::SetGlobal, frame.globals.get(), Source::global(name), name, vm::Value(), value});
}

namespace {
/// An items() view's (key, value) tuple.
VarRef itemPair(VarRef key, VarRef value) {
    auto pair = std::make_shared<Variable>();
    pair->kind = Variable::Kind::Tuple;
    pair->value = vm::makeTuple({});
    pair->fresh = true;
    pair->items = {std::move(key), std::move(value)};
    return pair;
}

/// A dict view's items from its dict: keys, values or (key, value) tuples.
void fillView(Tracer& tracer, Variable& view, const Variable& dict) {
    view.items.clear();
    for (size_t i = 0; i < dict.keys.size(); ++i) {
        if (view.name == "keys") {
            view.items.push_back(tracer.constant(dict.keys[i]));
        } else if (view.name == "values") {
            view.items.push_back(dict.items[i]);
        } else {
            view.items.push_back(itemPair(tracer.constant(dict.keys[i]), dict.items[i]));
        }
    }
}

VarRef callOrderedDictMethod(Tracer& tracer, const VarRef& self, const std::string& name, const std::vector<VarRef>& args,
                             const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    // move_to_end(key, last=True) and popitem(last=True) of an OrderedDict the trace made: its keys reordered.
    const auto& cls = self->value.as<vm::DictObject>().cls;
    if (!cls || cls->name != "OrderedDict") vm::typeError(fmt::format("dict.{}() takes no keyword arguments", name));
    std::vector<VarRef> given = args;
    const size_t lastAt = name == "move_to_end" ? 1 : 0;
    for (const auto& [keyword, value] : kwargs) {
        if (keyword != "last" || given.size() != lastAt) vm::typeError(fmt::format("{}() got an unexpected keyword argument '{}'", name, keyword));
        given.push_back(value);
    }
    if (given.size() < lastAt || given.size() > lastAt + 1) vm::typeError(fmt::format("{}() takes the wrong number of arguments", name));
    for (const VarRef& a : given)
        if (!tracer.isConstant(a)) tracer.unsupported("Unsupported method call", fmt::format("OrderedDict.{}() with a traced argument.", name), {}, name);
    const bool last = given.size() == lastAt + 1 ? tracer.vm().truthy(tracer.exampleOf(given[lastAt])) : true;
    if (given.size() == lastAt + 1) tracer.argOf(given[lastAt]);
    size_t at = 0;
    if (name == "move_to_end") {
        tracer.argOf(given[0]);
        const vm::Value key = tracer.exampleOf(given[0]);
        while (at < self->keys.size() && !vm::valuesEqual(self->keys[at], key)) ++at;
        if (at == self->keys.size()) tracer.vm().raiseKeyError(key);
    } else {
        if (self->keys.empty()) vm::raise("KeyError", "dictionary is empty");
        at = last ? self->keys.size() - 1 : 0;
    }
    vm::Value key = self->keys[at];
    VarRef item = self->items[at];
    self->keys.erase(self->keys.begin() + static_cast<long>(at));
    self->items.erase(self->items.begin() + static_cast<long>(at));
    if (name == "popitem") {
        tracer.refreshViews(self);
        return itemPair(tracer.constant(key), item);
    }
    self->keys.insert(last ? self->keys.end() : self->keys.begin(), key);
    self->items.insert(last ? self->items.end() : self->items.begin(), item);
    tracer.refreshViews(self);
    return tracer.constant(vm::Value());
}

}  // namespace

void Tracer::refreshViews(const VarRef& dict) {
    for (const auto& weak : dict->views)
        if (VarRef view = weak.lock()) fillView(*this, *view, *dict);
}

vm::Value Tracer::dictKey(const VarRef& key) {
    if (isConstant(key)) {
        argOf(key);
        vm::hashValue(exampleOf(key));  // Python hashes every key: a user __hash__ breaks, an unhashable one raises
        return exampleOf(key);
    }
    if (key->kind == Variable::Kind::Object) checkObjectKey(key);
    if (key->kind == Variable::Kind::Tensor && key->source && !key->original.isNull()) {
        GuardSpec g;
        g.kind = GuardKind::IdMatch;
        g.source = key->source;
        g.expected = key->original;
        for (const GuardSpec& existing : guards_)
            if (existing.kind == g.kind && existing.source->str() == g.source->str()) return key->original;
        guards_.push_back(std::move(g));
        return key->original;
    }
    unsupported("Unsupported dict key", "Dynamo keys a dict by constants, and by tensors read from the frame's inputs or globals; this key is "
                "neither.", {"Key the dict by a constant inside the compiled region."}, "dict key " + std::string(key->kind == Variable::Kind::Tensor ? "TensorVariable()" : "?"));
}

void Tracer::storeItem(const VarRef& container, const VarRef& key, const VarRef& value) {
    const char* what = value ? "STORE_SUBSCR" : "DELETE_SUBSCR";
    // A user class's own __setitem__ / __delitem__ (a deque of the collections polyfill), inlined as getItem's
    // __getitem__ is.
    if (inlinesDunder(*this, container, value ? "__setitem__" : "__delitem__")) {
        std::vector<VarRef> args{key};
        if (value) args.push_back(value);
        if (callDunder(*current_, container, value ? "__setitem__" : "__delitem__", std::move(args))) return;
        vm::typeError(fmt::format("'{}' object does not support item {}", vm_.classOf(container->value)->name, value ? "assignment" : "deletion"));
    }
    if (container->kind == Variable::Kind::Tensor && value) {
        // Dynamo's TensorVariable.__setitem__: one operator.setitem node that writes the tensor in place (the trace's
        // private example now, the tensor itself when the graph runs), so later reads follow the graph's order.
        const vm::Value setitem = vm_.getAttr(vm_.importModule("operator"), "setitem");
        callTensorOp(NodeOp::CallFunction, "operator.setitem", {container, key, value}, {}, setitem, CallKind::Callable);
        return;
    }
    if (container->node || (!isConstant(key) && container->kind == Variable::Kind::List))
        unsupported("Unsupported item assignment", "Dynamo does not trace item assignment on this value.", {}, what);
    vm::Value k = dictKey(key);
    // A list: its traced items change; one from outside the frame gets them after the graph (like append).
    bool outsideList = container->kind == Variable::Kind::List && container->source && !container->fresh && container->value.is(vm::Kind::List);
    if (container->kind == Variable::Kind::List && (container->fresh || outsideList)) {
        if (outsideList) guardValue(container);
        if (k.is(vm::Kind::Slice)) return storeListSlice(container, k.as<vm::SliceObject>(), value);
        int64_t n = static_cast<int64_t>(container->items.size());
        if (!k.isNumber())
            unsupported("Unsupported item assignment", "Dynamo does not trace this list item assignment.", {}, what);
        int64_t i = k.asInt() < 0 ? k.asInt() + n : k.asInt();
        if (i < 0 || i >= n) vm::raise("IndexError", value ? "list assignment index out of range" : "list index out of range");
        if (value) container->items[static_cast<size_t>(i)] = value;
        else container->items.erase(container->items.begin() + i);
        if (outsideList) addEffect(PendingEffect{SideEffect::Kind::ListContents, container.get(), container->source, "", vm::Value(), container});
        return;
    }
    if (container->kind == Variable::Kind::Dict && container->fresh) {
        bool found = false;
        for (size_t i = 0; i < container->keys.size() && !found; ++i)
            if (vm::valuesEqual(container->keys[i], k)) {
                found = true;
                if (value) {
                    container->items[i] = value;
                } else {
                    container->keys.erase(container->keys.begin() + static_cast<long>(i));
                    container->items.erase(container->items.begin() + static_cast<long>(i));
                }
            }
        if (!found && !value) vm_.raiseKeyError(k);
        if (!found) {
            container->keys.push_back(k);
            container->items.push_back(value);
        }
        refreshViews(container);
        return;
    }
    // A dict from outside the frame: the store is pending (reads see it) and replayed on the real dict.
    if (container->kind == Variable::Kind::Python && container->value.is(vm::Kind::Dict) && container->source) {
        // A view taken earlier holds the dict's items as they were: a store would leave it stale.
        for (const auto& weak : outsideViews_)
            if (VarRef view = weak.lock(); view && view->self->value.identical(container->value))
                unsupported("Unsupported dict operation",
                            "Dynamo does not trace a store into a dict from outside the compiled frame while a view of it is alive.", {},
                            fmt::format("call_method ConstDictVariable() {}", what));
        if (!value) {
            std::optional<VarRef> pending = pendingItem(container->value, k);
            bool present = pending ? static_cast<bool>(*pending) : container->value.as<vm::DictObject>().find(k) != nullptr;
            if (!present) vm_.raiseKeyError(k);
        }
        addEffect(PendingEffect{value ? SideEffect::Kind::DictSet : SideEffect::Kind::DictDelete, identityOf(container->value),
                                container->source, "", k, value});
        return;
    }
    unsupported("Unsupported item assignment", "Dynamo does not trace item assignment on this value.", {}, what);
}

VarRef Tracer::callContainerMethod(const VarRef& method, std::vector<VarRef> args, std::vector<std::pair<std::string, VarRef>> kwargs) {
    const VarRef& self = method->self;
    if (self->generator) return callGeneratorMethod(method, args, kwargs);
    if (method->name == "_replace" && self->kind == Variable::Kind::Tuple) {
        // namedtuple._replace(**fields): a new tuple of the class, the named items replaced.
        if (!args.empty()) vm::typeError(fmt::format("_replace() takes 1 positional argument but {} were given", args.size() + 1));
        auto out = std::make_shared<Variable>();
        out->kind = Variable::Kind::Tuple;
        out->value = self->value;
        out->fresh = true;
        out->items = self->items;
        const auto& fields = self->value.as<vm::TupleObject>().fieldNames;
        for (auto& [field, value] : kwargs) {
            auto it = std::find(fields.begin(), fields.end(), field);
            if (it == fields.end()) vm::raise("ValueError", fmt::format("Got unexpected field names: ['{}']", field));
            out->items[static_cast<size_t>(it - fields.begin())] = value;
        }
        return out;
    }
    if (self->kind == Variable::Kind::Dict && (method->name == "move_to_end" || (method->name == "popitem" && !kwargs.empty())))
        return callOrderedDictMethod(*this, self, method->name, args, kwargs);
    if (self->kind == Variable::Kind::Set) {
        if (args.size() != 1 || !kwargs.empty()) vm::typeError("set.add() takes exactly one argument (" + std::to_string(args.size()) + " given)");
        addToSet(self, args[0]);
        return constant(vm::Value());
    }
    if (self->kind == Variable::Kind::Tuple && (method->name == "index" || method->name == "count"))
        return callListMethod(self, method->name, std::move(args), std::move(kwargs));  // reads only, as a list's
    if (method->name != "update" && self->kind != Variable::Kind::List) return callFreshDictMethod(method, args, kwargs);
    if (self->kind == Variable::Kind::List && isTracedListMethod(method->name))
        return callListMethod(self, method->name, std::move(args), std::move(kwargs));
    if (self->kind == Variable::Kind::List) {
        if (!kwargs.empty()) unsupported("Unsupported method call", "list methods take no keyword arguments.", {}, method->name);
        if (method->name == "clear" && args.empty()) {
            guardValue(self);
            self->items.clear();
            if (self->source && !self->fresh)
                addEffect(PendingEffect{SideEffect::Kind::ListContents, self.get(), self->source, "", vm::Value(), self});
            return constant(vm::Value());
        }
        if (args.size() != 1)
            unsupported("Unsupported method call", fmt::format("list.{}() takes exactly one argument ({} given).", method->name, args.size()), {},
                        method->name);
        // The replay sets the whole list, so it holds only for lists of the length traced: guard it first.
        guardValue(self);
        if (method->name == "append") self->items.push_back(args[0]);
        else for (VarRef& item : unpack(args[0])) self->items.push_back(std::move(item));
        // Only the traced items change: the real list is left as it was, and a list from outside the frame
        // gets the new items after the graph has run (rebuilt from its outputs).
        if (self->source && !self->fresh)
            addEffect(PendingEffect{SideEffect::Kind::ListContents, self.get(), self->source, "", vm::Value(), self});
        return constant(vm::Value());
    }
    // dict.update(other, **kwargs): item stores, in order.
    if (args.size() > 1) unsupported("Unsupported method call", "dict.update() takes at most 1 positional argument.", {}, "update");
    std::vector<std::pair<VarRef, VarRef>> pairs;
    if (!args.empty()) pairs = dictPairs(args[0], false);
    for (auto& [name, value] : kwargs) pairs.emplace_back(constant(vm::makeStr(name)), value);
    for (auto& [key, value] : pairs) storeItem(self, key, value);
    return constant(vm::Value());
}

VarRef Tracer::callFreshDictMethod(const VarRef& method, const std::vector<VarRef>& args, const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    const VarRef& self = method->self;
    const std::string& name = method->name;
    const bool noArguments = name == "clear" || name == "keys" || name == "values" || name == "items" || name == "popitem" || name == "copy";
    const size_t most = name == "get" || name == "pop" || name == "setdefault" ? 2 : 0;
    if (!kwargs.empty() || args.size() > most || (!noArguments && args.empty()))
        unsupported("Unsupported method call", fmt::format("dict.{}() with these arguments.", name), {}, name);
    if (self->kind == Variable::Kind::Python && self->source && noArguments && name != "clear") return outsideDictView(self, name);
    if (self->kind == Variable::Kind::Python && self->source && name == "get") {
        // get(key[, default]) of a dict from outside the frame: `key in d`, then its item through its source.
        if (!isConstant(args[0])) unsupported("Unsupported method call", "dict.get() with a traced key.", {}, name);
        argOf(args[0]);
        if (!outsideDictContains(self, exampleOf(args[0]))) return args.size() > 1 ? args[1] : constant(vm::Value());
        return getItem(self, args[0]);
    }
    if (self->kind == Variable::Kind::Python) {
        // All constants: the real method on the trace's own dict.
        for (const VarRef& a : args)
            if (!isConstant(a)) unsupported("Unsupported method call", fmt::format("dict.{}() of a constant dict with a traced value.", name), {}, name);
        vm::ValueList values;
        for (const VarRef& a : args) {
            argOf(a);
            values.push_back(exampleOf(a));
        }
        vm::Value result = vm_.call(vm_.getAttr(self->value, name), std::move(values));
        return name == "copy" ? dictVariable(result) : constant(result);
    }
    if (name == "keys" || name == "values" || name == "items") {
        // The view's items are its dict's, refilled whenever the dict changes (a live view); its example value is
        // the example dict's own view (tracer.cpp), so comparisons and `in` follow Python's view semantics.
        auto view = std::make_shared<Variable>();
        view->kind = Variable::Kind::Tuple;
        view->value = vm::makeTuple({});
        view->fresh = true;
        view->self = self;
        view->name = name;
        fillView(*this, *view, *self);
        self->views.push_back(view);
        return view;
    }
    if (name == "copy") {
        // A shallow copy: a new dict of the trace with the same keys and values (its class kept), changed apart.
        auto copy = std::make_shared<Variable>();
        copy->kind = Variable::Kind::Dict;
        copy->fresh = true;
        copy->value = self->value;
        copy->keys = self->keys;
        copy->items = self->items;
        return copy;
    }
    if (name == "popitem") {
        // The last item inserted, as a (key, value) tuple; KeyError on an empty dict.
        if (self->keys.empty()) vm::raise("KeyError", "popitem(): dictionary is empty");
        VarRef pair = itemPair(constant(self->keys.back()), self->items.back());
        self->keys.pop_back();
        self->items.pop_back();
        refreshViews(self);
        return pair;
    }
    if (name == "clear") {
        self->keys.clear();
        self->items.clear();
        refreshViews(self);
        return constant(vm::Value());
    }
    if (!isConstant(args[0])) unsupported("Unsupported method call", fmt::format("dict.{}() with a traced key.", name), {}, name);
    vm::Value key = exampleOf(args[0]);
    argOf(args[0]);
    VarRef fallback = args.size() > 1 ? args[1] : constant(vm::Value());
    for (size_t i = 0; i < self->keys.size(); ++i) {
        if (!vm::valuesEqual(self->keys[i], key)) continue;
        VarRef item = self->items[i];
        if (name == "pop") {
            self->keys.erase(self->keys.begin() + static_cast<long>(i));
            self->items.erase(self->items.begin() + static_cast<long>(i));
            refreshViews(self);
        }
        return item;
    }
    if (name == "pop" && args.size() < 2) vm_.raiseKeyError(key);
    if (name == "setdefault") {
        self->keys.push_back(key);
        self->items.push_back(fallback);
        refreshViews(self);
    }
    return fallback;
}

bool Tracer::outsideDictContains(const VarRef& dict, const vm::Value& key) {
    if (std::optional<VarRef> stored = pendingItem(dict->value, key)) return static_cast<bool>(*stored);
    bool found = vm_.contains(dict->value, key);
    guardDictContains(dict, key, found);
    return found;
}

VarRef Tracer::outsideDictView(const VarRef& dict, const std::string& name) {
    // Dynamo guards the keys (DICT_KEYS_MATCH, in order: the view iterates them) and reads each value through its
    // own source (G['d']['k']), so a changed value is this call's value and a changed key recompiles.
    requireNoPendingItems(dict->value, name);
    guardDictKeys(dict, true);
    auto view = std::make_shared<Variable>();
    view->kind = Variable::Kind::Tuple;
    view->value = vm::makeTuple({});
    view->fresh = true;
    view->self = dict;
    view->name = name;
    for (const auto& [key, item] : dict->value.as<vm::DictObject>().entries()) {
        VarRef value = name == "keys" ? nullptr : wrapSource(item, Source::dictItem(dict->source, key));
        if (name == "keys") {
            view->items.push_back(constant(key));
        } else if (name == "values") {
            view->items.push_back(value);
        } else {
            view->items.push_back(itemPair(constant(key), value));
        }
    }
    outsideViews_.push_back(view);
    return view;
}

std::vector<std::pair<VarRef, VarRef>> Tracer::dictPairs(const VarRef& other, bool mappingOnly) {
    std::vector<std::pair<VarRef, VarRef>> pairs;
    if (other->kind == Variable::Kind::Dict) {
        for (size_t i = 0; i < other->keys.size(); ++i) pairs.emplace_back(constant(other->keys[i]), other->items[i]);
    } else if (other->kind == Variable::Kind::Python && other->value.is(vm::Kind::Dict) && !other->value.as<vm::DictObject>().cls) {
        requireNoPendingItems(other->value, "update");
        guardDictKeys(other, true);
        for (const auto& [key, item] : other->value.as<vm::DictObject>().entries())
            pairs.emplace_back(constant(key), other->source ? wrapSource(item, Source::dictItem(other->source, key)) : constant(item));
    } else if (isUserInstance(other) && (mappingOnly || vm_.classOf(other->value)->lookup("keys"))) {
        // A mapping that is not a dict (a MutableMapping subclass; dict(x) takes x as one when it has keys()):
        // Python reads its keys(), then each item by __getitem__ (PyDict_Merge), both traced as calls of the
        // user's methods.
        VarRef keys = callFunction(*current_, getAttr(*current_, other, "keys"), {}, {});
        for (const VarRef& key : unpack(keys)) pairs.emplace_back(key, getItem(other, key));
    } else if (mappingOnly) {
        unsupported("Unsupported dict operation", "Dynamo does not trace unpacking this value as a mapping.", {}, "DICT_UPDATE");
    } else {
        for (const VarRef& pair : unpack(other)) {
            std::vector<VarRef> kv = unpack(pair);
            if (kv.size() != 2) vm::raise("ValueError", "dictionary update sequence element has wrong length");
            pairs.emplace_back(kv[0], kv[1]);
        }
    }
    return pairs;
}

void Tracer::recordSideEffects(TraceResult& result, std::vector<Arg>& outputs, std::map<const Node*, size_t>& outputIndex) {
    for (const PendingEffect& e : effects_) {
        SideEffect effect;
        effect.kind = e.kind;
        effect.target = e.target;
        effect.name = e.name;
        effect.key = e.key;
        if (e.kind == SideEffect::Kind::ListContents) {
            effect.value.kind = Rebuild::Kind::List;
            for (const VarRef& item : e.value->items) effect.value.items.push_back(rebuildOf(item, outputs, outputIndex));
        } else if (e.value) {
            effect.value = rebuildOf(e.value, outputs, outputIndex);
        }
        result.sideEffects.push_back(std::move(effect));
    }
}

}  // namespace eng::capture
