// The derivative table (built once from every family's registrations) and the helpers formulas share.
#include "tensor/autograd/derivatives.h"

#include <algorithm>

namespace eng::tensor::autograd {

const DerivativeTable& DerivativeTable::instance() {
    static const DerivativeTable table = [] {
        DerivativeTable t;
        registerPointwiseDerivatives(t);
        registerReductionDerivatives(t);
        registerShapeDerivatives(t);
        registerIndexingDerivatives(t);
        registerLinalgDerivatives(t);
        registerNnDerivatives(t);
        return t;
    }();
    return table;
}

void DerivativeTable::def(const std::vector<std::string>& schemaNames, Derivative derivative) {
    for (const std::string& name : schemaNames) table_[name] = derivative;
}

const Derivative* DerivativeTable::find(std::string_view schemaName) const {
    auto it = table_.find(std::string(schemaName));
    return it == table_.end() ? nullptr : &it->second;
}

Tensor tensorArg(const Args& args, size_t i) { return i < args.size() && args[i].isTensor() ? args.tensor(i) : Tensor(); }

Value recordSimple(const DerivativeCall& call, const std::string& nodeName, const std::vector<size_t>& inputs,
                   BackwardFormula formula, const Saves& saves) {
    Value result = call.forward(call.args);
    std::vector<Tensor> inputTensors;
    for (size_t i : inputs) inputTensors.push_back(tensorArg(call.args, i));
    std::vector<Tensor> saved(inputTensors.size() + 1);
    for (size_t k = 0; k < inputTensors.size(); ++k)
        if (!saves.inputs || std::find(saves.inputs->begin(), saves.inputs->end(), k) != saves.inputs->end()) saved[k] = inputTensors[k];
    if (saves.result) saved.back() = result.toTensor();
    recordOp(nodeName, inputTensors, {result.toTensor()}, saved, std::move(formula));
    return result;
}

}  // namespace eng::tensor::autograd
