// What torch.optim's SGD, Adam and AdamW keep: which algorithm an optimizer runs, the hyperparameters of a param
// group and a parameter's state. Read by the eager step (optim_module.cpp) and by the capture engine's compiled
// step (capture/symbolic_eval_optimizer.cpp), each through its own reader (the capture engine guards every read).
#pragma once

#include <optional>
#include <string>

#include "tensor/creation.h"
#include "vm/optimizer_update.h"
#include "vm/value.h"

namespace eng::vm::optim {

enum class Algorithm { Sgd, Adam, AdamW };

/// The algorithm of an instance of torch.optim.SGD / Adam / AdamW (or of a subclass that keeps their step).
inline std::optional<Algorithm> algorithmOf(const Value& optimizer) {
    if (!optimizer.is(Kind::Instance)) return std::nullopt;
    for (const ClassObject* cls : optimizer.as<InstanceObject>().cls->mro()) {
        if (cls->module.rfind("torch.optim.", 0) != 0) {
            if (cls->dict.contains("step")) return std::nullopt;  // a user step overrides theirs
            continue;
        }
        if (cls->name == "SGD") return Algorithm::Sgd;
        if (cls->name == "Adam") return Algorithm::Adam;
        if (cls->name == "AdamW") return Algorithm::AdamW;
    }
    return std::nullopt;
}

/// `read(key)` gives the group's value for key (a Value).
template <class Read>
SgdHyper sgdHyperOf(Read read) {
    SgdHyper h;
    h.momentum = read("momentum").asFloat();
    h.dampening = read("dampening").asFloat();
    h.weightDecay = read("weight_decay").asFloat();
    h.nesterov = read("nesterov").asBool();
    h.maximize = read("maximize").asBool();
    return h;
}

/// `readBeta(index)` gives betas[index].
template <class Read, class ReadBeta>
AdamHyper adamHyperOf(Read read, ReadBeta readBeta, bool decoupled) {
    AdamHyper h;
    h.beta1 = readBeta(0).asFloat();
    h.beta2 = readBeta(1).asFloat();
    h.eps = read("eps").asFloat();
    h.weightDecay = read("weight_decay").asFloat();
    h.amsgrad = read("amsgrad").asBool();
    h.maximize = read("maximize").asBool();
    h.decoupled = decoupled;
    return h;
}

/// A parameter's Adam state on its first step (PyTorch's `_init_group`): a float32 step count on the cpu and zero
/// moments. Nothing happens when it exists.
inline void initAdamState(DictObject& state, const tensor::Tensor& param, bool amsgrad) {
    if (state.find(makeStr("step"))) return;
    state.set(makeStr("step"), makeTensor(tensor::scalarTensor(tensor::Scalar(0.0), tensor::DType::Float32)));
    state.set(makeStr("exp_avg"), makeTensor(tensor::zerosLike(param)));
    state.set(makeStr("exp_avg_sq"), makeTensor(tensor::zerosLike(param)));
    if (amsgrad) state.set(makeStr("max_exp_avg_sq"), makeTensor(tensor::zerosLike(param)));
}

}  // namespace eng::vm::optim
