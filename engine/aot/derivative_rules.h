// The derivatives AOT Autograd traces into the joint graph, by the op name a graph node calls (`mul`, `linear`,
// `layer_norm`): each rule adds the backward nodes of one forward node, from its output's gradient, as the
// eager runtime's derivative formulas (engine/tensor/autograd) compute them.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "aot/graph_builder.h"

namespace eng::aot {

/// One forward node being differentiated: its arguments, the gradient of its result, and where the gradients
/// of its inputs go.
class GradContext {
public:
    using Accumulate = std::function<void(fx::Node* input, fx::Node* gradient)>;
    using AccumulateItem = std::function<void(fx::Node* several, int64_t index, fx::Node* gradient)>;
    using RequiresGrad = std::function<bool(const fx::Node*)>;
    GradContext(GraphBuilder& builder, fx::Node& forwardNode, fx::Node* resultGrad, std::map<int64_t, fx::Node*> resultItemGrads,
                Accumulate accumulate, AccumulateItem accumulateItem, RequiresGrad requiresGrad)
        : b(builder), node(forwardNode), grad(resultGrad), itemGrads(std::move(resultItemGrads)), accumulate_(std::move(accumulate)),
          accumulateItem_(std::move(accumulateItem)), requiresGrad_(std::move(requiresGrad)) {}

    GraphBuilder& b;
    fx::Node& node;   // the forward node (its example is the result)
    fx::Node* grad;   // the gradient of its result (null for ops with several results)
    std::map<int64_t, fx::Node*> itemGrads;  // ops with several results (split, chunk, unbind): by item

    /// The argument bound to `position` / keyword `name` (null when absent).
    const fx::Arg* arg(size_t position, const std::string& name) const;
    /// The tensor node bound there when it requires grad (else null: nothing to send a gradient to).
    fx::Node* differentiable(size_t position, const std::string& name) const;
    /// The node bound there (any value), or null when it is a constant or absent.
    fx::Node* nodeArg(size_t position, const std::string& name) const;
    /// A constant number argument; `fallback` when absent; throws AotUnsupported when it is a graph value.
    double number(size_t position, const std::string& name, std::optional<double> fallback) const;
    /// A constant dim list (an int or a list of ints); nullopt when absent or None.
    std::optional<std::vector<int64_t>> dims(size_t position, const std::string& name) const;
    std::string text(size_t position, const std::string& name, const std::string& fallback) const;
    int64_t rank() const;
    /// Whether `value` carries a gradient (an input that requires grad, or a value computed from one).
    bool requiresGrad(const fx::Node* value) const { return requiresGrad_(value); }
    /// Sends `gradient` to `input`, summed over broadcast dimensions down to the input's shape.
    void send(fx::Node* input, fx::Node* gradient);
    /// Sends the gradient of item `index` of `several` (a getitem of a split's result).
    void sendItem(fx::Node* several, int64_t index, fx::Node* gradient) { accumulateItem_(several, index, gradient); }
    [[noreturn]] void unsupported(const std::string& why) const;

private:
    Accumulate accumulate_;
    AccumulateItem accumulateItem_;
    RequiresGrad requiresGrad_;
};

using GradRule = std::function<void(GradContext&)>;

/// Number of elements a reduction over `dims` of `input` combines: a constant, or a SymInt product node.
fx::Arg reducedCount(GradContext& ctx, const fx::Node& input, const std::vector<int64_t>& dims);

/// The rule for `op`, or null.
const GradRule* findGradRule(std::string_view op);
/// Ops whose several results (a tuple of tensors) get gradients item by item: split, chunk, unbind.
bool hasSeveralDifferentiableResults(std::string_view op);
/// On CUDA, a training graph's scaled_dot_product_attention (16-bit 4-D q/k/v of one shape, static, no mask or
/// dropout; `node` is the captured call, its arguments mapped through `remap`) becomes
/// `torch._flash_attention_forward(q, k, v, is_causal, scale)` and its two getitems, the output and each row's
/// logsumexp, as PyTorch's _scaled_dot_product_flash_attention: the partitioner saves the logsumexp (the forward is
/// not recomputed) and the flash backward reads it. Returns the output's getitem, with the new nodes appended to
/// `added` in order; null (nothing added) for any other node.
fx::Node* flashAttentionWithStatistics(GraphBuilder& b, const fx::Node& node, const std::map<const fx::Node*, fx::Node*>& remap,
                                       std::vector<fx::Node*>& added);
/// Ops whose results carry no gradient (detach, *_like, argmax; comparisons give bool results, which never do).
bool passesNoGradient(std::string_view op);

}  // namespace eng::aot
