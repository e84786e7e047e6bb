// layer_norm in a training graph as PyTorch's native_layer_norm: the forward returns each row's mean and rstd beside
// the output, the partition saves them, and the backward normalises from them instead of reducing the rows again.
#pragma once

#include <map>
#include <vector>

#include "aot/derivative_rules.h"

namespace eng::aot {

/// The forward of a captured `layer_norm` node whose input or parameters require grad: `native_layer_norm` and its
/// three items (output, mean, rstd), appended to `added` in order; returns the output item.
fx::Node* nativeLayerNormForward(GraphBuilder& b, const fx::Node& layerNorm, const std::map<const fx::Node*, fx::Node*>& remap,
                                 std::vector<fx::Node*>& added);

/// The derivative of native_layer_norm from its saved statistics (PyTorch's native_layer_norm_backward): the input's
/// gradient in one pass over each row (two row sums), the weight's and bias's as column sums over the rows.
void nativeLayerNormRule(GradContext& ctx);

}  // namespace eng::aot
