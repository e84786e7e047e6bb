// The naming rules of ops that write their first argument, in one place: PyTorch's in-place variants (`add_`,
// `requires_grad_`: one trailing underscore, not a dunder or a Python operator function such as `operator.and_`),
// Python's augmented-assignment dunders (`__iadd__`) and `__setitem__`. The op registry marks self written by them.
#pragma once

#include <string_view>

#include "ops/operators.h"

namespace eng::ops {

/// `add_`, `requires_grad_`: the in-place spelling of a method or function (`__add__` is not).
constexpr bool hasInPlaceSuffix(std::string_view name) {
    return name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_';
}

/// An in-place variant that writes its tensor's data: every one but `requires_grad_`, which sets a flag.
constexpr bool writesTensorData(std::string_view name) { return hasInPlaceSuffix(name) && name != "requires_grad_"; }

/// `__iadd__`, `__iand__`: the dunder of an augmented assignment (`x += y`), which updates its left operand.
constexpr bool isAugmentedDunder(std::string_view name) {
    if (!name.starts_with("__i") || !name.ends_with("__") || name.size() < 6) return false;
    const std::string_view dunderName = name.substr(3, name.size() - 5);
    for (const BinaryOperatorInfo& op : kBinaryOperators)
        if (op.dunder == dunderName) return true;
    return false;
}

/// A registry schema named `name` writes its first parameter (self): an in-place variant that writes data, an
/// augmented-assignment dunder or `__setitem__`.
constexpr bool schemaWritesSelf(std::string_view name) {
    return writesTensorData(name) || isAugmentedDunder(name) || name == "__setitem__";
}

}  // namespace eng::ops
