// Symbolic operators, attributes and subscripts: Python values fold at trace time (after guarding them),
// tensors and symbolic sizes become operator.* / getitem nodes, module attributes keep their sources.
#include <fmt/core.h>

#include <algorithm>

#include "fx/graph_runner.h"
#include "capture/shape_logs.h"
#include "capture/symbolic_eval.h"
#include "ops/operators.h"

namespace eng::capture {

using frontend::Opcode;

namespace {

/// The `operator` module function of a BINARY_OP / COMPARE_OP operand: "add", "iadd", "lt".
std::string binaryName(uint32_t op) {
    const auto operand = ops::decodeBinaryOpArg(op);
    return operand ? ops::operatorFunction(operand->op, operand->inplace) : "?";
}

std::string compareName(uint32_t op) {
    return op < ops::kCompareOpArgCount ? std::string(ops::info(static_cast<ops::CompareOperator>(op)).function) : "?";
}

bool isTensorLike(const VarRef& v) { return v->kind == Variable::Kind::Tensor || v->kind == Variable::Kind::SymScalar; }

/// A boolean (or uint8) tensor index, alone or in a tuple: x[mask] selects a data-dependent number of rows.
bool boolMaskIndex(const VarRef& key) {
    auto isMask = [](const VarRef& k) {
        return k->kind == Variable::Kind::Tensor && (k->value.tensor().dtype() == tensor::DType::Bool || k->value.tensor().dtype() == tensor::DType::UInt8);
    };
    return key->kind == Variable::Kind::Tuple ? std::any_of(key->items.begin(), key->items.end(), isMask) : isMask(key);
}

}  // namespace

VarRef Tracer::binaryOp(uint32_t op, const VarRef& a, const VarRef& b) {
    if (isUserInstance(a) || isUserInstance(b)) {
        // a + b on user objects: a.__add__(b), then b.__radd__(a) (an in-place operator tries a.__iadd__ first).
        if (const auto operand = ops::decodeBinaryOpArg(op)) {
            std::vector<std::string> tries;
            if (operand->inplace) tries.push_back(ops::inplaceDunder(operand->op));
            tries.push_back(ops::dunder(operand->op));
            // A NotImplemented result hands over to the next method, as in Python.
            auto answered = [this](const std::optional<VarRef>& r) {
                return r && !((*r)->kind == Variable::Kind::Python && (*r)->value.identical(vm_.notImplemented()));
            };
            for (const std::string& method : tries)
                if (std::optional<VarRef> r = callDunder(*current_, a, method, {b}); answered(r)) return *r;
            if (std::optional<VarRef> r = callDunder(*current_, b, ops::reflectedDunder(operand->op), {a}); answered(r)) return *r;
        }
        unsupported("Unsupported binary operator", fmt::format("Dynamo cannot trace `{}` on these operand types.", binaryName(op)), {},
                    fmt::format("operator.{}", binaryName(op)));
    }
    if (std::optional<VarRef> r = dictClassOperator(*this, *current_, op, a, b)) return *r;
    if (isTensorLike(a) || isTensorLike(b)) {
        // An IntEnum member is an int to a tensor operator (the subset's members are no int subclass).
        const VarRef x = intOfEnum(*this, a), y = intOfEnum(*this, b);
        return noteSymExpr(callTensorOp(NodeOp::CallFunction, "operator." + binaryName(op), {x, y}, {}, vm::Value(), CallKind::Binary),
                           symExprOfBinary(op, x, y));
    }
    if (std::optional<VarRef> v = sequenceOp(op, a, b)) return *v;
    if (std::optional<VarRef> v = dictMergeOp(op, a, b)) return *v;
    // Dynamo's BuiltinVariable of the operator finds no rule for these operands (`"%dx%d" % x.shape` with dynamic sizes).
    if (!isConstant(a) || !isConstant(b)) unsupportedBuiltin(binaryName(op), {a, b}, false);
    argOf(a);
    argOf(b);
    return constant(vm_.binaryOp(op, exampleOf(a), exampleOf(b)));
}

std::optional<VarRef> Tracer::sequenceOp(uint32_t op, const VarRef& a, const VarRef& b) {
    const auto operand = ops::decodeBinaryOpArg(op);
    std::optional<Variable::Kind> kindA = sequenceKind(a), kindB = sequenceKind(b);
    if (!operand || (!kindA && !kindB) || (isConstant(a) && isConstant(b))) return std::nullopt;
    if (operand->op == ops::BinaryOperator::Add && kindA && kindB) {
        if (*kindA != *kindB) return std::nullopt;  // list + tuple: the VM raises Python's TypeError
        std::vector<VarRef> items = unpack(a);
        std::vector<VarRef> tail = unpack(b);
        items.insert(items.end(), tail.begin(), tail.end());
        // `xs += ys` extends a list in place (every name for it sees the change); a tuple's makes a new one.
        if (operand->inplace && *kindA == Variable::Kind::List) {
            if (a->kind != Variable::Kind::List || !a->fresh || a->node) return std::nullopt;
            a->items = std::move(items);
            return a;
        }
        return container(*kindA, std::move(items));
    }
    // A sequence repeated a constant number of times (`[x] * 3`, `3 * (x,)`).
    if (operand->op == ops::BinaryOperator::Multiply && !operand->inplace && (kindA.has_value() != kindB.has_value())) {
        const VarRef& sequence = kindA ? a : b;
        const VarRef& count = kindA ? b : a;
        if (!isConstant(count) || !exampleOf(count).is(vm::Kind::Int)) return std::nullopt;
        argOf(count);
        std::vector<VarRef> once = unpack(sequence);
        std::vector<VarRef> items;
        for (int64_t i = 0; i < exampleOf(count).asInt(); ++i) items.insert(items.end(), once.begin(), once.end());
        return container(*sequenceKind(sequence), std::move(items));
    }
    return std::nullopt;
}

std::optional<Variable::Kind> Tracer::sequenceKind(const VarRef& v) const {
    if (v->kind == Variable::Kind::List || v->kind == Variable::Kind::Tuple) return v->kind;
    if (v->kind == Variable::Kind::Python && v->value.is(vm::Kind::List)) return Variable::Kind::List;
    if (v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Tuple)) return Variable::Kind::Tuple;
    return std::nullopt;
}

void Tracer::requireKnownIdentity(const VarRef& a, const VarRef& b) {
    // Objects are guarded by their type only: two read through different sources may or may not be one object
    // on the next call.
    // (An enum member is pinned by identity.)
    auto guardedByType = [](const Variable& v) {
        return v.kind == Variable::Kind::Python && v.source && v.value.is(vm::Kind::Instance) && !isEnumMember(v.value);
    };
    if (a.get() != b.get() && guardedByType(*a) && guardedByType(*b))
        unsupported("Unsupported identity comparison", "Dynamo cannot tell whether two objects read from different sources are the same object.",
                    {"Compare the objects outside the compiled region."}, "IS_OP UserDefinedObjectVariable() UserDefinedObjectVariable()");
}

bool Tracer::sameObject(const VarRef& a, const VarRef& b) {
    if (a->kind == Variable::Kind::Python && b->kind == Variable::Kind::Python) {
        guardValue(a);
        guardValue(b);
        requireKnownIdentity(a, b);
        return a->value.identical(b->value);
    }
    bool same = a.get() == b.get();
    // Two tensors from outside the graph may be one object: inputs read through their own sources are one variable
    // per object and guarded distinct (NO_TENSOR_ALIASING); a tensor captured as a constant or a parameter, the
    // trace cannot tell.
    auto fromOutside = [](const Variable& v) {
        return v.kind == Variable::Kind::Tensor && (!v.node || v.node->op == NodeOp::Placeholder || v.node->op == NodeOp::GetAttr);
    };
    if (!same && fromOutside(*a) && fromOutside(*b) && !distinctInputs(a, b))
        unsupported("Unsupported identity comparison", "Dynamo cannot tell whether two tensors read from different sources are the same object.",
                    {"Compare the tensors outside the compiled region."}, "IS_OP TensorVariable() TensorVariable()");
    return same;
}

VarRef Tracer::compareObjects(uint32_t op, const VarRef& a, const VarRef& b) {
    // a < b on user objects: a.__lt__(b), then the reflection b.__gt__(a); == and != fall back to identity.
    const auto compare = static_cast<ops::CompareOperator>(op % ops::kCompareOpArgCount);
    const ops::CompareOperatorInfo& info = ops::info(compare);
    // A dunder that returns NotImplemented hands over to the reflected one, then to identity, as in Python.
    auto answered = [this](const std::optional<VarRef>& r) {
        return r && !((*r)->kind == Variable::Kind::Python && (*r)->value.identical(vm_.notImplemented()));
    };
    if (std::optional<VarRef> r = callDunder(*current_, a, "__" + std::string(info.function) + "__", {b}); answered(r)) return *r;
    if (std::optional<VarRef> r = callDunder(*current_, b, "__" + std::string(ops::info(info.reflected).function) + "__", {a}); answered(r))
        return *r;
    if (compare == ops::CompareOperator::Equal || compare == ops::CompareOperator::NotEqual) {
        if (compare == ops::CompareOperator::NotEqual)
            for (const auto& [self, other] : {std::pair{a, b}, std::pair{b, a}})
                if (std::optional<VarRef> r = callDunder(*current_, self, "__eq__", {other}); answered(r))
                    return constant(vm::Value(!truthOf(*current_, *r)));
        for (const VarRef& v : {a, b})
            if (v->kind == Variable::Kind::Python) guardValue(v);
        requireKnownIdentity(a, b);
        bool same = a.get() == b.get() || (a->kind == Variable::Kind::Python && b->kind == Variable::Kind::Python && a->value.identical(b->value));
        return constant(vm::Value(compare == ops::CompareOperator::Equal ? same : !same));
    }
    vm::typeError(fmt::format("'{}' not supported between instances of '{}' and '{}'", info.symbol, vm_.classOf(exampleOf(a))->name,
                              vm_.classOf(exampleOf(b))->name));
}

VarRef Tracer::compareOp(uint32_t op, const VarRef& a, const VarRef& b) {
    if (isUserInstance(a) || isUserInstance(b)) return compareObjects(op, a, b);
    if (a->kind == Variable::Kind::Tensor || b->kind == Variable::Kind::Tensor)
        return callTensorOp(NodeOp::CallFunction, "operator." + compareName(op), {a, b}, {}, vm::Value(), CallKind::Compare);
    // A symbolic scalar from the frame compared with a constant: the outcome is guarded, not the value.
    if (a->kind == Variable::Kind::SymScalar && !a->node && a->source && b->kind == Variable::Kind::Python && b->value.isNumber()) {
        guardValue(a);
        vm::Value result = vm_.compare(op, a->value, b->value);
        GuardSpec g;
        g.kind = GuardKind::ScalarCompare;
        g.source = a->source;
        g.origin = originHere();
        g.compareOp = op;
        g.expected = b->value;
        g.outcome = vm_.truthy(result);
        guards_.push_back(std::move(g));
        return constant(result);
    }
    for (const VarRef& v : {a, b})
        if (!v->unbacked.empty()) {
            // A captured .item() has no value to branch on: the ShapeEnv cannot guard on it (fullgraph=True).
            const VarRef& other = v == a ? b : a;
            static const char* symbols[] = {"<", "<=", "==", "!=", ">", ">="};
            std::string expression = v == a ? fmt::format("{} {} {}", v->unbacked, symbols[op % 6], vm_.repr(other->value))
                                            : fmt::format("{} {} {}", vm_.repr(other->value), symbols[op % 6], v->unbacked);
            GuardOrigin here = originHere();
            vm::raise("UserError",
                      fmt::format("Consider annotating your code using torch._check*(). Could not guard on data-dependent expression {} "
                                  "(unhinted: {}).  (Size-like symbols: none)\n\nconsider using data-dependent friendly APIs such as "
                                  "guard_or_false, guard_or_true and statically_known_true.\nCaused by: {}  # {}:{} in {} "
                                  "(_dynamo/variables/tensor.py:1951 in evaluate_expr)\nFor more information, run with TORCH_LOGS=\"dynamic\"\n\n"
                                  "User Stack (most recent call last):\n  (snipped, see stack below for prefix)\n  File \"{}\", line {}, in {}\n    {}\n",
                                  expression, expression, here.code, here.file, here.line, here.function, here.file, here.line,
                                  here.function, here.code));
        }
    // A dynamic size compared with a constant (`assert n <= block_size`): the outcome becomes a shape guard on the
    // size, as Dynamo's ShapeEnv guards it, and the size stays symbolic.
    for (bool sizeFirst : {true, false}) {
        const VarRef& size = sizeFirst ? a : b;
        const VarRef& bound = sizeFirst ? b : a;
        auto binding = size->node ? symbolSizes_.find(size->node) : symbolSizes_.end();
        if (binding == symbolSizes_.end() || bound->kind != Variable::Kind::Python || !bound->value.isNumber()) continue;
        static const uint32_t reflected[] = {4, 5, 2, 3, 0, 1};
        vm::Value result = vm_.compare(op, exampleOf(a), exampleOf(b));
        GuardSpec g;
        g.kind = GuardKind::ScalarCompare;
        g.source = binding->second.source;
        g.dimension = binding->second.dimension;
        g.origin = originHere();
        g.compareOp = sizeFirst ? op : reflected[op % 6];
        g.expected = bound->value;
        g.outcome = vm_.truthy(result);
        logShapeGuard(size->node->target, g);
        guards_.push_back(std::move(g));
        return constant(result);
    }
    if (std::optional<VarRef> r = compareSymbolic(op, a, b)) return *r;
    if (isTensorLike(a) || isTensorLike(b)) {
        // Other comparisons of symbolic scalars specialize them to this call's values.
        for (const VarRef& v : {a, b})
            if (v->kind == Variable::Kind::SymScalar && v->source && !v->node) {
                v->kind = Variable::Kind::Python;
                guardValue(v);
            }
        if (isTensorLike(a) || isTensorLike(b))
            unsupported("Data-dependent comparison", "Dynamo cannot compare a symbolic value computed in the graph at trace time.", {},
                        fmt::format("operator.{}", compareName(op)));
    }
    argOf(a);
    argOf(b);
    return constant(vm_.compare(op, exampleOf(a), exampleOf(b)));
}

VarRef Tracer::getItem(const VarRef& container, const VarRef& key) {
    if (inlinesDunder(*this, container, "__getitem__")) {
        if (std::optional<VarRef> r = callDunder(*current_, container, "__getitem__", {key})) return *r;
        vm::typeError(fmt::format("'{}' object is not subscriptable", vm_.classOf(container->value)->name));
    }
    if (container->kind == Variable::Kind::Tensor && boolMaskIndex(key))
        // x[mask] has as many rows as the mask has true values: Dynamo does not capture such ops (nonzero underneath).
        unsupported("Dynamic shape operator", "Operator `aten.nonzero.default`'s output shape depends on input Tensor data.",
                    {"Enable tracing of dynamic shape operators with `torch._dynamo.config.capture_dynamic_output_shape_ops = True`"},
                    "aten.nonzero.default", 36);
    if (container->kind == Variable::Kind::Tensor || ((container->kind == Variable::Kind::Tuple || container->kind == Variable::Kind::List) && container->node)) {
        VarRef result = callTensorOp(NodeOp::CallFunction, "operator.getitem", {container, key}, {}, vm::Value(), CallKind::GetItem);
        return result;
    }
    // A sequence indexed by a tensor made of constants alone (`xs[torch.as_tensor(2)]`): its value is the same on
    // every call, so it indexes like the int it holds, as in Dynamo.
    if ((container->kind == Variable::Kind::List || container->kind == Variable::Kind::Tuple) && tensorOfConstants(key))
        return getItem(container, constant(vm_.call(vm_.getAttr(key->value, "item"), {})));
    const bool dictContainer = container->kind == Variable::Kind::Dict || (container->kind == Variable::Kind::Python && container->value.is(vm::Kind::Dict));
    if (key->kind != Variable::Kind::Python && key->kind != Variable::Kind::Slice &&
        !(dictContainer && (key->kind == Variable::Kind::Tensor || isConstant(key))))  // a tuple of constants keys a dict
        unsupported("Unsupported subscript", "Dynamo cannot index a Python container with a traced value.", {}, "operator.getitem");
    vm::Value index = dictContainer ? dictKey(key) : exampleOf(key);
    argOf(key);
    switch (container->kind) {
        case Variable::Kind::List:
        case Variable::Kind::Tuple: {
            if (container->source) guardValue(container);
            int64_t n = static_cast<int64_t>(container->items.size());
            if (index.is(vm::Kind::Slice)) {
                // Slice the items with the VM's own rules, through a list of their positions.
                vm::ValueList positions;
                for (int64_t i = 0; i < n; ++i) positions.push_back(vm::Value(i));
                vm::Value picked = vm_.getItem(vm::makeList(positions), index);
                auto v = std::make_shared<Variable>();
                v->kind = container->kind;
                v->fresh = true;
                if (container->kind == Variable::Kind::Tuple) v->value = vm::makeTuple({});
                for (const vm::Value& p : picked.as<vm::ListObject>().items) v->items.push_back(container->items[static_cast<size_t>(p.asInt())]);
                return v;
            }
            int64_t i = index.asInt();
            if (i < 0) i += n;
            if (i < 0 || i >= n) vm::raise("IndexError", "tuple index out of range");
            return container->items[static_cast<size_t>(i)];
        }
        case Variable::Kind::Dict: {
            for (size_t i = 0; i < container->keys.size(); ++i)
                if (vm::valuesEqual(container->keys[i], index)) return container->items[i];
            // A defaultdict's missing key: its factory is called through the trace and the result stored.
            const vm::Value factory = container->value.is(vm::Kind::Dict) ? container->value.as<vm::DictObject>().defaultFactory : vm::Value();
            if (!container->node && !factory.isNone() && !factory.isNull()) {
                VarRef made = callFunction(*current_, constant(factory), {}, {});
                storeItem(container, key, made);
                return made;
            }
            const auto& cls = container->value.is(vm::Kind::Dict) ? container->value.as<vm::DictObject>().cls : nullptr;
            if (!container->node && cls && cls->module == "collections" && cls->name == "Counter") return constant(vm::Value(int64_t{0}));  // __missing__
            vm_.raiseKeyError(index);
        }
        case Variable::Kind::Python: {
            if (std::optional<VarRef> stored = pendingItem(container->value, index)) {
                if (!*stored) vm_.raiseKeyError(index);
                return *stored;
            }
            guardValue(container);
            // A missing key of an outside defaultdict: the trace calls its factory and stores the result (replayed on
            // the real dict), guarded on the key being absent, as Dynamo's `not ___dict_contains(...)`.
            if (container->value.is(vm::Kind::Dict) && container->source && !container->value.as<vm::DictObject>().find(index)) {
                const auto& dict = container->value.as<vm::DictObject>();
                if (dict.cls && dict.cls->name == "defaultdict" && !dict.defaultFactory.isNone() && !dict.defaultFactory.isNull()) {
                    guardDictContains(container, index, false);
                    VarRef made = callFunction(*current_, constant(dict.defaultFactory), {}, {});
                    storeItem(container, key, made);
                    return made;
                }
            }
            // A missing key of a Counter or another dict subclass runs __missing__, which may store into the real dict.
            if (container->value.is(vm::Kind::Dict) && container->value.as<vm::DictObject>().cls &&
                !container->value.as<vm::DictObject>().find(index))
                unsupported("Unsupported subscript", "Dynamo does not trace `__missing__` of a dict subclass from outside the compiled frame.",
                            {}, "operator.getitem");
            vm::Value item = vm_.getItem(container->value, index);
            // A dict item keeps its key in its source (L['d']['w']), so a tensor in it is a graph input.
            if (container->source && container->value.is(vm::Kind::Dict)) return wrapSource(item, Source::dictItem(container->source, index));
            // nn.ModuleList / nn.Sequential children keep a source, so their parameters become graph inputs.
            if (container->source && container->value.is(vm::Kind::Instance) && index.is(vm::Kind::Int)) {
                const auto& order = container->value.as<vm::InstanceObject>().moduleOrder;
                int64_t i = index.asInt() < 0 ? index.asInt() + static_cast<int64_t>(order.size()) : index.asInt();
                if (i >= 0 && i < static_cast<int64_t>(order.size()))
                    return wrapSource(item, Source::child(container->source, Source::Kind::ModuleChild, order[static_cast<size_t>(i)]));
            }
            if (container->source && !item.is(vm::Kind::Instance)) {  // read again by its index; no other key has a source
                if (!index.isNumber())
                    unsupported("Unsupported subscript", "Dynamo cannot read this item of an object from outside the compiled frame.", {},
                                "operator.getitem");
                return wrapSource(item, Source::item(container->source, index.asInt()));
            }
            return constant(item);
        }
        default:
            unsupported("Unsupported subscript", "Dynamo cannot index this value.", {}, "operator.getitem");
    }
}

bool Tracer::tensorOfConstants(const VarRef& v) const {
    if (v->kind != Variable::Kind::Tensor || !v->node || (v->node->target != "torch.as_tensor" && v->node->target != "torch.tensor")) return false;
    const tensor::Tensor& t = v->value.tensor();
    if (t.dim() != 0 || !tensor::isIntegral(t.dtype(), false)) return false;
    auto constantArg = [](const auto& self, const Arg& a) -> bool {
        if (a.kind == Arg::Kind::NodeRef) return false;
        return std::all_of(a.items.begin(), a.items.end(), [&](const Arg& item) { return self(self, item); });
    };
    return std::all_of(v->node->args.begin(), v->node->args.end(), [&](const Arg& a) { return constantArg(constantArg, a); }) &&
           std::all_of(v->node->kwargs.begin(), v->node->kwargs.end(), [&](const KwArg& a) { return constantArg(constantArg, a.second); });
}

bool Tracer::truthOf(TraceFrame& frame, const VarRef& v) {
    if (isUserInstance(v)) {
        // __bool__, then __len__, else every object is true.
        std::optional<VarRef> r = callDunder(frame, v, "__bool__", {});
        if (!r) r = callDunder(frame, v, "__len__", {});
        if (!r) {
            if (v->kind == Variable::Kind::Python) guardValue(v);
            return true;
        }
        return truthOf(frame, *r);
    }
    switch (v->kind) {
        case Variable::Kind::Python: guardValue(v); return vm_.truthy(v->value);
        case Variable::Kind::Set: return !v->items.empty();
        case Variable::Kind::List:
        case Variable::Kind::Tuple:
        case Variable::Kind::Dict:
            if (v->source) guardValue(v);
            return !v->items.empty() || (v->node && vm_.truthy(v->value));
        case Variable::Kind::SymScalar:
            if (v->source && !v->node) {
                v->kind = Variable::Kind::Python;
                guardValue(v);
                return vm_.truthy(v->value);
            }
            if (std::optional<VarRef> r = compareSymbolic(3, v, constant(vm::Value(int64_t{0})))) return vm_.truthy((*r)->value);  // != 0
            [[fallthrough]];
        case Variable::Kind::Tensor:
            unsupported("Data-dependent branching",
                        "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.",
                        {"This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider finding a workaround.",
                         "Use `torch.cond` to express dynamic control flow."},
                        "attempted to jump with TensorVariable()", 170);
        default: return true;
    }
}

std::vector<VarRef> Tracer::unpack(const VarRef& v) {
    switch (v->kind) {
        case Variable::Kind::List:
        case Variable::Kind::Tuple:
            if (v->node) {
                std::vector<VarRef> out;
                int64_t n = vm_.length(v->value);
                for (int64_t i = 0; i < n; ++i) out.push_back(getItem(v, constant(vm::Value(i))));
                return out;
            }
            if (v->source) guardValue(v);
            return v->items;
        case Variable::Kind::Dict: {
            std::vector<VarRef> out;
            for (const vm::Value& key : v->keys) out.push_back(constant(key));
            return out;
        }
        case Variable::Kind::Iterator: {
            std::vector<VarRef> out;
            while (std::optional<VarRef> item = nextOf(v)) out.push_back(*item);
            return out;
        }
        case Variable::Kind::Set: return v->items;
        case Variable::Kind::Tensor: {
            std::vector<VarRef> out;
            int64_t n = v->value.tensor().size(0);
            for (int64_t i = 0; i < n; ++i) out.push_back(getItem(v, constant(vm::Value(i))));
            return out;
        }
        case Variable::Kind::Python: {
            requireNoPendingItems(v->value, "__iter__");
            guardDictKeys(v, true);
            std::vector<VarRef> out;
            const vm::Value& value = v->value;
            if (value.is(vm::Kind::Instance) && v->source && !value.as<vm::InstanceObject>().moduleOrder.empty()) {
                for (const std::string& name : value.as<vm::InstanceObject>().moduleOrder)
                    out.push_back(wrapSource(value.as<vm::InstanceObject>().attributes.at(name), Source::child(v->source, Source::Kind::ModuleChild, name)));
                return out;
            }
            // An instance of a user class iterates through its own __iter__, inlined (a Mapping's keys()).
            if (std::optional<VarRef> iterator = callDunder(*current_, v, "__iter__", {})) return unpack(*iterator);
            // An object from outside the frame (a range or dict view on a resumed stack, an iterator) is guarded by
            // its type only: its items could differ next call, and iterating an iterator would consume it.
            if (v->source && (value.is(vm::Kind::Iterator) || value.is(vm::Kind::Instance)))
                unsupported("Unsupported iteration",
                            fmt::format("Dynamo cannot guard the items of a `{}` from outside the compiled frame.", vm_.classOf(value)->name), {},
                            "iter " + vm_.classOf(value)->name);
            for (const vm::Value& item : vm_.toList(value)) out.push_back(constant(item));
            return out;
        }
        case Variable::Kind::Object:  // an instance the trace made (a polyfill's deque): its own __iter__, inlined
            if (std::optional<VarRef> it = callDunder(*current_, v, "__iter__", {}); it && it->get() != v.get()) return unpack(*it);
            [[fallthrough]];
        default: unsupported("Unsupported iteration", "Dynamo cannot iterate over this value.", {}, "iter");
    }
}

bool evaluateOperatorInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in) {
    auto& stack = frame.stack;
    switch (in.opcode) {
        case Opcode::LoadAttr: stack.back() = tracer.getAttr(frame, stack.back(), frame.code->names[in.arg]); return true;
        case Opcode::LoadMethod: {
            VarRef object = popVar(frame);
            stack.push_back(tracer.getAttr(frame, object, frame.code->names[in.arg]));
            stack.push_back(tracer.null());
            return true;
        }
        case Opcode::BinarySubscr: {
            VarRef key = popVar(frame);
            VarRef container = popVar(frame);
            stack.push_back(tracer.getItem(container, key));
            return true;
        }
        case Opcode::StoreSubscr: {
            VarRef key = popVar(frame);
            VarRef container = popVar(frame);
            tracer.storeItem(container, key, popVar(frame));
            return true;
        }
        case Opcode::DeleteSubscr: {
            VarRef key = popVar(frame);
            tracer.storeItem(popVar(frame), key, nullptr);
            return true;
        }
        case Opcode::DeleteAttr: tracer.deleteAttr(frame, popVar(frame), frame.code->names[in.arg]); return true;
        case Opcode::StoreAttr: {
            VarRef object = popVar(frame);
            tracer.storeAttr(object, frame.code->names[in.arg], popVar(frame));
            return true;
        }
        case Opcode::BuildSlice: {
            auto slice = std::make_shared<Variable>();
            slice->kind = Variable::Kind::Slice;
            VarRef step = in.arg == 3 ? popVar(frame) : tracer.constant(vm::Value());
            VarRef stop = popVar(frame);
            VarRef start = popVar(frame);
            slice->items = {start, stop, step};
            stack.push_back(slice);
            return true;
        }
        case Opcode::UnaryNegative:
        case Opcode::UnaryPositive:
        case Opcode::UnaryInvert: {
            VarRef v = popVar(frame);
            const ops::UnaryOperator op = in.opcode == Opcode::UnaryNegative   ? ops::UnaryOperator::Negative
                                          : in.opcode == Opcode::UnaryPositive ? ops::UnaryOperator::Positive
                                                                               : ops::UnaryOperator::Invert;
            stack.push_back(tracer.unaryOp(op, v));
            return true;
        }
        case Opcode::UnaryNot: {
            VarRef v = popVar(frame);
            stack.push_back(tracer.constant(vm::Value(!tracer.truthOf(frame, v))));
            return true;
        }
        case Opcode::BinaryOp: {
            VarRef b = popVar(frame);
            VarRef a = popVar(frame);
            stack.push_back(tracer.binaryOp(in.arg, a, b));
            return true;
        }
        case Opcode::CompareOp: {
            VarRef b = popVar(frame);
            VarRef a = popVar(frame);
            stack.push_back(tracer.compareOp(in.arg, a, b));
            return true;
        }
        case Opcode::IsOp: {
            VarRef b = popVar(frame);
            VarRef a = popVar(frame);
            bool same = tracer.sameObject(a, b);
            stack.push_back(tracer.constant(vm::Value(in.arg ? !same : same)));
            return true;
        }
        case Opcode::ContainsOp: {
            VarRef container = popVar(frame);
            VarRef item = popVar(frame);
            if (container->kind == Variable::Kind::Set) {
                bool found = tracer.setContains(container, item);
                stack.push_back(tracer.constant(vm::Value(in.arg ? !found : found)));
                return true;
            }
            // A constant key in a dict the trace holds (its keys are constants, its values may be traced).
            if (container->kind == Variable::Kind::Dict && !container->node && !container->source && tracer.isConstant(item)) {
                vm::Value key = tracer.dictKey(item);
                bool found = std::any_of(container->keys.begin(), container->keys.end(), [&](const vm::Value& k) { return vm::valuesEqual(k, key); });
                stack.push_back(tracer.constant(vm::Value(in.arg ? !found : found)));
                return true;
            }
            // A constant searched in a traced list or tuple: Python compares item by item, so constants before a
            // match decide it; reaching a traced item first would compare with it. User objects compare through their
            // traced __eq__ (Dynamo's iter_contains), in a list from outside too.
            const bool sequence = (container->kind == Variable::Kind::List || container->kind == Variable::Kind::Tuple) && !container->node;
            const bool userObjects = sequence && (tracer.isUserInstance(item) ||
                                                  std::any_of(container->items.begin(), container->items.end(),
                                                              [&](const VarRef& e) { return tracer.isUserInstance(e); }));
            if (sequence && (tracer.isConstant(item) || userObjects) && (!tracer.isConstant(container) || userObjects)) {
                if (userObjects && container->source) tracer.guardValue(container);
                if (tracer.isConstant(item)) tracer.argOf(item);
                vm::Value key = tracer.exampleOf(item);
                std::optional<bool> found;
                bool comparedAll = true;
                for (const VarRef& element : tracer.unpack(container)) {
                    if (std::optional<bool> equal = tracer.userEquals(element, item)) {
                        if (!*equal) continue;
                        found = true;
                        break;
                    }
                    if (!tracer.isConstant(element) || !tracer.isConstant(item)) {
                        comparedAll = false;
                        break;
                    }
                    tracer.argOf(element);
                    if (vm::valuesEqual(tracer.exampleOf(element), key)) {
                        found = true;
                        break;
                    }
                }
                if (!found && comparedAll && userObjects) found = false;
                if (found) {
                    stack.push_back(tracer.constant(vm::Value(in.arg ? !*found : *found)));
                    return true;
                }
            }
            // A symbolic int looked up among constants (`k in {2, 4}`) is specialized again, as Dynamo does: an
            // equality guard on its value, so a later call with another value recompiles.
            if (tracer.isConstant(container) && item->kind == Variable::Kind::SymScalar) tracer.specializeScalar(item);
            if (!tracer.isConstant(container) || !tracer.isConstant(item))
                tracer.unsupported("Unsupported `in`", "Dynamo cannot evaluate `in` on traced values.", {}, "CONTAINS_OP");
            tracer.argOf(item);
            // A key of a dict from outside the frame: Dynamo's DICT_CONTAINS on it, not a guard on the whole dict.
            const bool outsideDict = container->kind == Variable::Kind::Python && container->source && container->value.is(vm::Kind::Dict);
            if (!outsideDict) tracer.requireNoPendingItems(container->value, "__contains__");
            bool found = outsideDict ? tracer.outsideDictContains(container, tracer.exampleOf(item))
                                     : tracer.vm().contains(tracer.exampleOf(container), tracer.exampleOf(item));
            if (!outsideDict) tracer.argOf(container);
            stack.push_back(tracer.constant(vm::Value(in.arg ? !found : found)));
            return true;
        }
        default: return false;
    }
}

}  // namespace eng::capture
