// repr/str of tensors exactly as PyTorch prints them: the float formatter's int/fixed/scientific modes, padding
// to a common width, line wrapping at 80 columns, "..." summarisation above 1000 elements, and the suffixes.
#pragma once

#include <optional>
#include <string>

#include "tensor/tensor.h"

namespace eng::tensor {

// torch.set_printoptions; precision 4, threshold 1000, edgeitems 3, linewidth 80 by default.
struct PrintOptions {
    int precision = 4;
    int64_t threshold = 1000;
    int64_t edgeitems = 3;
    int64_t linewidth = 80;
    std::optional<bool> sciMode;
};
PrintOptions& printOptions();

// What print(t) and repr(t) show, e.g. "tensor([1., 2.])" or "tensor([1, 2], dtype=torch.int32)".
// gradFnName, when set, adds "grad_fn=<...>" instead of "requires_grad=True"; by default a tensor recorded by
// autograd shows its own grad_fn's name.
std::string repr(const Tensor& t, const std::optional<std::string>& gradFnName = std::nullopt);

}  // namespace eng::tensor
