// The derivative table: for each differentiable op (by schema name, e.g. "sin", "__add__", "layer_norm"), how a
// call runs its forward and attaches the result to the autograd graph. One registration file per op family.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tensor/autograd/node.h"
#include "tensor/registry.h"

namespace eng::tensor::autograd {

// One call of a differentiable op with grad mode on and some input requiring grad. `forward` runs the kernel
// (grad mode is off while it does). For in-place ops `inPlace` is set, args[0] is a copy of self as it was
// before the op (carrying self's old history) and `forward` returns self, already updated.
struct DerivativeCall {
    const Schema& schema;
    const Args& args;
    const std::function<Value(const Args&)>& forward;
    bool inPlace = false;
};
using Derivative = std::function<Value(const DerivativeCall&)>;

class DerivativeTable {
public:
    static const DerivativeTable& instance();
    void def(const std::vector<std::string>& schemaNames, Derivative derivative);
    const Derivative* find(std::string_view schemaName) const;

private:
    std::unordered_map<std::string, Derivative> table_;
};

// Which tensors a formula reads, so that only those are saved (and version-checked): `inputs` lists positions in
// the recorded inputs (nullopt: all of them), `result` the op's result. Saving exactly what PyTorch saves keeps
// in-place changes to anything else legal, and a node that saved nothing can run again after a backward
// without retain_graph.
struct Saves {
    std::optional<std::vector<size_t>> inputs;
    bool result = false;
};
inline const Saves kSaveInputs{};
inline const Saves kSaveNothing{std::vector<size_t>{}, false};
inline const Saves kSaveResult{std::vector<size_t>{}, true};
inline const Saves kSaveAll{std::nullopt, true};

// Single-output ops: runs the forward, then records a node over `inputs` (indices into args that hold tensors;
// others are skipped). saved[k] is inputs[k] and saved.back() the result, undefined unless `saves` keeps them.
Value recordSimple(const DerivativeCall& call, const std::string& nodeName, const std::vector<size_t>& inputs,
                   BackwardFormula formula, const Saves& saves = kSaveInputs);
// args[i] as a tensor when it is one, else undefined (scalar operands of binary ops).
Tensor tensorArg(const Args& args, size_t i);

// The derivative of an op that reads or makes complex tensors (derivatives_complex.cpp); nullptr when its
// formula is written for real tensors only.
const Derivative* complexDerivative(std::string_view schemaName);

// Registration of each family's formulas (one file each).
void registerPointwiseDerivatives(DerivativeTable& table);
void registerReductionDerivatives(DerivativeTable& table);
void registerShapeDerivatives(DerivativeTable& table);
void registerIndexingDerivatives(DerivativeTable& table);
void registerLinalgDerivatives(DerivativeTable& table);
void registerNnDerivatives(DerivativeTable& table);

}  // namespace eng::tensor::autograd
