// The per-parameter update rules of torch.optim's SGD, Adam and AdamW, written once over an op sink: the eager
// optimizer (optim_module.cpp) runs them on the tensor runtime, the capture engine records them into the graph of
// a compiled step (capture/symbolic_eval_optimizer.cpp), so a compiled step computes what an eager one does.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace eng::vm::optim {

/// A tensor of the sink (T) or a Python number. Numbers fold in double, as PyTorch's eager step computes its bias
/// corrections from `step.item()`; a compiled step keeps the step count a tensor, so they become graph nodes.
template <class T>
using Operand = std::variant<T, double>;

struct SgdHyper {
    double momentum = 0, dampening = 0, weightDecay = 0;
    bool nesterov = false, maximize = false;
};

struct AdamHyper {
    double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0;
    bool amsgrad = false, maximize = false, decoupled = false;  // decoupled: AdamW
};

/// Arithmetic on operands through a sink `S` with
///   T S::method(const std::string& name, const T& self, std::vector<Operand<T>> args, std::vector<std::pair<std::string, Operand<T>>> kwargs)
///   T S::function(const std::string& name, std::vector<Operand<T>> args)   (torch.NAME)
template <class S, class T>
struct Arith {
    S& sink;
    using Op = Operand<T>;
    using Kw = std::vector<std::pair<std::string, Op>>;

    static bool isNumber(const Op& a) { return std::holds_alternative<double>(a); }
    static double number(const Op& a) { return std::get<double>(a); }
    static const T& tensor(const Op& a) { return std::get<T>(a); }

    T call(const std::string& name, const T& self, std::vector<Op> args = {}, Kw kwargs = {}) {
        return sink.method(name, self, std::move(args), std::move(kwargs));
    }
    Op mul(const Op& a, const Op& b) {
        if (isNumber(a) && isNumber(b)) return number(a) * number(b);
        return isNumber(a) ? call("mul", tensor(b), {a}) : call("mul", tensor(a), {b});
    }
    /// a - b; `1 - t` is `t.neg().add(1)` (both exact, as the subtraction).
    Op sub(const Op& a, const Op& b) {
        if (isNumber(a) && isNumber(b)) return number(a) - number(b);
        if (isNumber(a)) return call("add", call("neg", tensor(b)), {a});
        return call("sub", tensor(a), {b});
    }
    /// a / b; a number over a tensor divides a tensor of that number, so the quotient rounds once.
    Op div(const Op& a, const Op& b) {
        if (isNumber(a) && isNumber(b)) return number(a) / number(b);
        if (isNumber(a)) return call("div", sink.function("full_like", {b, a}), {b});
        return call("div", tensor(a), {b});
    }
    Op pow(double base, const Op& exponent) {
        if (isNumber(exponent)) return std::pow(base, number(exponent));
        return sink.function("pow", {base, exponent});
    }
    Op sqrt(const Op& a) { return isNumber(a) ? Op(std::sqrt(number(a))) : Op(call("sqrt", tensor(a))); }
    Op neg(const Op& a) { return isNumber(a) ? Op(-number(a)) : Op(call("neg", tensor(a))); }
    /// self += scale * x, in place: `add_(x, alpha=scale)` for a number, `add_(x.mul(scale))` for a tensor.
    void addScaled(const T& self, const T& x, const Op& scale) {
        if (isNumber(scale)) call("add_", self, {x}, {{"alpha", scale}});
        else call("add_", self, {call("mul", x, {scale})});
    }
};

/// One SGD step of one parameter. `momentumBuffer(step)` returns the parameter's buffer, and whether it is new: a new
/// buffer holds `step` already (PyTorch's `torch.clone(grad).detach()` on the first step).
template <class S, class T, class BufferFn>
void sgdParameterUpdate(S& sink, const T& param, const T& grad, const Operand<T>& lr, const SgdHyper& h, BufferFn momentumBuffer) {
    Arith<S, T> a{sink};
    T step = h.maximize ? a.call("neg", grad) : grad;
    if (h.weightDecay != 0) step = a.call("add", step, {param}, {{"alpha", h.weightDecay}});
    if (h.momentum != 0) {
        auto [buffer, fresh] = momentumBuffer(step);
        if (!fresh) {
            a.call("mul_", buffer, {h.momentum});
            a.call("add_", buffer, {step}, {{"alpha", 1 - h.dampening}});
        }
        step = h.nesterov ? a.call("add", step, {buffer}, {{"alpha", h.momentum}}) : buffer;
    }
    a.addScaled(param, step, a.neg(lr));
}

/// One Adam/AdamW step of one parameter whose state exists (step count, first and second moments; the running
/// maximum of the second moment with amsgrad). `stepValue(stepCount)` reads the incremented count: a number
/// eagerly, the tensor itself when compiled.
template <class S, class T, class StepFn>
void adamParameterUpdate(S& sink, const T& param, const T& grad, const Operand<T>& lr, const AdamHyper& h, const T& stepCount,
                         const T& expAvg, const T& expAvgSq, const T* maxExpAvgSq, StepFn stepValue) {
    Arith<S, T> a{sink};
    a.call("add_", stepCount, {1.0});
    const Operand<T> step = stepValue(stepCount);
    T g = h.maximize ? a.call("neg", grad) : grad;
    if (h.weightDecay != 0) {
        if (h.decoupled) {
            const Operand<T> keep = a.sub(1.0, a.mul(lr, h.weightDecay));
            a.call("mul_", param, {keep});
        } else {
            g = a.call("add", g, {param}, {{"alpha", h.weightDecay}});
        }
    }
    // exp_avg.lerp_(g, 1 - beta1), as lerp computes it for a weight below one half.
    a.call("add_", expAvg, {a.call("sub", g, {expAvg})}, {{"alpha", 1 - h.beta1}});
    a.call("mul_", expAvgSq, {h.beta2});
    a.call("add_", expAvgSq, {a.call("mul", g, {g})}, {{"alpha", 1 - h.beta2}});
    const Operand<T> biasCorrection1 = a.sub(1.0, a.pow(h.beta1, step));
    const Operand<T> biasCorrection2Sqrt = a.sqrt(a.sub(1.0, a.pow(h.beta2, step)));
    T second = expAvgSq;
    if (maxExpAvgSq) {
        sink.runningMaximum(*maxExpAvgSq, expAvgSq);
        second = *maxExpAvgSq;
    }
    const T denominator = a.call("add", a.call("div", a.call("sqrt", second), {biasCorrection2Sqrt}), {h.eps});
    a.addScaled(param, a.call("div", expAvg, {denominator}), a.neg(a.div(lr, biasCorrection1)));
}

}  // namespace eng::vm::optim
