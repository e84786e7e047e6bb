// create_graph=True: a backward pass whose own ops are recorded as autograd ops, so its gradients can be
// differentiated again (gradient penalties, Hessian-vector products), as PyTorch runs derivative formulas as ops.
#pragma once

#include <string_view>

#include "tensor/autograd/grad_mode.h"
#include "tensor/op_recorder.h"

namespace eng::tensor::autograd {

/// While alive: grad mode on, and every runtime op the pass calls (the formulas' ops, the engine's sums, casts and
/// gradient additions) attaches its result to the autograd graph through the op's own derivative.
class CreateGraphScope {
public:
    CreateGraphScope();
    ~CreateGraphScope();
    CreateGraphScope(const CreateGraphScope&) = delete;
    CreateGraphScope& operator=(const CreateGraphScope&) = delete;

private:
    GradModeGuard gradOn_;
    OpRecorderScope recording_;
    bool previous_;
};

/// Whether this thread is inside a create_graph pass (nodes then record their formulas' ops, AccumulateGrad keeps
/// history). Explicit rather than grad mode alone: compiled autograd applies AccumulateGrad with the caller's mode.
bool creatingGraph();

/// Whether a node's formula is made only of recorded ops, so that under create_graph its gradients carry their
/// exact history. Any other node's gradients become the results of a node that raises at a second backward.
bool formulaRecordsItsOps(std::string_view nodeName);

/// What a leaf's .grad becomes under create_graph (PyTorch's AccumulateGrad with grad mode on): a recorded clone of
/// the first gradient, then existing + new, out of place.
Tensor accumulateCreatingGraph(const Tensor& existing, const Tensor& grad);

}  // namespace eng::tensor::autograd
