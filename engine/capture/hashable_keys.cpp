// Hashing and equality of keys in a trace: sets the trace makes (Dynamo's SetVariable), user objects as keys, and
// user classes' __eq__ / __hash__, which the interpreter would run unseen by the trace when a dict or set operation
// on trace-time values hashes or compares one: the trace installs its own InstanceProtocol (vm/value.h) that breaks
// the graph there, with Dynamo's reason for an overridden __hash__. Changes to a set from outside the frame (add,
// discard, remove, update, clear) run on it while tracing and are replayed on it after the graph (side effects).
#include <fmt/core.h>

#include <set>

#include "capture/symbolic_eval.h"
#include "capture/tracer.h"
#include "ops/operators.h"

namespace eng::capture {

namespace {

/// A user class's Python-level method `name` (a native one, such as a dict view's __eq__, is no user code).
std::optional<vm::Value> userDunder(const vm::ClassObject& cls, const char* name) {
    std::optional<vm::Value> method = cls.lookup(name);
    if (method && (method->is(vm::Kind::Function) || method->is(vm::Kind::BoundMethod))) return method;
    return std::nullopt;
}

class TraceTimeProtocol final : public vm::InstanceProtocol {
public:
    explicit TraceTimeProtocol(Tracer& tracer) : tracer_(tracer) {}

    bool instanceEquals(const vm::Value& a, const vm::Value& b) override {
        for (const vm::Value* side : {&a, &b}) {
            if (!side->is(vm::Kind::Instance)) continue;
            // An enum member compares and hashes as its module defines (Dynamo's EnumVariable is a constant).
            if (isEnumMember(*side)) return tracer_.vm().truthy(tracer_.vm().equality(a, b));
            const vm::ClassObject& cls = *side->as<vm::InstanceObject>().cls;
            if (userDunder(cls, "__eq__"))
                tracer_.unsupported("Unsupported user-defined __eq__",
                                    fmt::format("A dict, set or list operation compares an object of the user-defined class {} "
                                                "whose __eq__ it would run outside the trace.", cls.name),
                                    {"Compare the objects in the compiled code itself (`a == b`), or outside the compiled region."},
                                    fmt::format("comparing object of type=<class '{}.{}'>", cls.module, cls.name));
            if (cls.lookup("__eq__")) return tracer_.vm().truthy(tracer_.vm().equality(a, b));  // a native __eq__
        }
        return a.identical(b);
    }

    int64_t instanceHash(const vm::Value& instance) override {
        const vm::ClassObject& cls = *instance.as<vm::InstanceObject>().cls;
        if (userDunder(cls, "__hash__") && !isEnumMember(instance)) overriddenHash(tracer_, cls);
        return tracer_.vm().hash(instance);  // by identity, a native __hash__, or Python's TypeError for an unhashable class
    }

    /// Dynamo's raise_on_overridden_hash, for a user class whose own or inherited __hash__ would run.
    [[noreturn]] static void overriddenHash(Tracer& tracer, const vm::ClassObject& cls) {
        const std::string variable = "UserDefinedObjectVariable(" + cls.name + ")";
        tracer.unsupported("User-defined object with overridden __hash__",
                           "Found a user-defined object " + variable + " with overridden __hash__ when attempting to hash it",
                           {"Dynamo does not support hashing user-defined objects with overridden __hash__",
                            "It may be possible to write Dynamo tracing rules for this code. Please report an issue to PyTorch if you "
                            "encounter this graph break often and it is causing performance issues."},
                           fmt::format("hashing object of type=<class '{}.{}'> and variable tracker {}", cls.module, cls.name, variable));
    }

private:
    Tracer& tracer_;
};

}  // namespace

std::unique_ptr<vm::InstanceProtocol> traceTimeInstanceProtocol(Tracer& tracer) { return std::make_unique<TraceTimeProtocol>(tracer); }

namespace {

/// Whether two values the trace holds are one set element: constants by value (Python's hash and ==), tensors by
/// identity (a tensor hashes by id); nullopt for values a set of the trace cannot hold.
std::optional<bool> sameSetElement(Tracer& tracer, const VarRef& a, const VarRef& b) {
    if (tracer.isConstant(a) && tracer.isConstant(b)) return vm::valuesEqual(tracer.exampleOf(a), tracer.exampleOf(b));
    if (a->kind == Variable::Kind::Tensor && b->kind == Variable::Kind::Tensor) return tracer.sameObject(a, b);
    if ((a->kind == Variable::Kind::Tensor && tracer.isConstant(b)) || (b->kind == Variable::Kind::Tensor && tracer.isConstant(a))) return false;
    return std::nullopt;
}

[[noreturn]] void unsupportedSetElement(Tracer& tracer) { tracer.unsupported("Unsupported set element", "Dynamo traces sets of constants and tensors only.", {}, "SetVariable"); }

}  // namespace

VarRef Tracer::setOf(const std::vector<VarRef>& items) {
    VarRef set = container(Variable::Kind::Set, {});
    for (const VarRef& item : items) addToSet(set, item);
    return set;
}

void Tracer::addToSet(const VarRef& set, const VarRef& item) {
    if (item->kind == Variable::Kind::SymScalar) specializeScalar(item);  // a symbolic size hashes by value: guarded equal
    if (isConstant(item)) {
        argOf(item);
        std::make_shared<vm::SetObject>()->add(exampleOf(item));  // unhashable constants raise Python's TypeError
    }
    if (setContains(set, item)) return;
    if (!isConstant(item) && item->kind != Variable::Kind::Tensor) unsupportedSetElement(*this);
    set->items.push_back(item);
}

bool Tracer::setContains(const VarRef& set, const VarRef& item) {
    if (isConstant(item)) vm::hashValue(exampleOf(item));  // Python hashes it first: a user __hash__ breaks
    if (item->kind == Variable::Kind::Object) checkObjectKey(item);
    for (const VarRef& element : set->items) {
        std::optional<bool> same = sameSetElement(*this, element, item);
        if (!same) unsupportedSetElement(*this);
        if (*same) return true;
    }
    return false;
}

std::optional<bool> Tracer::userEquals(const VarRef& item, const VarRef& value) {
    // Python's PyObject_RichCompareBool(item, value): the same object, else item == value with the user's __eq__
    // traced (Dynamo's polyfills for list.index/count/remove and `in`); its outcome must be known at trace time.
    if (!isUserInstance(item) && !isUserInstance(value)) return std::nullopt;
    if (item.get() == value.get() || (item->kind == Variable::Kind::Python && value->kind == Variable::Kind::Python &&
                                      item->value.identical(value->value)))
        return true;
    VarRef equal = compareOp(static_cast<uint32_t>(ops::CompareOperator::Equal), item, value);
    if (equal->kind == Variable::Kind::Python) return vm_.truthy(equal->value);
    unsupported("Unsupported user-defined __eq__", "A list method or `in` compares user-defined objects whose __eq__ gives a traced value.",
                {"Make __eq__ return a Python bool."}, "call_method ListVariable() __eq__");
}

void Tracer::checkObjectKey(const VarRef& key) {
    // An object the trace made is keyed by identity unless its class hashes it itself.
    const vm::ClassObject& cls = *key->value.as<vm::InstanceObject>().cls;
    if (userDunder(cls, "__hash__")) TraceTimeProtocol::overriddenHash(*this, cls);
}

namespace {
/// A set element whose equality and hash are Python's own and whose value cannot change: what a guard on the set's
/// contents pins, and what a replayed add/discard can pass again.
bool plainConstant(const vm::Value& v) {
    switch (v.kind()) {
        case vm::Kind::None:
        case vm::Kind::Bool:
        case vm::Kind::Int:
        case vm::Kind::Float:
        case vm::Kind::Str: return true;
        case vm::Kind::Tuple:
            for (const vm::Value& item : v.as<vm::TupleObject>().items)
                if (!plainConstant(item)) return false;
            return true;
        default: return false;
    }
}
}  // namespace

std::optional<VarRef> Tracer::callOutsideSetMutator(const VarRef& self, const std::string& name, const std::vector<VarRef>& args,
                                                    const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    // pop() is left out: which element it takes follows the set's order, which the contents guard does not pin.
    static const std::set<std::string> kMutators = {"add", "discard", "remove", "update", "clear"};
    if (self->kind != Variable::Kind::Python || !self->source || self->fresh || !self->value.is(vm::Kind::Set) ||
        self->value.as<vm::SetObject>().frozen || !kMutators.contains(name) || !kwargs.empty() || !allConstant(args, kwargs))
        return std::nullopt;
    const vm::Value& set = self->value;
    for (const vm::Value& item : set.as<vm::SetObject>().items)
        if (!plainConstant(item)) return std::nullopt;
    // The arguments as the replay passes them: update's iterables copied into tuples (a list may change later).
    vm::ValueList replayed;
    for (const VarRef& a : args) {
        const vm::Value& v = exampleOf(a);
        if (name != "update") {
            if (!plainConstant(v)) return std::nullopt;
            replayed.push_back(v);
            continue;
        }
        const vm::ValueList* items = v.is(vm::Kind::Set)     ? &v.as<vm::SetObject>().items
                                     : v.is(vm::Kind::List)  ? &v.as<vm::ListObject>().items
                                     : v.is(vm::Kind::Tuple) ? &v.as<vm::TupleObject>().items
                                                             : nullptr;
        if (!items) return std::nullopt;
        for (const vm::Value& item : *items)
            if (!plainConstant(item)) return std::nullopt;
        replayed.push_back(vm::makeTuple(*items));
    }
    for (const VarRef& a : args) argOf(a);
    // Dynamo guards the set's contents (G['s'] == {1, 2}): the changes replay onto the same set on every call.
    guardValue(self);
    if (!setContentsBeforeTrace(set)) mutatedSets_.emplace_back(set, set.as<vm::SetObject>().items);
    vm::Value result = vm_.call(vm_.getAttr(set, name), replayed);  // remove() of a missing element raises here, as eagerly
    ++effectWrites_;
    effects_.push_back(PendingEffect{SideEffect::Kind::SetMethod, set.object().get(), self->source, name, vm::makeTuple(std::move(replayed)), nullptr});
    return constant(result);
}

void Tracer::restoreChangedSets() {
    for (auto& [set, before] : mutatedSets_) set.as<vm::SetObject>().items = before;
}

const vm::ValueList* Tracer::setContentsBeforeTrace(const vm::Value& set) const {
    for (const auto& [real, before] : mutatedSets_)
        if (real.identical(set)) return &before;
    return nullptr;
}

}  // namespace eng::capture
