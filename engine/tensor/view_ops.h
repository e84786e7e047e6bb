// The view ops of the eager runtime (view_ops.def) as a table: which ops may return a tensor sharing their
// input's storage, so that in-place writes through the result reach the input.
#pragma once

#include <span>
#include <string_view>

namespace eng::tensor {

enum class ViewAliasing {
    View,               // always a view of its first argument
    SelfWhenUnchanged,  // its argument itself when it changes nothing (dtype, device, layout), else a copy
};

struct ViewOp {
    std::string_view name;     // the Tensor method, torch function or attribute; "getitem" for x[...]
    ViewAliasing aliasing;
    std::string_view example;  // a call on a contiguous 4x4 float32 x (see view_ops.def)
};

/// Every view op, in view_ops.def's order.
std::span<const ViewOp> viewOps();
/// The view op called `name`, or null.
const ViewOp* findViewOp(std::string_view name);

}  // namespace eng::tensor
