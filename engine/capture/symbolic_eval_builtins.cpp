// Builtin calls during capture: pure builtins of constants fold, builtins of user objects run their dunders, and
// builtins that Dynamo cannot trace (id of a frame-made object, print, ...) break the graph with Dynamo's message.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "capture/symbolic_eval.h"
#include "ops/operators.h"

namespace eng::capture {

namespace {

using KwVars = std::vector<std::pair<std::string, VarRef>>;

bool isTorchSize(const Variable& v) {
    return v.value.is(vm::Kind::Tuple) && v.value.as<vm::TupleObject>().typeName == "torch.Size";
}

const char* variableClass(const Variable& v) {
    switch (v.kind) {
        case Variable::Kind::Tensor: return "torch._dynamo.variables.tensor.TensorVariable";
        case Variable::Kind::SymScalar: return "torch._dynamo.variables.tensor.SymNodeVariable";
        case Variable::Kind::List: return "torch._dynamo.variables.lists.ListVariable";
        case Variable::Kind::Tuple:
            return isTorchSize(v) ? "torch._dynamo.variables.lists.SizeVariable" : "torch._dynamo.variables.lists.TupleVariable";
        case Variable::Kind::Dict: return "torch._dynamo.variables.dicts.ConstDictVariable";
        case Variable::Kind::Set: return "torch._dynamo.variables.sets.SetVariable";
        default: return "torch._dynamo.variables.constant.ConstantVariable";
    }
}

std::string pythonTypeName(Tracer& tracer, const Variable& v) {
    if (v.kind == Variable::Kind::Tensor) return "Tensor";
    if (v.kind == Variable::Kind::List) return "list";
    if (v.kind == Variable::Kind::Tuple) return isTorchSize(v) ? "Size" : "tuple";
    if (v.kind == Variable::Kind::Dict) return "dict";
    if (v.kind == Variable::Kind::Set) return v.name == "frozenset" ? "frozenset" : "set";
    return tracer.vm().classOf(v.value)->name;
}

/// type, str, repr, len, setattr, getattr and hasattr of user objects: their Python methods inlined, their traced
/// attributes read and written; nullopt when no argument is a user object.
std::optional<VarRef> callBuiltinOnObject(Tracer& tracer, TraceFrame& frame, const std::string& name, std::vector<VarRef>& args,
                                          const KwVars& kwargs) {
    if (args.empty() || !kwargs.empty() || !tracer.isUserInstance(args[0])) return std::nullopt;
    const VarRef& object = args[0];
    const bool made = object->kind == Variable::Kind::Object;
    const auto& cls = object->value.as<vm::InstanceObject>().cls;
    if (name == "type" && args.size() == 1 && made) return tracer.constant(vm::Value(cls));
    if ((name == "str" || name == "repr") && args.size() == 1) {
        if (isTracedException(tracer, object))  // its text comes from its args, which the trace-time instance lacks
            tracer.unsupported("Failed to trace builtin operator", fmt::format("Dynamo does not trace `{}` of an exception made in the compiled frame.", name),
                               {}, "builtin " + name);
        std::optional<VarRef> text = name == "str" ? tracer.callDunder(frame, object, "__str__", {}) : std::nullopt;
        if (!text) text = tracer.callDunder(frame, object, "__repr__", {});
        if (text) return text;
        // object.__repr__: the trace-time instance's address, a constant as in Dynamo.
        if (made) return tracer.constant(vm::makeStr(tracer.vm().repr(object->value)));
        return std::nullopt;
    }
    if (name == "len" && args.size() == 1) {
        if (std::optional<VarRef> n = tracer.callDunder(frame, object, "__len__", {})) return n;
        vm::typeError(fmt::format("object of type '{}' has no len()", cls->name));
    }
    if (name == "setattr" && args.size() == 3 && tracer.isConstant(args[1]) && args[1]->value.is(vm::Kind::Str)) {
        tracer.storeAttr(object, args[1]->value.str(), args[2]);
        return tracer.constant(vm::Value());
    }
    if (!made) return std::nullopt;
    if ((name == "getattr" || name == "hasattr") && (args.size() == 2 || (name == "getattr" && args.size() == 3)) &&
        tracer.isConstant(args[1]) && args[1]->value.is(vm::Kind::Str)) {
        const std::string& attribute = args[1]->value.str();
        bool present = std::any_of(object->keys.begin(), object->keys.end(), [&](const vm::Value& k) { return k.str() == attribute; }) ||
                       cls->lookup(attribute) || attribute == "__class__";
        if (!present && cls->lookup("__getattr__"))
            tracer.unsupported("Unsupported builtin call", fmt::format("Dynamo does not trace `{}` through `__getattr__`.", name), {}, "builtin " + name);
        if (name == "hasattr") return tracer.constant(vm::Value(present));
        if (!present && args.size() == 3) return args[2];
        return tracer.getAttr(frame, object, attribute);
    }
    if (name == "id" || name == "hash")
        tracer.unsupported("Failed to trace builtin operator", fmt::format("Dynamo does not trace `{}` of an object made in the compiled frame.", name), {},
                           "builtin " + name);
    return std::nullopt;
}

/// The C module holding `native` when Dynamo skips that module's builtins (heapq's `_heapq`), else nullopt.
std::optional<std::string> skippedBuiltinModule(Tracer& tracer, const vm::Value& native) {
    for (const char* name : {"_heapq"}) {
        auto module = tracer.vm().modules().find(name);
        if (module == tracer.vm().modules().end() || !module->second.is(vm::Kind::Module)) continue;
        for (const auto& [attribute, value] : module->second.as<vm::ModuleObject>().attributes)
            if (value.identical(native)) return std::string(name);
    }
    return std::nullopt;
}

}  // namespace

/// itertools functions that Dynamo 2.11's ItertoolsVariable has no rule for (takewhile, starmap): the call breaks the
/// graph (gb0147) and runs eagerly; the resumed code then breaks again where it iterates the result.
void breakOnUntracedItertools(Tracer& tracer, const vm::Value& function, const std::vector<VarRef>& args) {
    const auto& fn = function.as<vm::FunctionObject>();
    auto module = fn.globals ? fn.globals->find("__name__") : vm::Namespace::iterator();
    if (!fn.globals || (fn.code->name != "takewhile" && fn.code->name != "starmap") || module == fn.globals->end() ||
        !module->second.is(vm::Kind::Str) || module->second.str() != "itertools")
        return;
    const std::string cls = fmt::format("<class 'itertools.{}'>", fn.code->name);
    std::vector<std::string> shown;
    for (const VarRef& a : args) shown.push_back(variableRepr(tracer, *a));
    tracer.unsupported("Unsupported function call", fmt::format("Dynamo does not know how to trace the function `{}`", cls),
                       {fmt::format("Avoid calling `{}` in your code.", cls), "Please report an issue to PyTorch."},
                       fmt::format("call_function ItertoolsVariable({}) [{}] {{}}", cls, fmt::join(shown, ", ")), 147);
}

VarRef callBuiltin(Tracer& tracer, TraceFrame& frame, const std::string& name, const vm::Value& callee, std::vector<VarRef>& args,
                   KwVars& kwargs) {
    // C modules whose builtins Dynamo's trace_rules skip (SkipFunctionVariable): the call runs eagerly after the break.
    if (std::optional<std::string> skipped = skippedBuiltinModule(tracer, callee))
        tracer.unsupported("Attempted to call function marked as skipped",
                           fmt::format("Dynamo does not know how to trace the builtin `{}.{}.` This function is either a Python builtin "
                                       "(e.g. _warnings.warn) or a third-party C/C++ Python extension (perhaps created with pybind).",
                                       *skipped, name),
                           {"If it is a Python builtin, please file an issue on GitHub so the PyTorch team can add support for it and see "
                            "the next case for a workaround.",
                            "If it is a third-party C/C++ Python extension, please either wrap it into a PyTorch-understood custom "
                            "operator (see https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html for more details) or, if it "
                            "is traceable, use `torch.compiler.allow_in_graph`."},
                           fmt::format("module: {}, qualname: {}, skip reason: <missing reason>", *skipped, name), 7);
    // An iterator from outside the frame (one a call before a graph break returned) is consumed by the builtin:
    // Dynamo cannot trace it, as when the resumed code loops over it.
    static const std::set<std::string> kConsumers = {"sum", "min", "max", "sorted", "any", "all", "set", "frozenset", "dict", "list", "tuple"};
    for (const VarRef& a : args)
        if (kConsumers.contains(name) && a->kind == Variable::Kind::Python && a->source && a->value.is(vm::Kind::Iterator))
            tracer.unsupported("Unsupported iteration",
                               fmt::format("Dynamo cannot guard the items of a `{}` from outside the compiled frame.", tracer.vm().classOf(a->value)->name),
                               {}, "iter " + tracer.vm().classOf(a->value)->name);
    auto allConstant = [&] {
        for (const VarRef& a : args)
            if (!tracer.isConstant(a)) return false;
        for (const auto& kw : kwargs)
            if (!tracer.isConstant(kw.second)) return false;
        return true;
    };
    if (name == "len" && args.size() == 1) {
        const VarRef& a = args[0];
        // len(x) is x.shape[0]: a symbol or a size read in the graph where it may change between calls.
        if (a->kind == Variable::Kind::Tensor && a->value.tensor().dim() > 0) return tracer.getAttr(frame, a, "shape")->items.at(0);
        if (a->kind == Variable::Kind::Set) return tracer.constant(vm::Value(static_cast<int64_t>(a->items.size())));
        if (a->kind == Variable::Kind::List || a->kind == Variable::Kind::Tuple || a->kind == Variable::Kind::Dict) {
            if (a->source) tracer.guardValue(a);
            if (!a->node) return tracer.constant(vm::Value(static_cast<int64_t>(a->items.size())));
        }
    }
    if (name == "bool" && args.size() == 1 && kwargs.empty() && !args[0]->node &&
        (args[0]->kind == Variable::Kind::List || args[0]->kind == Variable::Kind::Tuple || args[0]->kind == Variable::Kind::Dict ||
         args[0]->kind == Variable::Kind::Set)) {
        // bool() of a container is whether it has items (its length guarded when it comes from outside).
        if (args[0]->source) tracer.guardValue(args[0]);
        return tracer.constant(vm::Value(!args[0]->items.empty()));
    }
    if ((name == "max" || name == "min") && args.size() == 2 && kwargs.empty() &&
        std::any_of(args.begin(), args.end(), [](const VarRef& a) { return a->kind == Variable::Kind::SymScalar; }) &&
        std::all_of(args.begin(), args.end(), [&](const VarRef& a) { return a->kind == Variable::Kind::SymScalar || tracer.isConstant(a); }))
        // max(n, 8) of a symbolic size: torch.sym_max / sym_min in the graph, as Dynamo records it.
        return tracer.callTensorOp(NodeOp::CallFunction, name == "max" ? "torch.sym_max" : "torch.sym_min", args, {}, callee, CallKind::Callable);
    if ((name == "max" || name == "min") && args.size() == 2 && kwargs.empty() &&
        std::any_of(args.begin(), args.end(), [](const VarRef& a) { return a->kind == Variable::Kind::Tensor; }) &&
        std::all_of(args.begin(), args.end(), [&](const VarRef& a) {
            return a->kind == Variable::Kind::Tensor || (tracer.isConstant(a) && a->value.isNumber() && !a->value.is(vm::Kind::Bool));
        })) {
        // Dynamo's BuiltinVariable._call_min_max_binary: the tensor first, then torch.clamp(t, min=c) / clamp(t, max=c)
        // against a number, torch.maximum / torch.minimum against another tensor.
        VarRef a = args[0]->kind == Variable::Kind::Tensor ? args[0] : args[1];
        VarRef b = args[0]->kind == Variable::Kind::Tensor ? args[1] : args[0];
        const vm::Value torchModule = tracer.vm().importModule("torch");
        if (b->kind != Variable::Kind::Tensor)
            return tracer.callTensorOp(NodeOp::CallFunction, "torch.clamp", {a}, {{name == "max" ? "min" : "max", b}},
                                       tracer.vm().getAttr(torchModule, "clamp"), CallKind::Callable);
        const std::string op = name == "max" ? "maximum" : "minimum";
        return tracer.callTensorOp(NodeOp::CallFunction, "torch." + op, {a, b}, {}, tracer.vm().getAttr(torchModule, op), CallKind::Callable);
    }
    if ((name == "id" || name == "type") && args.size() == 1 && kwargs.empty() && args[0]->kind == Variable::Kind::Tensor) {
        // Dynamo's call_id of a TensorVariable is the id of its example value (distinct tensors, distinct ids; one
        // tensor, one id), and type() of one is its class (torch.Tensor, or Parameter read from a module), which
        // TENSOR_MATCH guards: both constants of the trace.
        const VarRef& t = args[0];
        const bool outside = t->source && !t->original.isNull() && !t->original.isNone();
        if (name == "id") return tracer.constant(tracer.vm().call(callee, {tracer.exampleOf(t)}));
        return tracer.constant(vm::Value(tracer.vm().classOf(outside ? t->original : tracer.exampleOf(t))));
    }
    if (name == "abs" && args.size() == 1 && kwargs.empty() && args[0]->kind == Variable::Kind::Tensor)
        return tracer.callTensorOp(NodeOp::CallFunction, "abs", args, {}, callee, CallKind::Callable);  // abs(t): a node
    if (std::optional<VarRef> r = callBuiltinOnObject(tracer, frame, name, args, kwargs)) return *r;
    if (name == "isinstance" && args.size() == 2) {
        // The outcome depends on the value's type: a value from a source is guarded (a list by its type and length).
        if (args[0]->source && args[0]->kind != Variable::Kind::Tensor) tracer.guardValue(args[0]);
        tracer.argOf(args[1]);
        // A bound method is traced as its function and self: the check sees the method object it stands for.
        vm::Value checked = args[0]->kind == Variable::Kind::BoundMethod && args[0]->self
                                ? vm::Value(std::make_shared<vm::BoundMethodObject>(tracer.exampleOf(args[0]->self), args[0]->value))
                                : tracer.exampleOf(args[0]);
        return tracer.constant(tracer.vm().call(callee, {checked, tracer.exampleOf(args[1])}));
    }
    if (name == "type" && args.size() == 1 && kwargs.empty() && args[0]->kind == Variable::Kind::SymScalar) {
        // type() of a symbolic int or float: its Python type, which the input's type guard fixes (TYPE_MATCH).
        if (args[0]->source) tracer.guardValue(args[0]);
        return tracer.constant(vm::Value(tracer.vm().classOf(tracer.exampleOf(args[0]))));
    }
    if (name == "getattr" && args.size() == 3 && args[0]->kind == Variable::Kind::Python && tracer.isConstant(args[1]) &&
        args[1]->value.is(vm::Kind::Str) && !tracer.vm().findAttr(args[0]->value, args[1]->value.str()) &&
        !(args[0]->value.is(vm::Kind::Instance) && args[0]->value.as<vm::InstanceObject>().cls->lookup("__getattr__"))) {
        // getattr(obj, name, default) of a missing attribute: the default, decided as hasattr() decides (the object guarded).
        tracer.argOf(args[0]);
        return args[2];
    }
    if (name == "getattr" && args.size() >= 2 && tracer.isConstant(args[1])) return tracer.getAttr(frame, args[0], args[1]->value.str());
    // delattr(obj, name), and object.__delattr__(obj, name) from a class's own __delattr__ (no hook again).
    if ((name == "delattr" || name == "__delattr__") && args.size() == 2 && kwargs.empty() && tracer.isConstant(args[1]) &&
        args[1]->value.is(vm::Kind::Str)) {
        tracer.deleteAttr(frame, args[0], args[1]->value.str(), name == "delattr");
        return tracer.constant(vm::Value());
    }
    if (name == "hasattr" && args.size() == 2 && kwargs.empty() && args[0]->kind == Variable::Kind::Python && tracer.isConstant(args[1]) &&
        args[1]->value.is(vm::Kind::Str))
        // An attribute stored or deleted earlier in the trace answers from the trace.
        if (std::optional<VarRef> stored = tracer.pendingAttr(args[0]->value, args[1]->value.str())) return tracer.constant(vm::Value(bool(*stored)));
    if (name == "hasattr" && args.size() == 2 && kwargs.empty() && args[0]->kind == Variable::Kind::Tensor && tracer.isConstant(args[1]) &&
        args[1]->value.is(vm::Kind::Str))
        // A tensor's attributes are its class's (the tensor's type is guarded with it).
        return tracer.constant(vm::Value(tracer.vm().findAttr(args[0]->value, args[1]->value.str()).has_value()));
    if (name == "hasattr" && args.size() == 2 && kwargs.empty() && args[0]->kind == Variable::Kind::Tuple &&
        (!args[0]->source || (args[0]->value.is(vm::Kind::Tuple) && args[0]->value.as<vm::TupleObject>().cls)) && !args[0]->node &&
        tracer.isConstant(args[1]) && args[1]->value.is(vm::Kind::Str)) {
        // A tuple the trace made: its attributes are its class's (a namedtuple's class is a guarded constant); a
        // namedtuple from a source has its class pinned.
        tracer.guardTupleClass(args[0]);
        return tracer.constant(vm::Value(tracer.vm().findAttr(tracer.exampleOf(args[0]), args[1]->value.str()).has_value()));
    }
    if ((name == "set" || name == "frozenset") && args.size() == 1 && kwargs.empty() && !tracer.isConstant(args[0])) {
        // set(iterable) / frozenset(iterable) of traced values: a set the trace owns (tensors by identity, constants
        // by value); a frozen one has no add() and is rebuilt as a frozenset.
        VarRef made = tracer.setOf(tracer.unpack(args[0]));
        if (name == "frozenset") made->name = "frozenset";
        return made;
    }
    if (name == "dict" && args.size() <= 1) {
        // dict(mapping or pairs, **kwargs): a dict the trace owns, its values traced.
        auto out = std::make_shared<Variable>();
        out->kind = Variable::Kind::Dict;
        out->fresh = true;
        std::vector<std::pair<VarRef, VarRef>> pairs;
        if (!args.empty()) pairs = tracer.dictPairs(args[0], false);
        for (auto& [keyword, value] : kwargs) pairs.emplace_back(tracer.constant(vm::makeStr(keyword)), value);
        for (auto& [key, value] : pairs) tracer.storeItem(out, key, value);
        return out;
    }
    if (name == "sum" && !args.empty() && args.size() <= 2 && !tracer.isConstant(args[0])) {
        // Python's sum: start + items[0] + items[1] + ..., each addition traced.
        VarRef total = args.size() > 1 ? args[1] : tracer.constant(vm::Value(0));
        for (const auto& [keyword, value] : kwargs) {
            if (keyword != "start") tracer.unsupported("Failed to trace builtin operator", "sum() got an unexpected keyword argument.", {}, "builtin sum");
            total = value;
        }
        for (const VarRef& item : tracer.unpack(args[0])) total = tracer.binaryOp(0, total, item);
        return total;
    }
    if ((name == "map" || name == "filter") && args.size() >= 2 && kwargs.empty() && args[0]->kind == Variable::Kind::Python &&
        (name == "map" || args.size() == 2)) {
        // Lazy, as in Python: the function runs through the trace when an item is asked for (Tracer::nextOf).
        auto out = std::make_shared<Variable>();
        out->kind = Variable::Kind::Iterator;
        out->fresh = true;
        out->name = name;
        out->self = args[0];
        for (size_t i = 1; i < args.size(); ++i) out->lazySources.push_back(tracer.iteratorOf(args[i]));
        return out;
    }
    const bool outsideDict = args.size() == 1 && args[0]->kind == Variable::Kind::Python && args[0]->source && args[0]->value.is(vm::Kind::Dict);
    if (name == "iter" && args.size() == 1 && kwargs.empty() &&
        (args[0]->kind == Variable::Kind::List || args[0]->kind == Variable::Kind::Tuple || args[0]->kind == Variable::Kind::Dict ||
         args[0]->kind == Variable::Kind::Iterator || outsideDict)) {
        // iter() of a traced container, or of a dict from outside the frame (its keys guarded by DICT_KEYS_MATCH): an
        // iterator over its items now (an iterator is its own iterator).
        return tracer.iteratorOf(args[0]);
    }
    if (name == "next" && (args.size() == 1 || args.size() == 2) && kwargs.empty() && args[0]->kind == Variable::Kind::Iterator &&
        args[0]->fresh) {
        // next() of an iterator the trace made: its next item now, else the default, else StopIteration.
        if (std::optional<VarRef> item = tracer.nextOf(args[0])) return *item;
        if (args.size() == 2) return args[1];
        vm::raise("StopIteration", "");
    }
    bool zipStrict = false;
    if (name == "zip" && kwargs.size() == 1 && kwargs[0].first == "strict" && tracer.isConstant(kwargs[0].second)) {
        tracer.argOf(kwargs[0].second);
        zipStrict = tracer.vm().truthy(tracer.exampleOf(kwargs[0].second));
        kwargs.clear();
    }
    if (name == "enumerate" && args.size() == 1 && kwargs.size() == 1 && kwargs[0].first == "start") {
        args.push_back(kwargs[0].second);  // enumerate(xs, start=k) is enumerate(xs, k)
        kwargs.clear();
    }
    if (name == "enumerate" && args.size() == 2) {
        // The start is specialized (guarded when it came from the frame), as Dynamo's constant start.
        if (!tracer.isConstant(args[1])) tracer.unsupported("Failed to trace builtin operator", "enumerate() start is not a constant.", {}, "builtin enumerate");
        tracer.argOf(args[1]);
    }
    if ((name == "enumerate" || name == "zip") && kwargs.empty() && !args.empty() &&
        std::any_of(args.begin(), args.end(), [](const VarRef& a) { return holdsGenerator(*a); })) {
        // Over a generator made in the trace: lazy as in Python, so its body runs between the loop's iterations
        // (draining it first would reorder its side effects against the loop body's).
        if (zipStrict) tracer.unsupported("Failed to trace builtin operator", "zip(strict=True) over a generator.", {}, "builtin zip");
        auto out = std::make_shared<Variable>();
        out->kind = Variable::Kind::Iterator;
        out->fresh = true;
        out->name = name;
        if (name == "enumerate") {
            if (args.size() > 2 || (args.size() == 2 && !tracer.isConstant(args[1]))) tracer.unsupported("Failed to trace builtin operator", "enumerate() start is not a constant.", {}, "builtin enumerate");
            out->value = vm::Value(args.size() == 2 ? tracer.exampleOf(args[1]).asInt() : int64_t{0});  // the next index
            out->lazySources.push_back(tracer.iteratorOf(args[0]));
        } else {
            for (const VarRef& a : args) out->lazySources.push_back(tracer.iteratorOf(a));
        }
        return out;
    }
    if ((name == "enumerate" || name == "zip" || name == "reversed" || name == "list" || name == "tuple") && kwargs.empty()) {
        std::vector<std::vector<VarRef>> sources;
        // enumerate's second argument is its start, not an iterable.
        const size_t iterables = name == "enumerate" ? std::min<size_t>(args.size(), 1) : args.size();
        for (size_t i = 0; i < iterables; ++i) sources.push_back(tracer.unpack(args[i]));
        for (size_t i = 1; zipStrict && i < sources.size(); ++i)
            if (sources[i].size() != sources[0].size())
                vm::raise("ValueError", fmt::format("zip() argument {} is {} than argument{}", i + 1,
                                                    sources[i].size() < sources[0].size() ? "shorter" : "longer",
                                                    i == 1 ? " 1" : fmt::format("s 1-{}", i)));
        auto out = std::make_shared<Variable>();
        out->kind = name == "tuple" ? Variable::Kind::Tuple : Variable::Kind::List;
        out->fresh = true;
        if (name == "tuple") out->value = vm::makeTuple({});
        if (name == "list" || name == "tuple") {
            if (!sources.empty()) out->items = sources[0];
        } else if (name == "reversed") {
            out->items.assign(sources.at(0).rbegin(), sources.at(0).rend());
        } else if (name == "enumerate") {
            int64_t start = args.size() > 1 ? tracer.exampleOf(args[1]).asInt() : 0;
            for (size_t i = 0; i < sources.at(0).size(); ++i) {
                auto pair = std::make_shared<Variable>();
                pair->kind = Variable::Kind::Tuple;
                pair->value = vm::makeTuple({});
                pair->items = {tracer.constant(vm::Value(start + static_cast<int64_t>(i))), sources[0][i]};
                out->items.push_back(pair);
            }
        } else {
            size_t n = sources.empty() ? 0 : sources[0].size();
            for (const auto& s : sources) n = std::min(n, s.size());
            for (size_t i = 0; i < n; ++i) {
                auto tuple = std::make_shared<Variable>();
                tuple->kind = Variable::Kind::Tuple;
                tuple->value = vm::makeTuple({});
                for (const auto& s : sources) tuple->items.push_back(s[i]);
                out->items.push_back(tuple);
            }
        }
        return out;
    }
    // A key function runs user code: sorted(), min() and max() call it through the trace (Dynamo inlines it per
    // item), so the order follows the frame's values; keys must come out as constants.
    const VarRef* keyFunction = nullptr;
    for (const auto& [keyword, a] : kwargs)
        if (keyword == "key" && a->kind == Variable::Kind::Python && !a->value.isNone()) keyFunction = &a;
    const bool extremum = name == "min" || name == "max";
    if (keyFunction && (args.size() == 1 || (extremum && args.size() > 1)) && (name == "sorted" || extremum) &&
        std::all_of(kwargs.begin(), kwargs.end(), [&](const auto& kw) { return kw.first == "key" || (!extremum && kw.first == "reverse"); })) {
        // min/max(a, b, ..., key=f) compare their arguments, min/max(iterable, key=f) its items.
        std::vector<VarRef> items = args.size() == 1 ? tracer.unpack(args[0]) : args;
        std::vector<vm::Value> keys;
        for (const VarRef& item : items) {
            VarRef k = tracer.callFunction(frame, *keyFunction, {item}, {});
            if (!tracer.isConstant(k)) tracer.unsupported("Unsupported sort key", name + "() key returned a traced value.", {}, "builtin " + name);
            tracer.argOf(k);
            keys.push_back(tracer.exampleOf(k));
        }
        constexpr uint32_t kLess = static_cast<uint32_t>(ops::CompareOperator::Less);
        if (extremum) {
            // Python's min/max: the first item whose key no later key beats.
            if (items.empty()) vm::raise("ValueError", name + "() iterable argument is empty");
            size_t best = 0;
            for (size_t i = 1; i < items.size(); ++i)
                if (tracer.vm().truthy(tracer.vm().compare(kLess, name == "min" ? keys[i] : keys[best], name == "min" ? keys[best] : keys[i])))
                    best = i;
            return items[best];
        }
        bool reverse = false;
        for (const auto& [keyword, a] : kwargs)
            if (keyword == "reverse") reverse = tracer.vm().truthy(tracer.exampleOf(a));
        std::vector<size_t> order(items.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return tracer.vm().truthy(tracer.vm().compare(kLess, reverse ? keys[b] : keys[a], reverse ? keys[a] : keys[b]));
        });
        auto out = std::make_shared<Variable>();
        out->kind = Variable::Kind::List;
        out->fresh = true;
        for (size_t i : order) out->items.push_back(items[i]);
        return out;
    }
    static const std::set<std::string> overItems = {"min", "max", "sorted", "any", "all"};
    if (overItems.contains(name) && args.size() == 1 && !tracer.isConstant(args[0]) && !keyFunction &&
        std::all_of(kwargs.begin(), kwargs.end(), [&](const auto& kw) { return tracer.isConstant(kw.second); })) {
        // One iterable the trace holds (a generator, a dict's keys, a list it made) whose items are constants: the
        // builtin on those values, as Dynamo folds it (its items, and so the result, fixed by the trace's guards).
        std::vector<VarRef> items = tracer.unpack(args[0]);
        if (std::all_of(items.begin(), items.end(), [&](const VarRef& item) { return tracer.isConstant(item); })) {
            vm::ValueList values;
            for (const VarRef& item : items) {
                tracer.argOf(item);
                values.push_back(tracer.exampleOf(item));
            }
            vm::KwArgs kw;
            for (const auto& [key, a] : kwargs) {
                tracer.argOf(a);
                kw.emplace_back(key, tracer.exampleOf(a));
            }
            VarRef result = tracer.constant(tracer.vm().call(callee, {vm::makeList(std::move(values))}, std::move(kw)));
            result->fresh = result->value.is(vm::Kind::List);  // sorted()'s new list: rebuilt by every call
            return result;
        }
        if (name == "any" || name == "all") {
            // Truth of each item in order, stopping where Python stops (a traced item's truth breaks as `if` does).
            for (const VarRef& item : items)
                if (tracer.truthOf(frame, item) == (name == "any")) return tracer.constant(vm::Value(name == "any"));
            return tracer.constant(vm::Value(name == "all"));
        }
    }
    bool userKey = keyFunction && ((*keyFunction)->value.is(vm::Kind::Function) || (*keyFunction)->value.is(vm::Kind::BoundMethod));
    // Not hash: torch 2.11's BuiltinVariable has no rule for it, so hash() of any constant breaks (gb0059, below).
    static const std::set<std::string> pure = {"len", "isinstance", "issubclass", "range", "min", "max", "abs", "sum", "int", "float",
                                               "bool", "str", "repr", "round", "hasattr", "type", "callable", "sorted", "any", "all",
                                               "slice", "divmod", "pow", "id", "chr", "ord", "dict", "set", "list", "tuple",
                                               // collections.namedtuple of constants makes its class at trace time, as Dynamo does
                                               "namedtuple", "frozenset"};
    if (pure.contains(name) && allConstant() && !userKey) {
        for (const VarRef& a : args) tracer.requireNoPendingItems(a->value, name);
        vm::ValueList values;
        for (const VarRef& a : args) {
            tracer.argOf(a);
            values.push_back(tracer.exampleOf(a));
        }
        vm::KwArgs kw;
        for (const auto& [key, a] : kwargs) kw.emplace_back(key, tracer.exampleOf(a));
        VarRef result = tracer.constant(tracer.vm().call(callee, std::move(values), std::move(kw)));
        // A new set or dict belongs to this call: rebuilt as a new object by every call (tracer_run.cpp).
        result->fresh = result->value.is(vm::Kind::Set) || result->value.is(vm::Kind::Dict) || result->value.is(vm::Kind::List);
        return result;
    }
    tracer.unsupportedBuiltin(name, args, !kwargs.empty());
}

void Tracer::unsupportedBuiltin(const std::string& name, const std::vector<VarRef>& args, bool hasKwargs) {
    std::string types = "[";
    std::string classes = "[";
    for (size_t i = 0; i < args.size(); ++i) {
        types += (i ? ", '" : "'") + pythonTypeName(*this, *args[i]) + "'";
        classes += (i ? ", <class '" : "<class '") + std::string(variableClass(*args[i])) + "'>";
    }
    types += "]";
    classes += "]";
    unsupported("Failed to trace builtin operator",
                fmt::format("Dynamo does not know how to trace builtin operator `{}` with argument types {} (has_kwargs {})", name, types,
                            hasKwargs ? "True" : "False"),
                {fmt::format("Avoid calling builtin `{}` with argument types {}. Consider using an equivalent alternative "
                             "function/method to `{}`.",
                             name, types, name),
                 "If you are attempting to call a logging function (e.g. `print`), you can try adding it to "
                 "`torch._dynamo.config.reorderable_logging_functions`.",
                 "Please report an issue to PyTorch."},
                fmt::format("builtin {} {} {}", name, classes, hasKwargs ? "True" : "False"), 59);
}

}  // namespace eng::capture
