// Which arguments a graph node's op writes, read from the op registry's schema marks (tensor/registry.h:
// `Tensor(a!)`, in-place names, `if training`/`if inplace` flags): the one answer that functionalisation, the
// lowering, autocast's replay and the tracer share, so none of them keeps its own list of in-place ops.
#pragma once

#include <string>
#include <vector>

#include "fx/graph_ir.h"

namespace eng::fx {

/// The registry name of the op a call node applies: call_method add_ -> Tensor.add_, operator.iadd ->
/// Tensor.__iadd__, operator.setitem -> Tensor.__setitem__, torch.nn.functional.relu -> F.relu, torch.relu_ ->
/// torch.relu_; empty when the node is no registry op.
std::string registryNameOf(const Node& node);

struct WrittenArgument {
    const Arg* arg = nullptr;  // the node's argument, positional or keyword
    std::string param;         // the schema's name for it (self, running_mean)
    size_t index = 0;          // its position in the schema (0: self, the tensor the op returns)
    std::string when;          // the bool argument that gates the write (training, inplace); empty: always
    bool certain = false;      // written on this call: ungated, or its flag is the constant True
};

/// The arguments `node` writes, or may write (a gating flag that is not the constant False), in schema order.
std::vector<WrittenArgument> writtenArguments(const Node& node);

/// `node` writes its first argument for certain and nothing else: x.add_(y), x += y, torch.relu_(x),
/// F.relu(x, inplace=True). An in-place operator on a number (`n += 1`) counts too: callers look at the example.
bool writesOnlySelf(const Node& node);

}  // namespace eng::fx
