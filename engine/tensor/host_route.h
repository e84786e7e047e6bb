// The one place where ops without a CUDA kernel run on CUDA tensors: their operands are copied to the
// host, the CPU kernel runs, and the result is copied back to the device (in-place ops write back into
// the device tensor). The same CPU kernel computes both ways, so results never differ silently; the ops
// that take this route are listed in README.md ("runs through host copies").
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor::hostroute {

// A host copy of a CUDA tensor; CPU and undefined tensors pass through unchanged.
Tensor toHost(const Tensor& t);
std::vector<Tensor> toHost(const std::vector<Tensor>& tensors);
// A host result moved to `device` (cpu: returned as is).
Tensor backTo(Device device, const Tensor& hostResult);
// Writes the host copy that an in-place CPU kernel updated back into the device tensor it came from.
void writeBack(const Tensor& deviceTensor, const Tensor& hostCopy);

}  // namespace eng::tensor::hostroute
