// `with torch.no_grad():` / `torch.enable_grad()` inside a compiled frame, captured as Dynamo captures them:
// the graph records torch._C._set_grad_enabled(False) at the entry and (True) at the exit, and the trace runs
// the body's example ops under that grad mode; `with torch.autocast(...)` records torch.amp's _enter_autocast and
// _exit_autocast (AutocastModeVariable). A context manager made in the trace has its __enter__/__exit__ inlined;
// other context managers break with Dynamo's message (gb0142).
#include <fmt/core.h>

#include "capture/symbolic_eval.h"
#include "tensor/autograd/grad_mode.h"

namespace eng::capture {

namespace {

constexpr const char* kExitMarker = "grad mode exit";
constexpr const char* kAutocastExitMarker = "autocast exit";

vm::Value autocastFunction(vm::Interpreter& vm, const char* name) { return vm.getAttr(vm.modules().at("torch.amp.autocast_mode"), name); }

/// `with torch.autocast(...)`: the enter node with the mode's arguments as given (Dynamo's target_values), run now
/// so the body's example ops autocast; the exit, traced, records _exit_autocast of the enter node.
void enterAutocast(Tracer& tracer, TraceFrame& frame, const vm::InstanceObject& mode) {
    vm::Interpreter& vm = tracer.vm();
    const vm::Value enter = autocastFunction(vm, "_enter_autocast");
    std::vector<Arg> args;
    vm::ValueList values;
    for (const char* key : {"device", "_dtype_arg", "_enabled_arg", "_cache_enabled_arg"}) {
        values.push_back(mode.attributes.at(key));
        args.push_back(Arg::ofConstant(values.back()));
    }
    Node* node = tracer.recordCall(NodeOp::CallFunction, "torch.amp.autocast_mode._enter_autocast", std::move(args), {});
    node->callKind = CallKind::Callable;
    node->callee = enter;
    node->example = vm.call(enter, values);
    const vm::Value entered = node->example;
    VarRef exit = tracer.constant(vm::makeNative("__exit__", [entered](vm::Interpreter& machine, vm::CallArgs&) {
        machine.call(autocastFunction(machine, "_exit_autocast"), {entered});
        return vm::Value(false);
    }));
    exit->name = kAutocastExitMarker;
    exit->value.as<vm::NativeObject>().attributes["enter_node"] = vm::Value(static_cast<int64_t>(reinterpret_cast<intptr_t>(node)));
    frame.stack.push_back(exit);
    frame.stack.push_back(tracer.constant(vm::Value()));
}

void setGradMode(vm::Interpreter& vm, bool enabled) {
    tensor::autograd::setGradEnabled(enabled);
    vm.setGradEnabled(enabled);
}

/// What the graph node calls at run time: torch._C._set_grad_enabled(mode).
vm::Value setGradEnabledFunction() {
    static const vm::Value function = vm::makeNative("_set_grad_enabled", [](vm::Interpreter& vm, vm::CallArgs& a) {
        setGradMode(vm, vm.truthy(a.positional.at(0)));
        return vm::Value();
    });
    return function;
}

}  // namespace

/// Dynamo's VariableTracker repr of a value in its messages (a frame value is wrapped lazily).
std::string variableRepr(Tracer& tracer, const Variable& v) {
    std::string repr;
    switch (v.kind) {
        case Variable::Kind::Tensor: repr = "TensorVariable()"; break;
        case Variable::Kind::List: repr = "ListVariable(length=" + std::to_string(v.items.size()) + ")"; break;
        case Variable::Kind::Tuple: repr = "TupleVariable(length=" + std::to_string(v.items.size()) + ")"; break;
        case Variable::Kind::Dict:
            if (v.value.is(vm::Kind::Dict) && v.value.as<vm::DictObject>().cls) {
                repr = "UserDefinedDictVariable(" + v.value.as<vm::DictObject>().cls->name + ")";
                break;
            }
            repr = "ConstDictVariable()";
            break;
        default:
            if (v.value.is(vm::Kind::Instance)) repr = "UserDefinedObjectVariable(" + v.value.as<vm::InstanceObject>().cls->name + ")";
            else repr = "ConstantVariable(" + tracer.vm().classOf(v.value)->name + ": " + tracer.vm().repr(v.value) + ")";
    }
    return v.source ? "LazyVariableTracker(realized: " + repr + ")" : repr;
}

namespace {

[[noreturn]] void unsupportedContextManager(Tracer& tracer, const VarRef& manager) {
    std::string type = manager->kind == Variable::Kind::Tensor ? "Tensor" : tracer.vm().classOf(tracer.exampleOf(manager))->name;
    tracer.unsupported("Unsupported context manager", fmt::format("Dynamo does not know how to enter a `{}` context manager.", type),
                       {"Avoid using the unsupported context manager.",
                        "If the context manager seems like it should be supported (e.g. torch.set_grad_enabled), then it may be the case "
                        "that it was created outside the compiled region, which Dynamo does not support. Supported context managers can "
                        "cross graph break boundaries only if they are local non-closure variables, or are intermediate values.",
                        "File an issue to PyTorch. Simple context managers can potentially be supported, but note that context "
                        "managers can't be supported in general"},
                       "Attempted SETUP_WITH/BEFORE_WITH/LOAD_SPECIAL on " + variableRepr(tracer, *manager), 142);
}

}  // namespace

void recordSetGradEnabled(Tracer& tracer, bool enabled) {
    tracer.callTensorOp(NodeOp::CallFunction, "torch._C._set_grad_enabled", {tracer.constant(vm::Value(enabled))}, {},
                        setGradEnabledFunction(), CallKind::Callable);
}

bool isGradModeClass(const vm::Value& value) {
    if (!value.is(vm::Kind::Class)) return false;
    const auto& cls = value.as<vm::ClassObject>();
    return cls.module == "torch" && (cls.name == "no_grad" || cls.name == "enable_grad" || cls.name == "inference_mode");
}

bool isAutocastClass(const vm::Value& value) {
    if (!value.is(vm::Kind::Class)) return false;
    const auto& cls = value.as<vm::ClassObject>();
    // torch.autocast and the deprecated torch.cuda.amp.autocast / torch.cpu.amp.autocast (AutocastModeVariable's)
    return cls.name == "autocast" && (cls.module == "torch.amp.autocast_mode" || cls.module == "torch.cuda.amp.autocast_mode" ||
                                      cls.module == "torch.cpu.amp.autocast_mode");
}

namespace {

/// The exit of a grad-mode block: traced, it records the restoring node; run by the interpreter after a graph break
/// inside the block, it restores the mode itself.
void pushGradModeExit(Tracer& tracer, TraceFrame& frame, bool previous) {
    VarRef exit = tracer.constant(vm::makeNative("__exit__", [previous](vm::Interpreter& vm, vm::CallArgs&) {
        setGradMode(vm, previous);
        return vm::Value(false);
    }));
    exit->name = kExitMarker;
    exit->value.as<vm::NativeObject>().attributes["previous"] = vm::Value(previous);
    frame.stack.push_back(exit);
    frame.stack.push_back(tracer.constant(vm::Value()));
}

}  // namespace

bool evaluateWith(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in) {
    if (in.opcode != frontend::Opcode::BeforeWith) return false;
    const VarRef& manager = frame.stack.back();
    if (manager->kind == Variable::Kind::Python && manager->value.is(vm::Kind::Instance) &&
        isAutocastClass(vm::Value(manager->value.as<vm::InstanceObject>().cls))) {
        const vm::Value mode = manager->value;
        popVar(frame);
        enterAutocast(tracer, frame, mode.as<vm::InstanceObject>());
        return true;
    }
    if (manager->kind == Variable::Kind::Object && tracer.vm().findAttr(manager->value, "__enter__") &&
        tracer.vm().findAttr(manager->value, "__exit__")) {
        // A context manager made in the trace (a user class, contextlib.contextmanager's): __enter__ inlined now, its
        // bound __exit__ left below the entered value for the block's end, as Dynamo's GenericContextWrappingVariable.
        VarRef exit = tracer.getAttr(frame, manager, "__exit__");
        std::optional<VarRef> entered = tracer.callDunder(frame, manager, "__enter__", {});
        if (!entered) unsupportedContextManager(tracer, manager);
        exit->contextExit = true;
        popVar(frame);
        frame.stack.push_back(exit);
        frame.stack.push_back(*entered);
        return true;
    }
    if (manager->kind == Variable::Kind::Python && !manager->source && manager->value.is(vm::Kind::Instance) &&
        manager->value.as<vm::InstanceObject>().cls->module == "torch" && manager->value.as<vm::InstanceObject>().cls->name == "set_grad_enabled") {
        // torch.set_grad_enabled(mode) made in the trace already set (and recorded) its mode: the exit restores the one
        // it found.
        const bool previous = manager->value.as<vm::InstanceObject>().attributes.at("prev").asBool();
        popVar(frame);
        pushGradModeExit(tracer, frame, previous);
        return true;
    }
    if (manager->kind != Variable::Kind::Python || !manager->value.is(vm::Kind::Instance) ||
        !isGradModeClass(vm::Value(manager->value.as<vm::InstanceObject>().cls))) {
        try {
            unsupportedContextManager(tracer, manager);
        } catch (Unsupported& u) {
            // No resume point inside a with-block whose manager the trace cannot hold (its __exit__ would be lost):
            // Dynamo fails the frame and runs it eagerly ("Failed to handle graph break gracefully").
            if (!frame.parent) u.info.skipFrame = true;
            throw;
        }
    }
    // An inference_mode block is captured by its grad mode (the opposite of its mode): Dynamo traces with inference
    // mode off, and the graph's tensors made inside are normal tensors (README: Double backward and grad-mode edges).
    const auto& instance = manager->value.as<vm::InstanceObject>();
    const auto mode = instance.attributes.find("mode");
    bool enabled = instance.cls->name == "enable_grad" || (instance.cls->name == "inference_mode" && mode != instance.attributes.end() && !mode->second.asBool());
    bool previous = tensor::autograd::isGradEnabled();
    popVar(frame);
    recordSetGradEnabled(tracer, enabled);
    pushGradModeExit(tracer, frame, previous);
    return true;
}

std::optional<VarRef> callGradModeDecorated(Tracer& tracer, TraceFrame& frame, const vm::Value& callee, const std::vector<VarRef>& args,
                                            const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    const auto& native = callee.as<vm::NativeObject>();
    auto wrapped = native.attributes.find("__wrapped__");
    auto mode = native.attributes.find("grad_mode_enabled");
    if (native.name != "decorated" || wrapped == native.attributes.end() || mode == native.attributes.end()) return std::nullopt;
    const bool previous = tensor::autograd::isGradEnabled();
    recordSetGradEnabled(tracer, mode->second.asBool());
    VarRef result;
    try {
        result = tracer.callFunction(frame, tracer.constant(wrapped->second), args, kwargs);
    } catch (TracedRaise&) {
        recordSetGradEnabled(tracer, previous);  // the wrapper restores the mode however its function leaves
        throw;
    }
    recordSetGradEnabled(tracer, previous);
    return result;
}

std::optional<VarRef> callGradModeExit(Tracer& tracer, const VarRef& callable) {
    if (callable->name == kAutocastExitMarker) {
        auto& marker = callable->value.as<vm::NativeObject>();
        auto* enter = reinterpret_cast<Node*>(static_cast<intptr_t>(marker.attributes.at("enter_node").asInt()));
        const vm::Value exit = autocastFunction(tracer.vm(), "_exit_autocast");
        Node* node = tracer.recordCall(NodeOp::CallFunction, "torch.amp.autocast_mode._exit_autocast", {Arg::ofNode(enter)}, {});
        node->callKind = CallKind::Callable;
        node->callee = exit;
        node->example = tracer.vm().call(exit, {enter->example});
        return tracer.constant(vm::Value(false));
    }
    if (callable->name != kExitMarker) return std::nullopt;
    recordSetGradEnabled(tracer, callable->value.as<vm::NativeObject>().attributes.at("previous").asBool());
    return tracer.constant(vm::Value(false));
}

}  // namespace eng::capture
