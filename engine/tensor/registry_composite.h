// Helpers shared by the files that define composite ops (registry_composite*.cpp): registry calls that autograd
// records, and the registrar that marks each schema as composite.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/registry.h"

namespace eng::tensor::composite {

inline Value op(std::string_view name, std::initializer_list<Value> args, const KeywordArgs& kwargs = {}) {
    const std::vector<Value> list(args);
    return OpRegistry::instance().call(name, list, kwargs);
}
inline Tensor top(std::string_view name, std::initializer_list<Value> args, const KeywordArgs& kwargs = {}) {
    return op(name, args, kwargs).toTensor();
}
inline Value ints(const std::vector<int64_t>& v) {
    ValueList items(v.begin(), v.end());
    return Value::list(std::move(items));
}

/// Registers through `r`, remembering each schema's name as composite (autograd dispatch runs it as is).
class CompositeRegistry {
public:
    explicit CompositeRegistry(OpRegistry& r) : r_(r) {}
    void def(const std::vector<std::string>& names, std::string_view schema, Kernel kernel);

private:
    OpRegistry& r_;
};

/// torch.roll, scatter_add, F.one_hot and torch.einsum (registry_composite_index.cpp).
void registerIndexComposites(CompositeRegistry& r);

}  // namespace eng::tensor::composite
