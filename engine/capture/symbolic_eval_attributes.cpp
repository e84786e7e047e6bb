// Attribute reads during symbolic evaluation: tensor attributes (shape, dtype, device, T, ...) become guarded
// constants or graph nodes, module and object attributes keep their sources so their guards name them.
#include <fmt/core.h>

#include <algorithm>

#include "capture/symbolic_eval.h"
#include "ops/operators.h"

namespace eng::capture {

namespace {

/// A method of a container the trace holds, run by Tracer::callContainerMethod.
VarRef containerMethod(const VarRef& object, const std::string& name) {
    auto method = std::make_shared<Variable>();
    method->kind = Variable::Kind::ContainerMethod;
    method->self = object;
    method->name = name;
    return method;
}

}  // namespace

void Tracer::guardTupleClass(const VarRef& v) {
    if (!v->source || !v->value.is(vm::Kind::Tuple) || !v->value.as<vm::TupleObject>().cls) return;
    const auto& cls = v->value.as<vm::TupleObject>().cls;
    for (const GuardSpec& existing : guards_)
        if (existing.kind == GuardKind::TypeMatch && existing.source->str() == v->source->str()) return;
    GuardSpec g;
    g.kind = GuardKind::TypeMatch;
    g.source = v->source;
    g.valueKind = vm::Kind::Tuple;
    g.expected = vm::Value(cls);
    g.typeName = cls->name;
    guards_.push_back(std::move(g));
}

VarRef Tracer::getAttr(TraceFrame& frame, const VarRef& object, const std::string& name) {
    // Dynamo's EnumVariable: the attributes of a member (name, value, _value_) are constants of the member the
    // guard pins; its methods are inlined as other objects' are.
    if (object->kind == Variable::Kind::Python && isEnumMember(object->value)) {
        guardValue(object);
        std::optional<vm::Value> attribute = vm_.findAttr(object->value, name);
        if (attribute && !attribute->is(vm::Kind::BoundMethod)) return constant(*attribute);
    }
    if (object->kind == Variable::Kind::SymScalar && object->source && !object->node && vm_.findAttr(object->value, name)) {
        // A method of an int/float argument that became symbolic (`m.is_integer()`): the value is specialized again,
        // as a guard on the method's outcome would pin it for every call anyway. An int gets its equality guard
        // back; a float stays a graph input whose method is a call in the graph (Dynamo's SymNodeVariable), and the
        // ShapeEnv specializes it (`___as_tensor(m).item() == 1.5`).
        if (object->value.is(vm::Kind::Float)) {
            Arg input = argOf(object);
            Node* call = recordCall(NodeOp::CallMethod, name, {input}, {});
            call->example = vm_.call(vm_.getAttr(object->value, name), {});
            object->node = nullptr;
            GuardSpec g;
            g.kind = GuardKind::ScalarCompare;
            g.source = object->source;
            g.compareOp = static_cast<uint32_t>(ops::CompareOperator::Equal);
            g.expected = object->value;
            guards_.push_back(std::move(g));
            object->kind = Variable::Kind::Python;
        } else {
            object->kind = Variable::Kind::Python;
            object->guarded = false;
            guardValue(object);
        }
    }
    if (object->kind == Variable::Kind::Tensor) {
        const tensor::Tensor& t = object->value.tensor();
        if (name == "shape") {
            auto shape = std::make_shared<Variable>();
            shape->kind = Variable::Kind::Tuple;
            shape->value = vm_.getAttr(object->value, "shape");
            shape->fresh = true;
            argOf(object);  // the input's symbols exist once it is a graph input
            // A tensor computed in a graph with symbolic sizes may have sizes that are expressions of them (a slice
            // is s0 - 1, a cat 2*s0): a dimension the op passes through exactly is its symbol or static size
            // (shape_facts.cpp); any other is read in the graph (`v.size(d)`), so it is this call's value.
            const Node* node = object->node;
            bool computed = !object->source && node && node->op != NodeOp::GetAttr && node->op != NodeOp::Placeholder && !graph_->symbols.empty();
            for (int64_t d = 0; d < t.dim(); ++d) {
                VarRef size;
                if (object->source) {
                    auto it = sourceCache_.find(object->source->str() + ".size()[" + std::to_string(d) + "]");
                    if (it != sourceCache_.end()) size = it->second;
                }
                const auto index = static_cast<size_t>(d);
                bool exact = computed && index < node->dimsExact.size() && node->dimsExact[index];
                if (exact && !node->dimSymbols[index].empty())
                    if (auto symbol = symbolVars_.find(node->dimSymbols[index]); symbol != symbolVars_.end()) size = symbol->second;
                if (!size && computed && (!exact || !node->dimSymbols[index].empty()))
                    size = callTensorOp(NodeOp::CallMethod, "size", {object, constant(vm::Value(d))}, {}, vm::Value(), CallKind::Callable);
                shape->items.push_back(size ? size : constant(vm::Value(t.size(d))));
            }
            return shape;
        }
        if (name == "dtype" || name == "device" || name == "ndim" || name == "is_cuda" || name == "requires_grad" || name == "is_leaf")
            return constant(vm_.getAttr(object->value, name));
        if (name == "T" || name == "mT")
            return callTensorOp(NodeOp::CallMethod, name == "T" ? "t" : "mT", {object}, {}, vm::Value(), CallKind::Callable);
        // The parts of a complex tensor are views Dynamo records in the graph (imag of a real tensor raises here).
        if (name == "real" || name == "imag") return callTensorOp(NodeOp::CallMethod, name, {object}, {}, vm::Value(), CallKind::Callable);
        if (name == "data" || name == "grad")
            unsupported("Unsupported Tensor attribute", fmt::format("Dynamo does not trace `Tensor.{}`.", name), {},
                        fmt::format("var_getattr TensorVariable() {}", name));
        // A name the tensor does not have: the VM raises its AttributeError with the user's traceback.
        std::optional<vm::Value> attribute = vm_.findAttr(object->value, name);
        if (!attribute || attribute->is(vm::Kind::Tensor))
            unsupported("Unsupported Tensor attribute",
                        attribute ? fmt::format("Dynamo does not trace `Tensor.{}`.", name) : fmt::format("`Tensor` has no attribute `{}`.", name),
                        {}, fmt::format("var_getattr TensorVariable() {}", name));
        // Other properties (is_quantized, is_sparse, ...) are the same for every tensor of this guarded kind.
        if (!attribute->is(vm::Kind::BoundMethod) && !attribute->is(vm::Kind::Native)) return constant(*attribute);
        auto method = std::make_shared<Variable>();
        method->kind = Variable::Kind::TensorMethod;
        method->self = object;
        method->name = name;
        return method;
    }
    if ((object->kind == Variable::Kind::Tuple || object->kind == Variable::Kind::List) && object->value.is(vm::Kind::Tuple)) {
        const auto& fields = object->value.as<vm::TupleObject>().fieldNames;
        for (size_t i = 0; i < fields.size(); ++i)
            if (fields[i] == name) return getItem(object, constant(vm::Value(static_cast<int64_t>(i))));
        // A method of a namedtuple class the trace called (its class is a guarded constant): inlined on the tuple;
        // _replace makes a new tuple of the same class over the traced items.
        const auto& cls = object->value.as<vm::TupleObject>().cls;
        if (cls && name == "_replace" && !fields.empty() && !object->node && object->items.size() == fields.size())
            return containerMethod(object, name);
        if (cls && !object->node && cls->lookup(name)) {
            // Its methods, staticmethods and classmethods (typing.NamedTuple's class body), the class pinned when
            // the tuple comes from a source.
            const vm::Value attribute = vm_.getAttr(object->value, name);
            const bool method = attribute.is(vm::Kind::BoundMethod) && attribute.as<vm::BoundMethodObject>().function.is(vm::Kind::Function);
            if (method || attribute.is(vm::Kind::Function)) {
                guardTupleClass(object);
                if (!method) return constant(attribute);  // a staticmethod's function
                const auto& bound = attribute.as<vm::BoundMethodObject>();
                if (bound.self.is(vm::Kind::Class)) return boundMethod(bound.function, constant(bound.self), name);  // a classmethod
                return boundMethod(bound.function, object, name);
            }
        }
    }
    // A method a dict subclass defines in Python (Counter.update, most_common) on a dict the trace made: inlined on
    // it, as Dynamo's UserDefinedDictVariable inlines them.
    if (object->kind == Variable::Kind::Dict && object->value.is(vm::Kind::Dict))
        if (const auto& cls = object->value.as<vm::DictObject>().cls)
            if (std::optional<vm::Value> method = cls->lookup(name); method && method->is(vm::Kind::Function)) return boundMethod(*method, object, name);
    // Lists the trace made (no value yet) and lists from outside; not the list result of one op.
    bool listMethod = (object->kind == Variable::Kind::List && !object->node && (name == "append" || name == "extend" || name == "clear" || isTracedListMethod(name))) ||
                      (object->kind == Variable::Kind::Set && name == "add" && object->name != "frozenset") ||
                      (object->kind == Variable::Kind::Tuple && !object->node && (name == "index" || name == "count"));
    bool dictUpdate = name == "update" && (object->kind == Variable::Kind::Dict ||
                                           (object->kind == Variable::Kind::Python && object->value.is(vm::Kind::Dict) && object->source));
    // Methods of a dict the trace made (its items may be traced values, or all constants): they change only the
    // trace's own dict, which every call rebuilds.
    bool freshDict = object->fresh && !object->source && !object->node &&
                     (object->kind == Variable::Kind::Dict || (object->kind == Variable::Kind::Python && object->value.is(vm::Kind::Dict)));
    const bool viewMethod = name == "keys" || name == "values" || name == "items";
    // keys()/values()/items() of a plain dict from outside the frame: traced views over its guarded keys.
    const bool outsideView = viewMethod && object->kind == Variable::Kind::Python && object->source && object->value.is(vm::Kind::Dict) &&
                             !object->value.as<vm::DictObject>().cls;
    // get() of a plain dict from outside the frame: a lookup that follows the trace's own stores into it.
    const bool outsideGet = name == "get" && object->kind == Variable::Kind::Python && object->source && object->value.is(vm::Kind::Dict) &&
                            !object->value.as<vm::DictObject>().cls;
    // OrderedDict's own reordering methods on one the trace made.
    const bool orderedMethod = (name == "move_to_end" || name == "popitem") && freshDict && object->kind == Variable::Kind::Dict &&
                               object->value.is(vm::Kind::Dict) && object->value.as<vm::DictObject>().cls &&
                               object->value.as<vm::DictObject>().cls->name == "OrderedDict";
    bool dictMethod = orderedMethod || outsideView || outsideGet || (freshDict && (name == "get" || name == "pop" || name == "setdefault" || name == "clear" || name == "popitem" || name == "copy" ||
                                                    (object->kind == Variable::Kind::Dict && viewMethod)));
    // A generator made in the trace: send / throw / close run its frame through the trace (callGeneratorMethod).
    const bool generatorMethod = object->kind == Variable::Kind::Iterator && object->generator &&
                                 (name == "send" || name == "throw" || name == "close" || name == "__next__");
    if (listMethod || dictUpdate || dictMethod || generatorMethod) return containerMethod(object, name);
    if (object->kind == Variable::Kind::Object || object->kind == Variable::Kind::Super) return objectAttr(frame, object, name);
    if (object->kind != Variable::Kind::Python)
        unsupported("Unsupported attribute access", fmt::format("Dynamo cannot read attribute `{}` of this value.", name), {},
                    fmt::format("var_getattr {}", name));
    // A store earlier in the trace is what the code reads back (it reaches the real object after the graph).
    if (std::optional<VarRef> stored = pendingAttr(object->value, name)) {
        if (*stored) return *stored;
        // Deleted earlier in the trace (the deletion reaches the real object after the graph).
        vm::raise("AttributeError", fmt::format("'{}' object has no attribute '{}'", vm_.classOf(object->value)->name, name));
    }
    requireNoPendingItems(object->value, name);
    guardValue(object);
    vm::Value value = vm_.getAttr(object->value, name);
    if (value.is(vm::Kind::BoundMethod) && value.as<vm::BoundMethodObject>().function.is(vm::Kind::Function)) {
        // A classmethod read from an instance: bound to the object's class, which the object's guard fixes.
        const vm::Value& receiver = value.as<vm::BoundMethodObject>().self;
        if (receiver.is(vm::Kind::Class) && receiver.identical(vm::Value(vm_.classOf(object->value))))
            return boundMethod(value.as<vm::BoundMethodObject>().function, constant(receiver), name);
        // A method bound to another object (types.MethodType(f, other) stored as an attribute) is not this object's.
        if (!value.as<vm::BoundMethodObject>().self.identical(object->value))
            unsupported("Unsupported attribute access", fmt::format("Dynamo does not trace `{}`: a method bound to another object.", name), {},
                        fmt::format("var_getattr {}", name));
        return boundMethod(value.as<vm::BoundMethodObject>().function, object, name);
    }
    if (std::optional<VarRef> method = moduleMethod(*this, object, name, value)) return *method;
    if (object->value.is(vm::Kind::Module)) {
        VarRef v = constant(value);
        v->name = object->value.as<vm::ModuleObject>().name;  // torch functions print as module.name
        // Dynamo wraps what it reads from a module with its source and pins functions, classes and submodules
        // by identity (ID_MATCH on G['torch'].sin, G['torch'].nn): rebinding one must recompile.
        const bool identity = value.is(vm::Kind::Function) || value.is(vm::Kind::Native) || value.is(vm::Kind::Class) ||
                              value.is(vm::Kind::Module);
        if (object->source && identity) {
            v->source = Source::child(object->source, Source::Kind::Attr, name);
            guardValue(v);
        }
        return v;
    }
    if (!object->source) {
        VarRef v = constant(value);
        if (value.is(vm::Kind::Native)) v->self = object;  // a method of a constant: foldable when it reads only (calls.cpp)
        return v;
    }
    Source::Kind kind = Source::Kind::Attr;
    if (object->value.is(vm::Kind::Instance)) {
        const auto& instance = object->value.as<vm::InstanceObject>();
        auto contains = [&](const std::vector<std::string>& order) { return std::find(order.begin(), order.end(), name) != order.end(); };
        if (contains(instance.parameterOrder)) kind = Source::Kind::Parameter;
        else if (contains(instance.moduleOrder)) kind = Source::Kind::ModuleChild;
        else if (contains(instance.bufferOrder)) kind = Source::Kind::Buffer;
    }
    VarRef v = wrapSource(value, Source::child(object->source, kind, name));
    // An int attribute of an nn.Module stays static (Dynamo's is_int_specialization_case): a new value recompiles.
    if (v->kind == Variable::Kind::SymScalar && value.is(vm::Kind::Int) && object->value.is(vm::Kind::Instance) &&
        vm_.isInstance(object->value, *vm_.builtinClass("Module")))
        specializeScalar(v);
    // A method of a set or str guarded by its contents reads only what the guard pins: foldable (calls.cpp).
    if (value.is(vm::Kind::Native) && (object->value.is(vm::Kind::Set) || object->value.is(vm::Kind::Str) || object->value.isNumber()))
        v->self = object;
    // Parameters are realized at once (Dynamo wraps them eagerly), which fixes the placeholder order.
    if (kind == Source::Kind::Parameter && v->kind == Variable::Kind::Tensor) argOf(v);
    return v;
}

std::optional<VarRef> callTensorDescriptor(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                                           const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    if (callable->kind != Variable::Kind::Python || !callable->value.is(vm::Kind::Native) || args.empty() ||
        args[0]->kind != Variable::Kind::Tensor)
        return std::nullopt;
    const auto& native = callable->value.as<vm::NativeObject>();
    auto owner = native.attributes.find("__objclass__");
    if (owner == native.attributes.end() || !owner->second.identical(vm::Value(tracer.vm().builtinClass("Tensor")))) return std::nullopt;
    VarRef method = tracer.getAttr(frame, args[0], native.name);
    return tracer.callFunction(frame, method, std::vector<VarRef>(args.begin() + 1, args.end()), kwargs);
}

}  // namespace eng::capture
