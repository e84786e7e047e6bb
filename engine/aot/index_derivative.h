// The derivative of basic indexing of a tensor (ints, slices of step 1, None, `...`; static sizes) for the joint graph.
#pragma once

#include "aot/derivative_rules.h"

namespace eng::aot {

/// Sends the gradient of `ctx.node` = x[index] to `x`; AotUnsupported for advanced or dynamic indexing.
void basicIndexRule(GradContext& ctx, fx::Node* x);

}  // namespace eng::aot
