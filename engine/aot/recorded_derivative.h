// The derivative of one forward node taken from the eager runtime itself: the op runs on its example values with
// grad mode on, and its autograd node's backward formula (engine/tensor/autograd) runs with the op recorder
// installed, so every runtime op the formula calls becomes a node of the joint graph (make_fx through autograd).
#pragma once

#include "aot/derivative_rules.h"

namespace eng::aot {

/// Sends the gradients of `ctx.node`'s inputs as the eager autograd computes them, recorded as graph nodes.
/// Throws AotUnsupported (with why) when the eager derivative cannot be recorded exactly: the op has no derivative,
/// records several autograd nodes, or its formula calls a runtime op without a recording hook.
void recordEagerDerivative(GradContext& ctx, vm::Interpreter& vm);

}  // namespace eng::aot
