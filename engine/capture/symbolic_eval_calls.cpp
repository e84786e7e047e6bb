// Symbolic calls: user functions and nn.Module.forward are inlined, torch functions and tensor methods become
// graph nodes, pure builtins fold at trace time, and everything with effects outside the graph (print,
// .item(), graph_break(), disabled functions) is a graph break with Dynamo's message.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "capture/substitute_in_graph.h"
#include "capture/symbolic_eval.h"
#include "ops/operators.h"
#include "tensor/registry.h"

namespace eng::capture {

using frontend::Opcode;

/// Breaks on itertools.takewhile / starmap, as Dynamo does (symbolic_eval_builtins.cpp).
void breakOnUntracedItertools(Tracer& tracer, const vm::Value& function, const std::vector<VarRef>& args);

namespace {

using KwVars = std::vector<std::pair<std::string, VarRef>>;
constexpr int kMaxInlineDepth = 48;

/// Traced arguments bound with the VM's own rules: each goes in as a string naming it, and comes back from
/// wherever the binding put it.
struct ArgumentTokens {
    std::vector<VarRef> vars;
    vm::Value token(const VarRef& v) {
        vars.push_back(v);
        return vm::makeStr("\x01" + std::to_string(vars.size() - 1));
    }
    std::optional<VarRef> find(const vm::Value& v) const {
        if (v.is(vm::Kind::Str) && !v.str().empty() && v.str()[0] == '\x01') return vars.at(std::stoul(v.str().substr(1)));
        return std::nullopt;
    }
};

/// The qualified name FX prints for a torch function, as Dynamo records it.
std::string torchTarget(const std::string& module, const std::string& name) {
    if (module == "torch.nn.functional") {
        if (name == "linear" || name == "gelu") return "torch._C._nn." + name;
        if (name == "relu" || name == "tanh" || name == "sigmoid") return "torch." + name;
    }
    // Defined in Python in torch/functional.py, which Dynamo records by that module.
    if (module == "torch" && name == "broadcast_tensors") return "torch.functional." + name;
    return module + "." + name;
}

bool isModuleInstance(Tracer& tracer, const vm::Value& v) {
    return v.is(vm::Kind::Instance) && tracer.vm().isInstance(v, *tracer.vm().builtinClass("Module"));
}

vm::Value functional(Tracer& tracer, const std::string& name) {
    return tracer.vm().getAttr(tracer.vm().modules().at("torch.nn.functional"), name);
}

/// A builtin leaf module's forward as the functional call Dynamo records when it inlines it (in place: as F.relu(x, inplace=True)).
VarRef callLeafModule(Tracer& tracer, TraceFrame& frame, const VarRef& module, const std::string& className,
                      const std::vector<VarRef>& args) {
    auto attr = [&](const char* name) { return tracer.getAttr(frame, module, name); };
    auto constant = [&](vm::Value v) { return tracer.constant(std::move(v)); };
    VarRef x = args.at(0);
    auto call = [&](const std::string& target, const std::string& function, std::vector<VarRef> callArgs, KwVars kwargs = {}) {
        return tracer.callTensorOp(NodeOp::CallFunction, target, callArgs, kwargs, functional(tracer, function), CallKind::Callable);
    };
    if (className == "Linear") return call("torch._C._nn.linear", "linear", {x, attr("weight"), attr("bias")});
    if (className == "GELU") return call("torch._C._nn.gelu", "gelu", {x}, {{"approximate", attr("approximate")}});
    if ((className == "ReLU" || className == "SiLU" || className == "Dropout") && tracer.vm().truthy(attr("inplace")->value)) {
        VarRef callable = constant(functional(tracer, className == "ReLU" ? "relu" : className == "SiLU" ? "silu" : "dropout"));
        callable->name = "torch.nn.functional";
        std::vector<VarRef> callArgs = className == "Dropout" ? std::vector<VarRef>{x, attr("p"), attr("training")} : std::vector<VarRef>{x};
        return tracer.callFunction(frame, callable, callArgs, {{"inplace", attr("inplace")}});
    }
    if (className == "ReLU") return call("torch.relu", "relu", {x});
    if (className == "SiLU") return call("torch.nn.functional.silu", "silu", {x}, {{"inplace", constant(vm::Value(false))}});
    if (className == "Tanh")
        return tracer.callTensorOp(NodeOp::CallFunction, "torch.tanh", {x}, {}, tracer.vm().getAttr(tracer.vm().modules().at("torch"), "tanh"), CallKind::Callable);
    if (className == "Sigmoid")
        return tracer.callTensorOp(NodeOp::CallFunction, "torch.sigmoid", {x}, {}, tracer.vm().getAttr(tracer.vm().modules().at("torch"), "sigmoid"), CallKind::Callable);
    if (className == "Identity") return x;
    if (className == "LayerNorm")
        return call("torch.nn.functional.layer_norm", "layer_norm", {x, attr("normalized_shape"), attr("weight"), attr("bias"), attr("eps")});
    if (className == "Embedding") return call("torch.nn.functional.embedding", "embedding", {x, attr("weight")});
    if (className == "Dropout") return call("torch.nn.functional.dropout", "dropout", {x, attr("p"), attr("training")});
    if (className == "Sequential") {
        for (const VarRef& child : tracer.unpack(module)) x = tracer.callFunction(frame, child, {x}, {});
        return x;
    }
    tracer.unsupported("Unsupported nn.Module", fmt::format("Dynamo does not know how to trace the forward of `{}`.", className), {},
                       "call_module " + className);
}

/// The module a native was loaded from, for a native that reached the trace without its attribute access
/// (a value on a resumed frame's stack): the module that holds this very object.
std::string moduleHolding(Tracer& tracer, const vm::Value& native) {
    for (const auto& [moduleName, module] : tracer.vm().modules()) {
        if (!module.is(vm::Kind::Module)) continue;
        for (const auto& [attribute, value] : module.as<vm::ModuleObject>().attributes)
            if (value.identical(native)) return moduleName;
    }
    return "";
}

/// Methods of builtin values that change nothing: str and tuple methods, and the reading methods of dicts, lists and sets.
bool readOnlyMethod(vm::Interpreter& vm, const vm::Value& receiver, const std::string& name) {
    if (receiver.is(vm::Kind::Str) || receiver.is(vm::Kind::Tuple) || receiver.isNumber()) return true;
    // A range is immutable: all its methods read (index, count, __getitem__, ...).
    if (receiver.is(vm::Kind::Instance) && receiver.as<vm::InstanceObject>().cls == vm.builtinClass("range")) return true;
    static const std::set<std::string> dictMethods = {"keys", "values", "items", "get", "copy", "__contains__", "__getitem__"};
    static const std::set<std::string> listMethods = {"index", "count", "copy", "__contains__", "__getitem__"};
    static const std::set<std::string> setMethods = {"union", "intersection", "difference", "symmetric_difference", "issubset",
                                                     "issuperset", "isdisjoint", "copy", "__contains__"};
    if (receiver.is(vm::Kind::Dict)) return dictMethods.contains(name);
    if (receiver.is(vm::Kind::List)) return listMethods.contains(name);
    if (receiver.is(vm::Kind::Set)) return setMethods.contains(name);
    return false;
}

/// A changing method of a set of constants the trace made itself: it runs on that set at trace time, which every call
/// rebuilds from its final contents (a set from outside the frame would need the change replayed).
bool ownSetMutator(const Variable& receiver, const std::string& name) {
    static const std::set<std::string> setMutators = {"add", "discard", "remove", "clear", "update", "pop", "difference_update",
                                                      "intersection_update", "symmetric_difference_update"};
    return receiver.kind == Variable::Kind::Python && receiver.fresh && !receiver.source && receiver.value.is(vm::Kind::Set) &&
           setMutators.contains(name);
}

VarRef callTensorMethod(Tracer& tracer, const VarRef& method, std::vector<VarRef> args, KwVars kwargs) {
    const std::string& name = method->name;
    const VarRef& self = method->self;
    if (name == "item" && tracer.options().captureScalarOutputs) {
        VarRef scalar = tracer.callTensorOp(NodeOp::CallMethod, "item", {self}, {}, vm::Value(), CallKind::Callable);
        scalar->unbacked = tracer.unbackedSymbol(scalar->value.is(vm::Kind::Float));
        return scalar;
    }
    if (name == "item" || name == "tolist") {
        if (name == "item")
            tracer.unsupported("Unsupported Tensor.item() call with capture_scalar_outputs=False",
                               "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.",
                               {"Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to "
                                "include these operations in the captured graph."},
                               "call_method TensorVariable() item () {}", 124);
        // Dynamo refuses float tensors' tolist() before anything else, with its own message (seen in torch 2.11).
        if (tensor::isFloating(self->value.tensor().dtype()))
            tracer.unsupported("Tensor.tolist() with non-integer tensor",
                               "Dynamo currently does not support tracing `tolist()` on non-integer tensors.",
                               {"Ensure the input tensor to `tolist()` is an integer type (e.g., int8, int16, int32, int64)."},
                               "call_method TensorVariable() to_list", 109);
        tracer.unsupported("Unsupported Tensor.tolist() call", "Dynamo does not support tracing `Tensor.tolist()`.",
                           {"Avoid calling `Tensor.tolist()` inside the compiled region."}, "call_method TensorVariable() tolist () {}");
    }
    // Dynamo traces with inference mode off (config.fake_tensor_disable_inference_mode), so it cannot answer this.
    if (name == "is_inference")
        tracer.unsupported("Encountered tensor.is_inference() during tracing", "tensor.is_inference() is not supported",
                           {"This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. "
                            "Consider finding a workaround.",
                            "Avoid using `tensor.is_inference()` and `torch.is_inference_mode_enabled()` in your compile code. This is "
                            "primarily used in conjunction with `torch.inference_mode`. Consider using `torch.no_grad` instead because "
                            "`torch.no_grad` leads to same improvements as `inference_mode` when `torch.compile` is used."},
                           "");
    if (name == "numpy" || name == "backward" || name == "data_ptr" || name == "register_hook")
        tracer.unsupported(fmt::format("Unsupported Tensor.{}() call", name), fmt::format("Dynamo does not trace `Tensor.{}()`.", name), {},
                           fmt::format("call_method TensorVariable() {} () {{}}", name));
    if (std::optional<VarRef> storage = callStorageMethod(tracer, self, name, args, kwargs)) return *storage;
    const tensor::Tensor& t = self->value.tensor();
    if (name == "dim" || name == "ndimension") return tracer.constant(vm::Value(t.dim()));
    // Predicates of the dtype fold: TENSOR_MATCH guards it.
    if ((name == "is_floating_point" || name == "is_complex") && args.empty() && kwargs.empty())
        return tracer.constant(tracer.vm().call(tracer.vm().getAttr(self->value, name), {}));
    if (name == "size") {
        VarRef shape = tracer.getAttr(*tracer.currentFrame(), self, "shape");
        if (args.empty()) return shape;
        return tracer.getItem(shape, args[0]);
    }
    if (name == "new" && kwargs.empty()) {
        // The legacy t.new(...), recorded as the method it stands for here: new_empty(sizes) for ints or a
        // torch.Size, new_tensor(data) for another sequence (t.new((2, 3)) is data, t.new(x.shape) a size).
        auto isSize = [](const VarRef& v) {
            return v->kind == Variable::Kind::Tuple && v->value.is(vm::Kind::Tuple) && v->value.as<vm::TupleObject>().typeName == "torch.Size";
        };
        auto isInt = [&](const VarRef& v) {
            return v->kind == Variable::Kind::SymScalar ? v->value.is(vm::Kind::Int) : tracer.isConstant(v) && tracer.exampleOf(v).is(vm::Kind::Int);
        };
        auto sizes = std::make_shared<Variable>();
        sizes->kind = Variable::Kind::List;
        sizes->fresh = true;
        if (args.size() == 1 && isSize(args[0])) sizes->items = tracer.unpack(args[0]);
        else if (std::all_of(args.begin(), args.end(), isInt)) sizes->items = args.empty() ? std::vector<VarRef>{tracer.constant(vm::Value(int64_t{0}))} : args;
        else sizes.reset();
        if (sizes) return tracer.callTensorOp(NodeOp::CallMethod, "new_empty", {self, sizes}, {}, vm::Value(), CallKind::Callable);
        if (args.size() == 1 && (args[0]->kind == Variable::Kind::List || args[0]->kind == Variable::Kind::Tuple))
            return tracer.callTensorOp(NodeOp::CallMethod, "new_tensor", {self, args[0]}, {}, vm::Value(), CallKind::Callable);
    }
    // t.type() names the dtype and device, which TENSOR_MATCH guards.
    if (name == "type" && args.empty() && kwargs.empty()) return tracer.constant(tracer.vm().call(tracer.vm().getAttr(self->value, name), {}));
    // numel() and is_contiguous() of a tensor of static shape fold: TENSOR_MATCH guards its sizes and strides.
    const bool staticShape = tracer.isConstant(tracer.getAttr(*tracer.currentFrame(), self, "shape"));
    if (name == "numel" && staticShape) return tracer.constant(vm::Value(t.numel()));
    if (name == "is_contiguous" && args.empty() && kwargs.empty() && staticShape && self->source &&
        (!self->node || self->node->op == NodeOp::Placeholder))
        return tracer.constant(tracer.vm().call(tracer.vm().getAttr(self->value, name), {}));
    std::vector<VarRef> all{self};
    all.insert(all.end(), args.begin(), args.end());
    return tracer.noteSymExpr(tracer.callTensorOp(NodeOp::CallMethod, name, all, kwargs, vm::Value(), CallKind::Callable),
                              name == "numel" && args.empty() ? tracer.numelExpr(self) : nullptr);
}

/// A namedtuple class called in the frame (collections.namedtuple's, or a typing.NamedTuple subclass): a tuple the
/// trace owns, of that class, its fields bound by the class's own __new__ (defaults, keywords and TypeErrors as in
/// Python), as Dynamo's NamedTupleVariable. nullopt for any other callable.
std::optional<VarRef> constructNamedTuple(Tracer& tracer, const VarRef& callable, const std::vector<VarRef>& args, const KwVars& kwargs) {
    const vm::Value& value = callable->value;
    if (!value.is(vm::Kind::Class)) return std::nullopt;
    const auto& cls = value.as<vm::ClassObject>();
    std::optional<vm::Value> make = cls.lookup("__new__");
    if (!cls.isSubclassOf(*tracer.vm().builtinClass("tuple")) || !cls.lookup("_fields") || !make || !make->is(vm::Kind::Native)) return std::nullopt;
    ArgumentTokens tokens;
    vm::ValueList positional{value};
    for (const VarRef& a : args) positional.push_back(tokens.token(a));
    vm::KwArgs keywords;
    for (const auto& [key, a] : kwargs) keywords.emplace_back(key, tokens.token(a));
    vm::Value bound = tracer.vm().call(*make, std::move(positional), std::move(keywords));
    auto out = std::make_shared<Variable>();
    out->kind = Variable::Kind::Tuple;
    out->fresh = true;
    for (const vm::Value& item : bound.as<vm::TupleObject>().items) out->items.push_back(tokens.find(item).value_or(tracer.constant(item)));
    out->value = vm::makeTuple({});
    out->value.as<vm::TupleObject>().copyTypeFrom(bound.as<vm::TupleObject>());
    return out;
}

/// A call Dynamo constant-folds: `callee` run at trace time on the values of constant arguments (each taken as a
/// graph argument, as any read of it is).
VarRef foldedCall(Tracer& tracer, const vm::Value& callee, const std::vector<VarRef>& args) {
    vm::ValueList values;
    for (const VarRef& a : args) {
        tracer.argOf(a);
        values.push_back(tracer.exampleOf(a));
    }
    return tracer.constant(tracer.vm().call(callee, std::move(values)));
}

}  // namespace

VarRef Tracer::inlineFunction(TraceFrame& caller, const vm::Value& function, std::vector<VarRef> args, KwVars kwargs, const VarRef& self) {
    auto& fn = function.as<vm::FunctionObject>();
    if (fn.attributes.contains("_torchdynamo_disable"))
        unsupported("Skip calling `torch.compiler.disable()`d function",
                    fmt::format("Skip calling function `{}` since it was wrapped with `torch.compiler.disable` (reason: None)", vm_.repr(function)),
                    {"Remove the `torch.compiler.disable` call"}, vm_.repr(function), 98);
    if (inlineDepth_ >= kMaxInlineDepth) unsupported("Inline depth exceeded", "Dynamo stopped inlining nested calls.", {}, fn.code->name);
    if (self) args.insert(args.begin(), self);
    // Bind with the VM's own rules through tokens, so defaults, *args, **kwargs and TypeErrors are Python's.
    ArgumentTokens tokens;
    vm::CallArgs callArgs;
    for (const VarRef& a : args) callArgs.positional.push_back(tokens.token(a));
    for (const auto& [key, a] : kwargs) callArgs.keywords.emplace_back(key, tokens.token(a));
    vm::Frame bound;
    bound.fast.assign(fn.code->varNames.size(), vm::Value::null());
    vm_.bindArguments(fn, callArgs, bound);
    auto untoken = [&](auto& self_, const vm::Value& v) -> VarRef {
        if (std::optional<VarRef> argument = tokens.find(v)) return *argument;
        if (v.is(vm::Kind::Tuple)) {
            auto t = std::make_shared<Variable>();
            t->kind = Variable::Kind::Tuple;
            t->value = vm::makeTuple({});
            t->fresh = true;
            for (const vm::Value& item : v.as<vm::TupleObject>().items) t->items.push_back(self_(self_, item));
            return t;
        }
        if (v.is(vm::Kind::Dict)) {
            auto d = std::make_shared<Variable>();
            d->kind = Variable::Kind::Dict;
            d->fresh = true;
            for (const auto& [key, item] : v.as<vm::DictObject>().entries()) {
                d->keys.push_back(key);
                d->items.push_back(self_(self_, item));
            }
            return d;
        }
        return constant(v);
    };
    auto boundFrame = std::make_shared<TraceFrame>();
    TraceFrame& frame = *boundFrame;
    frame.code = fn.code;
    frame.globals = fn.globals;
    frame.parent = &caller;
    frame.locals.resize(fn.code->varNames.size());
    for (size_t i = 0; i < bound.fast.size(); ++i)
        if (!bound.fast[i].isNull()) frame.locals[i] = untoken(untoken, bound.fast[i]);
    for (size_t i = 0; i < fn.code->cellVars.size(); ++i) {
        frame.cells.push_back(std::make_shared<vm::CellObject>());
        auto cell = std::make_shared<TracedCell>();
        cell->local = true;
        int parameter = fn.code->cellParameters[i];
        if (parameter >= 0) cell->value = frame.locals[static_cast<size_t>(parameter)];
        frame.cellValues[i] = cell;
    }
    for (const auto& cell : fn.closure) frame.cells.push_back(cell);
    // A closure made inside the trace reads and writes its maker's traced cells (Dynamo's NestedUserFunctionVariable).
    if (auto made = madeClosures_.find(&fn); made != madeClosures_.end()) {
        for (size_t i = 0; i < made->second.size(); ++i) frame.cellValues[fn.code->cellVars.size() + i] = made->second[i];
    } else if (root_) {
        // A function the compiled frame made before a graph break holds the frame's real cells: read them as the
        // frame's (with their sources), not as constants.
        for (size_t i = 0; i < fn.closure.size(); ++i)
            for (size_t j = 0; j < root_->cells.size(); ++j)
                if (root_->cells[j] == fn.closure[i]) frame.cellValues[fn.code->cellVars.size() + i] = root_->cellValues.at(j);
    }
    if (fn.code->isGenerator) {
        // A generator function's call binds the frame only: its body runs as the generator is iterated.
        auto generator = std::make_shared<Variable>();
        generator->kind = Variable::Kind::Iterator;
        generator->fresh = true;
        generator->generator = boundFrame;
        frame.parent = nullptr;
        return generator;
    }
    ++inlineDepth_;
    try {
        while (!frame.returned) step(frame);
    } catch (...) {
        --inlineDepth_;
        throw;
    }
    --inlineDepth_;
    return *frame.returned;
}

bool Tracer::breakOnArgumentWrites(const std::string& module, const std::string& name, const std::vector<VarRef>& args, const KwVars& kwargs) {
    const std::string shortModule = module == "torch.nn.functional" ? "F" : "torch";
    const tensor::OpEntry* entry = tensor::OpRegistry::instance().find(shortModule + "." + name);
    if (!entry || entry->overloads.empty()) return false;
    const tensor::Schema& schema = entry->overloads.front().schema;
    auto argument = [&](size_t index) -> const VarRef* {
        if (index < args.size() && !schema.params[index].keywordOnly) return &args[index];
        for (const auto& [key, a] : kwargs)
            if (key == schema.params[index].name) return &a;
        return nullptr;
    };
    std::vector<std::string> written;
    std::string when;
    bool writesInput = false;
    for (size_t i = 0; i < schema.params.size(); ++i) {
        const tensor::Param& p = schema.params[i];
        const VarRef* a = p.written ? argument(i) : nullptr;
        if (!a || !containsTensor(*a)) continue;
        if (!p.writtenWhen.empty()) {
            size_t flag = 0;
            while (flag < schema.params.size() && schema.params[flag].name != p.writtenWhen) ++flag;
            const VarRef* f = argument(flag);
            const vm::Value known = f ? (isConstant(*f) ? exampleOf(*f) : vm::Value::null()) : vm::fromTensorValue(schema.params[flag].defaultValue);
            if (known.is(vm::Kind::Bool) && !known.asBool()) continue;
            if (i > 0) when = p.writtenWhen;
        }
        if (i == 0) writesInput = true;
        else written.push_back(p.name);
    }
    if (written.empty()) return writesInput;
    unsupported("Unsupported torch function",
                fmt::format("`{}.{}`{} updates {} in place inside the op.", shortModule, name, when.empty() ? "" : " in " + when + " mode",
                            fmt::join(written, " and ")),
                {name == "batch_norm" ? "Use nn.BatchNorm1d/nn.BatchNorm2d, whose running statistics are traced as in-place updates."
                                      : "Write the update with in-place tensor ops, which the graph records."},
                module + "." + name);
}

VarRef Tracer::callFunction(TraceFrame& frame, const VarRef& callable, std::vector<VarRef> args, KwVars kwargs) {
    if (std::optional<VarRef> exit = callGradModeExit(*this, callable)) return *exit;
    // Before the callable's own guard: a bound step is made anew on every access; the optimizer's class is guarded.
    if (std::optional<VarRef> stepped = callOptimizerStep(*this, frame, callable, args, kwargs)) return *stepped;
    if (std::optional<VarRef> method = callTensorDescriptor(*this, frame, callable, args, kwargs)) return *method;
    if (std::optional<VarRef> applied = callAutogradFunction(*this, callable, args, kwargs)) return *applied;
    if (std::optional<VarRef> members = callModuleMethod(*this, frame, callable, args, kwargs)) return *members;
    switch (callable->kind) {
        case Variable::Kind::TensorMethod: return callTensorMethod(*this, callable, std::move(args), std::move(kwargs));
        case Variable::Kind::ContainerMethod: return callContainerMethod(callable, std::move(args), std::move(kwargs));
        case Variable::Kind::BoundMethod:
            checkDequeMethod(callable, args);
            return inlineFunction(frame, callable->value, std::move(args), std::move(kwargs), callable->self);
        case Variable::Kind::Object: return callObject(frame, callable, std::move(args), std::move(kwargs));
        case Variable::Kind::Python:
            if (callable->name == kObjectInit) return constant(vm::Value());
            if (callable->name == kObjectDelattr) args.insert(args.begin(), callable->self);
            // What the trace calls must be what a later call finds there (L['f'].func: ID_MATCH, objects: TYPE_MATCH).
            // (a bound method or a method of a builtin value is new per read: its receiver is what is guarded)
            if (callable->source && !callable->self && !callable->value.is(vm::Kind::BoundMethod)) guardValue(callable);
            break;
        default:
            unsupported("Unsupported function call", "Dynamo cannot call this value.", {}, "call_function");
    }
    const vm::Value& value = callable->value;
    if (isGradModeClass(value) && args.empty() && kwargs.empty()) return constant(vm_.call(value, {}));
    if (isAutocastClass(value)) {
        vm::ValueList values;
        for (const VarRef& a : args) values.push_back(exampleOf(a));
        vm::KwArgs keywords;
        for (const auto& [key, a] : kwargs) keywords.emplace_back(key, exampleOf(a));
        return constant(vm_.call(value, std::move(values), std::move(keywords)));
    }
    // torch.compiler.substitute_in_graph: the polyfill is inlined in the original's place (PolyfilledFunctionVariable).
    if (std::optional<vm::Value> polyfill = graphSubstitute(value)) return inlineFunction(frame, *polyfill, std::move(args), std::move(kwargs), nullptr);
    if (value.is(vm::Kind::Function)) {
        breakOnUntracedItertools(*this, value, args);
        if (value.as<vm::FunctionObject>().attributes.contains("_torchdynamo_allow_in_graph"))
            return callTensorOp(NodeOp::CallFunction, "__main__." + value.as<vm::FunctionObject>().code->name, args, kwargs, value, CallKind::Callable);
        breakOnDataclassFieldsOfNonInstance(*this, value, args);
        return inlineFunction(frame, value, std::move(args), std::move(kwargs), nullptr);
    }
    if (value.is(vm::Kind::BoundMethod)) {
        auto& method = value.as<vm::BoundMethodObject>();
        if (method.function.is(vm::Kind::Function)) {
            // The receiver keeps a source (L['___stack0'].__self__), so stores to its attributes can be replayed.
            VarRef self = callable->source ? wrapSource(method.self, Source::child(callable->source, Source::Kind::Attr, "__self__"))
                                           : constant(method.self);
            return inlineFunction(frame, method.function, std::move(args), std::move(kwargs), self);
        }
        if (method.self.is(vm::Kind::Instance) && method.self.as<vm::InstanceObject>().cls == vm_.builtinClass("range") &&
            std::all_of(args.begin(), args.end(), [this](const VarRef& a) { return isConstant(a); }) && kwargs.empty()) {
            // A method of a range (index, count, ...): the range is immutable and its bounds specialized, so the call folds.
            return foldedCall(*this, value, args);
        }
    }
    if (isUserInstance(callable)) return callObject(frame, callable, std::move(args), std::move(kwargs));
    if (std::optional<VarRef> made = callMetaclassInstance(*this, callable, args, kwargs)) return *made;
    if (std::optional<VarRef> dict = constructDictSubclass(callable, args, kwargs)) return *dict;
    if (std::optional<VarRef> tuple = constructNamedTuple(*this, callable, args, kwargs)) return *tuple;
    if (value.is(vm::Kind::Class) && value.object().get() == vm_.builtinClass("super").get() && kwargs.empty()) return makeSuper(frame, args);
    if (std::optional<VarRef> object = constructObject(frame, callable, args, kwargs)) return *object;
    if (isModuleInstance(*this, value)) {
        auto& instance = value.as<vm::InstanceObject>();
        std::optional<vm::Value> forward = instance.cls->lookup("forward");
        const bool python = forward && forward->is(vm::Kind::Function);
        std::string leaf;  // a builtin module's class, whose forward is the functional call Dynamo records
        for (const vm::ClassObject* cls : instance.cls->mro())
            if (!python && leaf.empty() && cls->dict.contains("forward")) leaf = cls->name;
        if (python || !leaf.empty())
            return callModuleWithHooks(*this, frame, callable, std::move(args), std::move(kwargs), [&](std::vector<VarRef> a, KwVars k) {
                return python ? inlineFunction(frame, *forward, std::move(a), std::move(k), callable) : callLeafModule(*this, frame, callable, leaf, a);
            });
    }
    if (value.is(vm::Kind::Class) && value.object().get() == vm_.builtinClass("range").get() && kwargs.empty()) {
        // Dynamo's RangeVariable: the bounds are specialized (an int that became symbolic gets an equality guard
        // again, so every value the loop runs for compiles its own graph, up to the recompile limit).
        for (const VarRef& a : args) specializeScalar(a);
        if (std::all_of(args.begin(), args.end(), [this](const VarRef& a) { return isConstant(a); })) return foldedCall(*this, value, args);
    }
    if (value.is(vm::Kind::Class) && value.as<vm::ClassObject>().module == "builtins") {
        // list(...), dict(...), float("-inf"), ...: Dynamo's BuiltinVariable for the builtin types.
        static const std::set<std::string> types = {"list", "tuple", "dict", "set", "frozenset", "int", "float", "bool", "str", "type", "slice"};
        const std::string& name = value.as<vm::ClassObject>().name;
        if (types.contains(name)) return callBuiltin(*this, frame, name, value, args, kwargs);
    }
    if (value.is(vm::Kind::Class) && value.as<vm::ClassObject>().module == "torch" &&
        (value.as<vm::ClassObject>().name == "finfo" || value.as<vm::ClassObject>().name == "iinfo" ||
         value.as<vm::ClassObject>().name == "Size") &&
        std::all_of(args.begin(), args.end(), [this](const VarRef& a) { return isConstant(a); }) && kwargs.empty()) {
        // torch.finfo / torch.iinfo of a dtype and torch.Size of constant ints fold, as Dynamo constant-folds them.
        return foldedCall(*this, value, args);
    }
    if (value.is(vm::Kind::Native)) {
        const std::string& name = value.as<vm::NativeObject>().name;
        if (name == "cond" && (callable->name.empty() ? moduleHolding(*this, value) : callable->name) == "torch")
            return traceCond(*this, frame, callable, args, kwargs);
        if (std::optional<VarRef> result = callGradModeDecorated(*this, frame, value, args, kwargs)) return *result;
        // A closure made in the trace holds traced cells the real function cannot see: a native must not call it
        // (sorted() calls its key through the trace).
        std::vector<VarRef> all = args;
        for (const auto& kw : kwargs) all.push_back(kw.second);
        // (enumerate/zip/reversed/list/tuple rebuild their items through the trace, closures included.)
        static const std::set<std::string> kItemwise = {"sorted", "enumerate", "zip", "reversed", "list", "tuple", "len"};
        if (!kItemwise.contains(name) && madeClosureIn(all)) breakOnClosureArgument(*this, value);
        if (callable->self)
            if (std::optional<VarRef> changed = callOutsideSetMutator(callable->self, name, args, kwargs)) return *changed;
        if (callable->self && (readOnlyMethod(vm_, callable->self->value, name) || ownSetMutator(*callable->self, name)) &&
            allConstant(args, kwargs)) {
            // A method that only reads a constant (cls.__dataclass_fields__.values(), "-".join(names)): folded.
            if (callable->self->source) guardValue(callable->self);
            return constant(callOnExamples(value, args, kwargs));
        }
        std::string module = callable->name.empty() ? moduleHolding(*this, value) : callable->name;
        if (module == "torch._dynamo" && name == "graph_break")
            unsupported("Call to `torch._dynamo.graph_break()`", "User-inserted graph break. Message: None",
                        {"Remove the `torch._dynamo.graph_break()` call."},
                        "Called `torch._dynamo.graph_break()` with args `[]`, kwargs `{}`", 25);
        if (module == "torch.compiler" && (name == "is_compiling" || name == "is_dynamo_compiling")) return constant(vm::Value(true));
        if (module == "torch.compiler" && name == "is_exporting") return constant(vm::Value(false));
        if (module == "torch" && name == "set_grad_enabled" && args.size() == 1 && kwargs.empty() && isConstant(args[0]) &&
            frame.pc + 1 < frame.code->instructions.size() && frame.code->instructions[frame.pc + 1].opcode == frontend::Opcode::BeforeWith) {
            // `with torch.set_grad_enabled(mode):` sets the mode now, in the graph too; the block's exit restores it.
            argOf(args[0]);
            vm::Value manager = vm_.call(value, {vm::Value(vm_.truthy(exampleOf(args[0])))});
            recordSetGradEnabled(*this, vm_.truthy(exampleOf(args[0])));
            return constant(manager);
        }
        if (module == "torch" && (name == "manual_seed" || name == "set_default_dtype" || name == "set_grad_enabled"))
            unsupported("Unsupported torch function", fmt::format("`torch.{}` changes global state.", name), {}, "torch." + name);
        // F.relu(x, inplace=True) writes x: recorded under F's own name, whose schema marks the write, rather than
        // as torch.relu, which would read as a pure op.
        const bool writesInput = (module == "torch" || module == "torch.nn.functional") && breakOnArgumentWrites(module, name, args, kwargs);
        if (module == "torch.autograd" && name == "grad")
            // trace_rules maps torch.autograd.grad to SkipFunctionVariable: the call runs eagerly after the break.
            unsupported("Attempted to call function marked as skipped",
                        "Dynamo developers have intentionally marked that the function `grad` in file `torch/autograd/__init__.py` should "
                        "not be traced.",
                        {"Avoid calling the function `grad`.",
                         "Apply `@torch._dynamo.dont_skip_tracing` to the function `grad` to force tracing into the function. More graph "
                         "breaks may occur as a result of attempting to trace into the function.",
                         "Please file an issue to PyTorch."},
                        "module: torch.autograd, qualname: grad, skip reason: <missing reason>");
        // torch.is_floating_point(input=x) names its argument: the same query.
        const bool byKeyword = args.empty() && kwargs.size() == 1 && kwargs[0].first == (name == "is_tensor" ? "obj" : "input");
        const VarRef queried = byKeyword ? kwargs[0].second : (args.size() == 1 && kwargs.empty() ? args[0] : nullptr);
        if (module == "torch" && (name == "is_tensor" || name == "is_floating_point" || name == "is_complex") && queried &&
            (queried->kind == Variable::Kind::Tensor || (name == "is_tensor" && isConstant(queried)))) {
            if (queried->kind != Variable::Kind::Tensor) argOf(queried);  // a tensor's dtype is guarded (TENSOR_MATCH)
            return constant(vm_.call(value, {exampleOf(queried)}));
        }
        if (module.rfind("torch", 0) == 0 && module.find("_dynamo") == std::string::npos && module != "torch.compiler") {
            // A torch function: a node when it makes or takes tensors, folded at trace time otherwise.
            bool tensors = false;
            for (const VarRef& a : args) tensors = tensors || containsTensor(a);
            for (const auto& kw : kwargs) tensors = tensors || containsTensor(kw.second);
            if (!tensors) {
                vm::ValueList values;
                for (const VarRef& a : args) values.push_back(exampleOf(a));
                vm::KwArgs kw;
                for (const auto& [key, a] : kwargs) kw.emplace_back(key, exampleOf(a));
                vm::Value probe = vm_.call(value, values, kw);
                if (!probe.is(vm::Kind::Tensor)) {
                    for (const VarRef& a : args) argOf(a);
                    return constant(probe);
                }
            }
            return callTorchFunction(module, name, writesInput ? module + "." + name : torchTarget(module, name), args, kwargs, value);
        }
        // math functions of constants fold, as Dynamo folds them (math.sqrt(k.size(-1)) of a static size).
        if (module == "math" && kwargs.empty() && std::all_of(args.begin(), args.end(), [this](const VarRef& a) { return isConstant(a); })) {
            return foldedCall(*this, value, args);
        }
        return callBuiltin(*this, frame, name, value, args, kwargs);
    }
    unsupported("Unsupported function call", fmt::format("Dynamo does not know how to trace the call of `{}`.", vm_.repr(value)), {},
                "call_function " + vm_.repr(value));
}

VarRef Tracer::callObject(TraceFrame& frame, const VarRef& object, std::vector<VarRef> args, KwVars kwargs) {
    const auto& cls = object->value.as<vm::InstanceObject>().cls;
    std::optional<vm::Value> call = cls->lookup("__call__");
    if (!call) vm::typeError(fmt::format("'{}' object is not callable", cls->name));
    if (!call->is(vm::Kind::Function))
        unsupported("Unsupported function call", fmt::format("Dynamo does not trace `{}.__call__`.", cls->name), {}, "call_function " + cls->name);
    if (object->kind == Variable::Kind::Python) guardValue(object);
    return inlineFunction(frame, *call, std::move(args), std::move(kwargs), object);
}

bool evaluateCallInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in) {
    auto& stack = frame.stack;
    switch (in.opcode) {
        case Opcode::Call:
        case Opcode::CallKw: {
            std::vector<std::string> names;
            if (in.opcode == Opcode::CallKw) {
                VarRef keywordNames = popVar(frame);
                for (const vm::Value& n : keywordNames->value.as<vm::TupleObject>().items) names.push_back(n.str());
            }
            std::vector<VarRef> args(stack.end() - static_cast<long>(in.arg), stack.end());
            stack.resize(stack.size() - in.arg);
            VarRef selfOrNull = popVar(frame);
            VarRef callable = popVar(frame);
            if (selfOrNull->kind != Variable::Kind::Null) args.insert(args.begin(), selfOrNull);
            KwVars kwargs;
            size_t positional = args.size() - names.size();
            for (size_t i = 0; i < names.size(); ++i) kwargs.emplace_back(names[i], args[positional + i]);
            args.resize(positional);
            stack.push_back(tracer.callFunction(frame, callable, std::move(args), std::move(kwargs)));
            return true;
        }
        case Opcode::CallFunctionEx: {
            VarRef kwargsVar = (in.arg & 1) ? popVar(frame) : nullptr;
            VarRef argsVar = popVar(frame);
            VarRef selfOrNull = popVar(frame);
            VarRef callable = popVar(frame);
            std::vector<VarRef> args = tracer.unpack(argsVar);
            if (selfOrNull->kind != Variable::Kind::Null) args.insert(args.begin(), selfOrNull);
            KwVars kwargs;
            if (kwargsVar)
                for (size_t i = 0; i < kwargsVar->keys.size(); ++i) kwargs.emplace_back(kwargsVar->keys[i].str(), kwargsVar->items[i]);
            stack.push_back(tracer.callFunction(frame, callable, std::move(args), std::move(kwargs)));
            return true;
        }
        default: return false;
    }
}

}  // namespace eng::capture
