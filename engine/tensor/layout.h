// Tensor layouts: every tensor here is strided, so one name serves Tensor.layout and torch.strided.
#pragma once

namespace eng::tensor {

inline constexpr const char* kStridedLayout = "torch.strided";

}  // namespace eng::tensor
