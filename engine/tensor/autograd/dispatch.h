// The autograd seam of the op registry: every bound registry call goes through dispatch(), which runs the
// kernel directly when nothing requires grad (or grad mode is off) and otherwise records the call's node.
#pragma once

#include "tensor/registry.h"

namespace eng::tensor::autograd {

Value dispatch(const OpEntry& entry, const OpOverload& overload, const Args& args);

}  // namespace eng::tensor::autograd
