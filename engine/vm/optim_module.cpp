// torch.optim for the VM: the Optimizer base (param_groups, state, zero_grad) and SGD (momentum, dampening,
// weight decay, Nesterov, maximize), Adam and AdamW (amsgrad, maximize), with PyTorch's update rules and
// argument checks. Updates run on the tensor runtime's own ops, outside autograd, as under torch.no_grad.
#include <fmt/core.h>

#include <cmath>

#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/pointwise.h"
#include "vm/errors.h"
#include "vm/interpreter.h"
#include "vm/optimizer_update.h"
#include "vm/optimizer_state.h"

namespace eng::vm {

namespace {

using tensor::Tensor;

// One hyperparameter of an optimizer's constructor: its name and default.
struct Hyper {
    const char* name;
    Value defaultValue;
};

InstanceObject& selfOf(CallArgs& a) { return a.positional.at(0).as<InstanceObject>(); }

Value dictGet(const Value& dict, const char* key) {
    Value* v = dict.as<DictObject>().find(makeStr(key));
    if (!v) raise("KeyError", fmt::format("'{}'", key));
    return *v;
}

// Binds the constructor's arguments after (self, params) as PyTorch's signature does: positionally in order,
// or by keyword; keywords PyTorch accepts for other implementations (foreach, fused, ...) are accepted and ignored.
std::shared_ptr<DictObject> bindDefaults(Interpreter& vm, CallArgs& a, const char* cls, const std::vector<Hyper>& hypers) {
    auto defaults = std::make_shared<DictObject>();
    for (size_t i = 0; i < hypers.size(); ++i) {
        Value v = hypers[i].defaultValue;
        if (a.positional.size() > i + 2) v = a.positional[i + 2];
        else if (auto k = a.take(hypers[i].name)) v = *k;
        defaults->set(makeStr(hypers[i].name), v);
    }
    if (a.positional.size() > hypers.size() + 2)
        typeError(fmt::format("{}.__init__() takes from 2 to {} positional arguments but {} were given", cls, hypers.size() + 2,
                              a.positional.size()));
    for (const char* ignored : {"foreach", "differentiable", "fused", "capturable"}) a.take(ignored);
    if (!a.keywords.empty())
        typeError(fmt::format("{}.__init__() got an unexpected keyword argument '{}'", cls, a.keywords.front().first));
    (void)vm;
    return defaults;
}

// The constructor's signature for inspect.signature, as CPython's __text_signature__ of a builtin: params, the
// hyperparameters with their defaults, and the implementation keywords bindDefaults accepts.
Value textSignature(Interpreter& vm, const std::vector<Hyper>& hypers) {
    std::string text = "(params";
    for (const Hyper& h : hypers) text += fmt::format(", {}={}", h.name, vm.repr(h.defaultValue));
    return makeStr(text + ", *, foreach=None, capturable=False, differentiable=False, fused=None)");
}

// params: an iterable of tensors (one group) or of dicts (groups with their own options); groups get the
// defaults for what they leave out.
void setParamGroups(Interpreter& vm, InstanceObject& self, const Value& params, const std::shared_ptr<DictObject>& defaults) {
    if (params.is(Kind::Tensor))
        typeError(fmt::format("params argument given to the optimizer should be an iterable of Tensors or dicts, but got {}",
                              "torch.FloatTensor"));
    ValueList items = vm.toList(params);
    if (items.empty()) raise("ValueError", "optimizer got an empty parameter list");
    if (!items.front().is(Kind::Dict)) {
        auto group = std::make_shared<DictObject>();
        group->set(makeStr("params"), makeList(items));
        items = {Value(group)};
    }
    ValueList groups;
    for (const Value& given : items) {
        if (!given.is(Kind::Dict)) typeError("param groups must be dicts");
        auto group = std::make_shared<DictObject>();
        ValueList tensors = vm.toList(dictGet(given, "params"));
        for (const Value& p : tensors)
            if (!p.is(Kind::Tensor))
                typeError(fmt::format("optimizer can only optimize Tensors, but one of the params is {}", vm.classOf(p)->name));
        group->set(makeStr("params"), makeList(tensors));
        for (const auto& [key, value] : defaults->entries())
            if (Value* own = given.as<DictObject>().find(key)) group->set(key, *own);
            else group->set(key, value);
        groups.push_back(Value(group));
    }
    self.attributes["param_groups"] = makeList(std::move(groups));
    self.attributes["defaults"] = Value(defaults);
    self.attributes["state"] = Value(std::make_shared<DictObject>());
}

// The per-parameter state dict (optimizer.state[p]), created empty on first use.
DictObject& stateOf(InstanceObject& self, const Value& param) {
    DictObject& state = self.attributes.at("state").as<DictObject>();
    if (Value* existing = state.find(param)) return existing->as<DictObject>();
    auto fresh = std::make_shared<DictObject>();
    state.set(param, Value(fresh));
    return *fresh;
}

std::string shown(Interpreter& vm, const Value& v) { return vm.repr(v); }

void checkNonNegative(Interpreter& vm, const DictObject& defaults, const char* key, const char* what) {
    const Value v = *const_cast<DictObject&>(defaults).find(makeStr(key));
    if (v.is(Kind::Tensor) && v.tensor().numel() != 1) raise("ValueError", fmt::format("Tensor {} must be 1-element", key));
    const double number = v.is(Kind::Tensor) ? tensor::item(v.tensor()).toDouble() : v.asFloat();
    if (number < 0) raise("ValueError", fmt::format("Invalid {}: {}", what, shown(vm, v)));
}

// step(closure=None): re-evaluates the loss with grad enabled when a closure is given, then updates.
Value runStep(Interpreter& vm, CallArgs& a, const std::function<void(InstanceObject&, const Value& group)>& update) {
    Value loss;
    Value closure = a.positional.size() > 1 ? a.positional[1] : a.take("closure").value_or(Value());
    if (!closure.isNone()) loss = vm.call(closure, {});
    InstanceObject& self = selfOf(a);
    tensor::autograd::GradModeGuard noGrad(false);  // PyTorch's _use_grad_for_differentiable
    for (const Value& group : self.attributes.at("param_groups").as<ListObject>().items) update(self, group);
    return loss;
}

/// The learning rate of a group: a number, or a tensor (then it enters the update as one, as in PyTorch).
optim::Operand<Value> learningRate(const Value& group) {
    Value lr = dictGet(group, "lr");
    if (lr.is(Kind::Tensor)) return lr;
    return lr.asFloat();
}

optim::SgdHyper sgdHyperOf(const Value& group) {
    return optim::sgdHyperOf([&](const char* key) { return dictGet(group, key); });
}

optim::AdamHyper adamHyperOf(const Value& group, bool decoupled) {
    const Value betas = dictGet(group, "betas");
    return optim::adamHyperOf([&](const char* key) { return dictGet(group, key); },
                              [&](size_t i) { return (betas.is(Kind::List) ? betas.as<ListObject>().items : betas.as<TupleObject>().items).at(i); }, decoupled);
}

/// The shared update rules (optimizer_update.h) on the tensor runtime: every op is the registry's, as a script's.
struct EagerSink {
    using Op = optim::Operand<Value>;
    static Value value(const Op& a) { return std::holds_alternative<double>(a) ? Value(std::get<double>(a)) : std::get<Value>(a); }
    Value method(const std::string& name, const Value& self, std::vector<Op> args, std::vector<std::pair<std::string, Op>> kwargs) {
        ValueList positional{self};
        for (const Op& a : args) positional.push_back(value(a));
        KwArgs keywords;
        for (const auto& [key, a] : kwargs) keywords.emplace_back(key, value(a));
        return callOp("Tensor." + name, positional, keywords);
    }
    Value function(const std::string& name, std::vector<Op> args) {
        ValueList positional;
        for (const Op& a : args) positional.push_back(value(a));
        return callOp("torch." + name, positional);
    }
    void runningMaximum(const Value& maximum, const Value& value) {
        tensor::copyInto(maximum.tensor(), tensor::maximum(maximum.tensor(), value.tensor()));
    }
};

void sgdUpdate(InstanceObject& self, const Value& group) {
    const optim::SgdHyper h = sgdHyperOf(group);
    EagerSink sink;
    for (const Value& p : dictGet(group, "params").as<ListObject>().items) {
        const Tensor grad = tensor::gradOf(p.tensor());
        if (!grad.defined()) continue;
        auto buffer = [&](const Value& step) {
            DictObject& state = stateOf(self, p);
            Value* existing = state.find(makeStr("momentum_buffer"));
            if (existing && !existing->isNone()) return std::pair{*existing, false};
            Value fresh = makeTensor(tensor::clone(step.tensor()));
            state.set(makeStr("momentum_buffer"), fresh);
            return std::pair{fresh, true};
        };
        optim::sgdParameterUpdate(sink, p, makeTensor(grad), learningRate(group), h, buffer);
    }
}

// Adam and AdamW differ only in how weight decay enters: into the gradient (Adam) or decoupled (AdamW).
void adamUpdate(InstanceObject& self, const Value& group, bool decoupled) {
    const optim::AdamHyper h = adamHyperOf(group, decoupled);
    EagerSink sink;
    for (const Value& p : dictGet(group, "params").as<ListObject>().items) {
        const Tensor grad = tensor::gradOf(p.tensor());
        if (!grad.defined()) continue;
        DictObject& state = stateOf(self, p);
        optim::initAdamState(state, p.tensor(), h.amsgrad);
        const Value maxSq = h.amsgrad ? *state.find(makeStr("max_exp_avg_sq")) : Value();
        optim::adamParameterUpdate(sink, p, makeTensor(grad), learningRate(group), h, *state.find(makeStr("step")),
                                   *state.find(makeStr("exp_avg")), *state.find(makeStr("exp_avg_sq")), h.amsgrad ? &maxSq : nullptr,
                                   [](const Value& count) { return EagerSink::Op(tensor::item(count.tensor()).toDouble()); });
    }
}

void checkAdam(Interpreter& vm, const DictObject& defaults) {
    checkNonNegative(vm, defaults, "lr", "learning rate");
    checkNonNegative(vm, defaults, "eps", "epsilon value");
    const Value betas = *const_cast<DictObject&>(defaults).find(makeStr("betas"));
    const ValueList items = vm.toList(betas);
    for (size_t i = 0; i < 2 && i < items.size(); ++i)
        if (items[i].asFloat() < 0 || items[i].asFloat() >= 1)
            raise("ValueError", fmt::format("Invalid beta parameter at index {}: {}", i, shown(vm, items[i])));
    checkNonNegative(vm, defaults, "weight_decay", "weight_decay value");
}

void defineOptimizerBase(Interpreter& vm, ModuleObject& optim) {
    auto base = vm.defineClass("Optimizer", "object");
    base->module = "torch.optim.optimizer";
    optim.attributes["Optimizer"] = Value(base);
    base->dict["zero_grad"] = makeNative("zero_grad", [](Interpreter& m, CallArgs& a) {
        const bool setToNone = m.truthy(a.positional.size() > 1 ? a.positional[1] : a.take("set_to_none").value_or(Value(true)));
        for (const Value& group : selfOf(a).attributes.at("param_groups").as<ListObject>().items)
            for (const Value& p : dictGet(group, "params").as<ListObject>().items) {
                const Tensor grad = tensor::gradOf(p.tensor());
                if (!grad.defined()) continue;
                if (setToNone) tensor::setGrad(p.tensor(), Tensor());
                else tensor::fillInPlace(grad, tensor::Scalar(0.0));
            }
        return Value();
    });
    base->dict["add_param_group"] = makeNative("add_param_group", [](Interpreter& m, CallArgs& a) {
        InstanceObject& self = selfOf(a);
        ListObject& groups = self.attributes.at("param_groups").as<ListObject>();
        const Value previous = makeList(groups.items);
        setParamGroups(m, self, makeList({a.positional.at(1)}), self.attributes.at("defaults").ref<DictObject>());
        ValueList merged = previous.as<ListObject>().items;
        for (const Value& g : self.attributes.at("param_groups").as<ListObject>().items) merged.push_back(g);
        self.attributes["param_groups"] = makeList(std::move(merged));
        return Value();
    });
}

}  // namespace

void installOptim(Interpreter& vm, ModuleObject& torch) {
    auto optim = std::make_shared<ModuleObject>("torch.optim");
    vm.modules()["torch.optim"] = Value(optim);
    torch.attributes["optim"] = Value(optim);
    defineOptimizerBase(vm, *optim);

    auto sgd = vm.defineClass("SGD", "Optimizer");
    sgd->module = "torch.optim.sgd";
    optim->attributes["SGD"] = Value(sgd);
    const std::vector<Hyper> sgdHypers = {{"lr", Value(0.001)},         {"momentum", Value(0)},   {"dampening", Value(0)},
                                          {"weight_decay", Value(0)},   {"nesterov", Value(false)}, {"maximize", Value(false)}};
    sgd->dict["__text_signature__"] = textSignature(vm, sgdHypers);
    sgd->dict["__init__"] = makeNative("__init__", [sgdHypers](Interpreter& m, CallArgs& a) {
        const Value params = a.positional.size() > 1 ? a.positional[1] : a.take("params").value_or(Value());
        auto defaults = bindDefaults(m, a, "SGD", sgdHypers);
        checkNonNegative(m, *defaults, "lr", "learning rate");
        checkNonNegative(m, *defaults, "momentum", "momentum value");
        checkNonNegative(m, *defaults, "weight_decay", "weight_decay value");
        if (m.truthy(*defaults->find(makeStr("nesterov"))) &&
            (defaults->find(makeStr("momentum"))->asFloat() <= 0 || defaults->find(makeStr("dampening"))->asFloat() != 0))
            raise("ValueError", "Nesterov momentum requires a momentum and zero dampening");
        setParamGroups(m, selfOf(a), params, defaults);
        return Value();
    });
    sgd->dict["step"] = makeNative("step", [](Interpreter& m, CallArgs& a) { return runStep(m, a, sgdUpdate); });

    for (const char* name : {"Adam", "AdamW"}) {
        const bool decoupled = std::string_view(name) == "AdamW";
        auto cls = vm.defineClass(name, "Optimizer");
        cls->module = decoupled ? "torch.optim.adamw" : "torch.optim.adam";
        optim->attributes[name] = Value(cls);
        const std::vector<Hyper> hypers = {{"lr", Value(0.001)},
                                           {"betas", makeTuple({Value(0.9), Value(0.999)})},
                                           {"eps", Value(1e-8)},
                                           {"weight_decay", decoupled ? Value(0.01) : Value(0)},
                                           {"amsgrad", Value(false)},
                                           {"maximize", Value(false)}};
        cls->dict["__text_signature__"] = textSignature(vm, hypers);
        cls->dict["__init__"] = makeNative("__init__", [hypers, name](Interpreter& m, CallArgs& a) {
            const Value params = a.positional.size() > 1 ? a.positional[1] : a.take("params").value_or(Value());
            auto defaults = bindDefaults(m, a, name, hypers);
            checkAdam(m, *defaults);
            setParamGroups(m, selfOf(a), params, defaults);
            return Value();
        });
        cls->dict["step"] = makeNative("step", [decoupled](Interpreter& m, CallArgs& a) {
            return runStep(m, a, [decoupled](InstanceObject& self, const Value& group) { adamUpdate(self, group, decoupled); });
        });
    }
}

}  // namespace eng::vm
