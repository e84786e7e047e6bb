// Helpers shared by the op registration files: wrapping results as Values and reading factory options.
#pragma once

#include <vector>

#include "tensor/creation.h"
#include "tensor/registry.h"

namespace eng::tensor {

inline Value tupleOf(const std::vector<Tensor>& tensors) {
    ValueList items(tensors.begin(), tensors.end());
    return Value::tuple(std::move(items));
}

inline Value noneValue() { return Value(); }

// The keyword tail of factory schemas and the options it carries (dtype, device, requires_grad at the given
// parameter positions).
inline constexpr const char* kFactoryTail =
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool requires_grad=False";

inline TensorOptions factoryOptions(const Args& a, size_t dtypeIndex) {
    TensorOptions options;
    options.dtype = a.optDType(dtypeIndex);
    options.device = a.optDevice(dtypeIndex + 2).value_or(kCpu);
    options.requiresGrad = a.boolean(dtypeIndex + 4);
    return options;
}

}  // namespace eng::tensor
