// The table of view ops, expanded from view_ops.def.
#include "tensor/view_ops.h"

#include <algorithm>

namespace eng::tensor {

namespace {

constexpr ViewOp kViewOps[] = {
#define CWB_VIEW_OP(name, aliasing, example) {#name, ViewAliasing::aliasing, example},
#include "tensor/view_ops.def"
};

}  // namespace

std::span<const ViewOp> viewOps() { return kViewOps; }

const ViewOp* findViewOp(std::string_view name) {
    auto found = std::find_if(std::begin(kViewOps), std::end(kViewOps), [name](const ViewOp& op) { return op.name == name; });
    return found == std::end(kViewOps) ? nullptr : found;
}

}  // namespace eng::tensor
