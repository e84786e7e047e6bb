// `opt.step()` of torch.optim's SGD, Adam and AdamW inside a compiled frame (and torch.compile(opt.step)), captured
// as Dynamo's OptimizerVariable captures it: state the step would create is created for real at trace time (its
// `_init_group`), every parameter, gradient and state tensor is a graph input read through its source, the update
// rules of vm/optimizer_update.h record in-place ops under no_grad, and every hyperparameter read is guarded.
#include <fmt/core.h>

#include "capture/symbolic_eval.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"
#include "vm/optimizer_state.h"

namespace eng::capture {

namespace {

using vm::optim::Algorithm;
using Op = vm::optim::Operand<VarRef>;
using KwVars = std::vector<std::pair<std::string, VarRef>>;

/// The update rules' ops, recorded through the tracer as the same calls in user code would be.
struct TraceSink {
    Tracer& tracer;
    TraceFrame& frame;

    VarRef operand(const Op& a) {
        return std::holds_alternative<double>(a) ? tracer.constant(vm::Value(std::get<double>(a))) : std::get<VarRef>(a);
    }
    VarRef method(const std::string& name, const VarRef& self, std::vector<Op> args, std::vector<std::pair<std::string, Op>> kwargs) {
        auto bound = std::make_shared<Variable>();
        bound->kind = Variable::Kind::TensorMethod;
        bound->self = self;
        bound->name = name;
        std::vector<VarRef> positional;
        for (const Op& a : args) positional.push_back(operand(a));
        KwVars keywords;
        for (const auto& [key, a] : kwargs) keywords.emplace_back(key, operand(a));
        return tracer.callFunction(frame, bound, std::move(positional), std::move(keywords));
    }
    VarRef function(const std::string& name, std::vector<Op> args) {
        VarRef callee = tracer.constant(tracer.vm().getAttr(tracer.vm().modules().at("torch"), name));
        callee->name = "torch";
        std::vector<VarRef> positional;
        for (const Op& a : args) positional.push_back(operand(a));
        return tracer.callFunction(frame, callee, std::move(positional), {});
    }
    [[noreturn]] void runningMaximum(const VarRef&, const VarRef&) { unsupportedOption("amsgrad=True"); }
    [[noreturn]] void unsupportedOption(const std::string& option) {
        tracer.unsupported("Unsupported optimizer step", fmt::format("cwb does not capture an optimizer step with {}.", option),
                           {"The step runs eagerly."}, "call_method OptimizerVariable() step");
    }
};

/// A guarded read of a Python value of the group (lr, betas, ...).
/// The real tensors of a param group (its "params" list).
const vm::ValueList& paramsOf(const vm::Value& group) {
    return group.as<vm::DictObject>().find(vm::makeStr("params"))->as<vm::ListObject>().items;
}

vm::Value guardedItem(Tracer& tracer, const VarRef& container, const vm::Value& key) {
    VarRef item = tracer.getItem(container, tracer.constant(key));
    tracer.guardValue(item);
    return item->value;
}

/// The group's learning rate: a guarded number (a changed lr recompiles, as Dynamo's guard on a float lr does) or a
/// tensor, which is a graph input like any other.
Op learningRateOf(Tracer& tracer, const VarRef& group) {
    VarRef lr = tracer.getItem(group, tracer.constant(vm::makeStr("lr")));
    if (lr->kind == Variable::Kind::Tensor) return lr;
    tracer.guardValue(lr);
    return lr->value.asFloat();
}

/// The optimizer's source: the receiver of `opt.step` (L['opt']), or the bound method's __self__.
SourceRef optimizerSource(const VarRef& callable) {
    if (!callable->source) return nullptr;
    if (callable->source->kind == Source::Kind::Attr && callable->source->name == "step") return callable->source->base;
    return Source::child(callable->source, Source::Kind::Attr, "__self__");
}

}  // namespace

std::optional<VarRef> callOptimizerStep(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                                        const KwVars& kwargs) {
    const vm::Value& value = callable->value;
    if (callable->kind != Variable::Kind::Python || !value.is(vm::Kind::BoundMethod)) return std::nullopt;
    const auto& method = value.as<vm::BoundMethodObject>();
    if (!method.function.is(vm::Kind::Native) || method.function.as<vm::NativeObject>().name != "step") return std::nullopt;
    const std::optional<Algorithm> algorithm = vm::optim::algorithmOf(method.self);
    if (!algorithm) return std::nullopt;
    TraceSink sink{tracer, frame};
    const bool closure = (!args.empty() && !(args[0]->kind == Variable::Kind::Python && args[0]->value.isNone())) ||
                         std::any_of(kwargs.begin(), kwargs.end(), [](const auto& kw) { return !kw.second->value.isNone(); });
    if (closure) sink.unsupportedOption("a closure");
    SourceRef source = optimizerSource(callable);
    if (!source) sink.unsupportedOption("an optimizer without a source");
    VarRef optimizer = tracer.wrapSource(method.self, source);
    tracer.guardValue(optimizer);
    auto& self = method.self.as<vm::InstanceObject>();
    VarRef groups = tracer.getAttr(frame, optimizer, "param_groups");
    tracer.guardValue(groups);
    // The state is guarded by its size before the step creates any: the first step compiles its own graph.
    vm::DictObject& state = self.attributes.at("state").as<vm::DictObject>();
    const SourceRef stateSource = Source::child(source, Source::Kind::Attr, "state");
    tracer.guardValue(tracer.wrapSource(self.attributes.at("state"), stateSource));

    // Everything the step could refuse is checked before it changes any real state.
    const auto& realGroups = self.attributes.at("param_groups").as<vm::ListObject>().items;
    for (size_t g = 0; g < realGroups.size(); ++g) {
        const VarRef& group = groups->items.at(g);
        if (*algorithm != Algorithm::Sgd && guardedItem(tracer, group, vm::makeStr("amsgrad")).asBool()) sink.unsupportedOption("amsgrad=True");
        if (*algorithm == Algorithm::Sgd && guardedItem(tracer, group, vm::makeStr("dampening")).asFloat() != 0 &&
            guardedItem(tracer, group, vm::makeStr("momentum")).asFloat() != 0)
            for (const vm::Value& p : paramsOf(realGroups[g]))
                if (tensor::gradOf(p.tensor()).defined() && !state.find(p))
                    sink.unsupportedOption("dampening on its first step (PyTorch's first momentum buffer is the gradient itself)");
    }

    const bool previousMode = tensor::autograd::isGradEnabled();
    recordSetGradEnabled(tracer, false);  // PyTorch's _use_grad_for_differentiable
    for (size_t g = 0; g < realGroups.size(); ++g) {
        const VarRef& group = groups->items.at(g);
        auto read = [&](const char* key) { return guardedItem(tracer, group, vm::makeStr(key)); };
        const Op lr = learningRateOf(tracer, group);
        VarRef params = tracer.getItem(group, tracer.constant(vm::makeStr("params")));
        tracer.guardValue(params);
        const auto& realParams = paramsOf(realGroups[g]);
        vm::optim::SgdHyper sgd;
        vm::optim::AdamHyper adam;
        if (*algorithm == Algorithm::Sgd) {
            sgd = vm::optim::sgdHyperOf(read);
        } else {
            VarRef betas = tracer.getItem(group, tracer.constant(vm::makeStr("betas")));
            tracer.guardValue(betas);
            adam = vm::optim::adamHyperOf(read, [&](size_t i) { return guardedItem(tracer, betas, vm::Value(static_cast<int64_t>(i))); },
                                          *algorithm == Algorithm::AdamW);
        }
        for (size_t i = 0; i < realParams.size(); ++i) {
            const VarRef& param = params->items.at(i);
            const tensor::Tensor grad = tensor::gradOf(realParams[i].tensor());
            VarRef gradVar = tracer.wrapSource(grad.defined() ? vm::makeTensor(grad) : vm::Value(),
                                               Source::child(param->source, Source::Kind::Attr, "grad"));
            if (!grad.defined()) {
                tracer.guardValue(gradVar);  // a parameter without a gradient is skipped, as long as it has none
                continue;
            }
            const SourceRef entry = Source::dictItemAt(stateSource, param->source);
            auto stateTensor = [&](const char* key) {
                vm::Value* stored = state.find(realParams[i])->as<vm::DictObject>().find(vm::makeStr(key));
                return tracer.wrapSource(*stored, Source::dictItem(entry, vm::makeStr(key)));
            };
            if (*algorithm == Algorithm::Sgd) {
                auto buffer = [&](const VarRef& step) {
                    vm::Value* existing = state.find(realParams[i]);
                    vm::Value* stored = existing ? existing->as<vm::DictObject>().find(vm::makeStr("momentum_buffer")) : nullptr;
                    if (stored && !stored->isNone()) return std::pair{stateTensor("momentum_buffer"), false};
                    // The first step's buffer is the step itself: a zero buffer made now, to which the graph adds it.
                    if (!existing) state.set(realParams[i], vm::Value(std::make_shared<vm::DictObject>()));
                    state.find(realParams[i])->as<vm::DictObject>().set(vm::makeStr("momentum_buffer"),
                                                                       vm::makeTensor(tensor::zerosLike(step->value.tensor())));
                    VarRef fresh = stateTensor("momentum_buffer");
                    sink.method("add_", fresh, {step}, {});
                    return std::pair{fresh, true};
                };
                vm::optim::sgdParameterUpdate(sink, param, gradVar, lr, sgd, buffer);
            } else {
                if (!state.find(realParams[i])) state.set(realParams[i], vm::Value(std::make_shared<vm::DictObject>()));
                vm::DictObject& paramState = state.find(realParams[i])->as<vm::DictObject>();
                vm::optim::initAdamState(paramState, realParams[i].tensor(), false);
                // Dynamo keeps the step count on its parameter's device (OptimizerVariable.move_step_if_cpu, and a
                // capturable group creates it there), so the compiled step updates it in device memory instead of
                // copying a cpu scalar in and out of every call.
                const tensor::Tensor& stepCount = paramState.find(vm::makeStr("step"))->tensor();
                if (stepCount.device().isCpu() && !realParams[i].tensor().device().isCpu())
                    paramState.set(vm::makeStr("step"), vm::makeTensor(tensor::to(stepCount, std::nullopt, realParams[i].tensor().device())));
                vm::optim::adamParameterUpdate(sink, param, gradVar, lr, adam, stateTensor("step"), stateTensor("exp_avg"),
                                               stateTensor("exp_avg_sq"), static_cast<const VarRef*>(nullptr), [](const VarRef& count) { return Op(count); });
            }
        }
    }
    recordSetGradEnabled(tracer, previousMode);
    return tracer.constant(vm::Value());
}

}  // namespace eng::capture
