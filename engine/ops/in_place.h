// The naming rule of PyTorch's in-place variants (`add_`, `mul_`, `requires_grad_`), in one place: a name that
// ends in one underscore, not a dunder (`__add__`) or a Python operator name (`and_` is `operator.and_`'s).
#pragma once

#include <string_view>

namespace eng::ops {

/// `add_`, `requires_grad_`: the in-place spelling of a method or function (`__add__` is not).
constexpr bool hasInPlaceSuffix(std::string_view name) {
    return name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_';
}

/// An in-place variant that writes its tensor's data: every one but `requires_grad_`, which sets a flag.
constexpr bool writesTensorData(std::string_view name) { return hasInPlaceSuffix(name) && name != "requires_grad_"; }

}  // namespace eng::ops
