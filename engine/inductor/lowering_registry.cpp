// The lowering registry, filled once by each op family.
#include "inductor/lowering_registry.h"

#include <stdexcept>

#include <fmt/format.h>

namespace eng::inductor::lowering {

const char* toString(OpFamily family) {
    switch (family) {
        case OpFamily::Pointwise: return "pointwise";
        case OpFamily::Reduction: return "reduction";
        case OpFamily::View: return "view";
        case OpFamily::MatrixProduct: return "matrix product";
    }
    return "?";
}

const LoweringRegistry& LoweringRegistry::instance() {
    static const LoweringRegistry registry = [] {
        LoweringRegistry r;
        registerPointwiseLowerings(r);
        registerReductionLowerings(r);
        registerViewLowerings(r);
        registerMatrixProductLowerings(r);
        registerIndexWriteLowerings(r);
        return r;
    }();
    return registry;
}

void LoweringRegistry::def(std::string_view name, OpFamily family, LowerFn lower) {
    if (entries_.count(name)) throw std::logic_error(fmt::format("op {} has two lowerings", name));
    // Elementwise ops compute new elements, so `op_` is `op` written back; a view op's in-place form (`t_`,
    // `unsqueeze_`) changes geometry instead, and a conversion's (none) would not be its own.
    entries_.emplace(std::string(name), OpLowering{family, std::move(lower), family == OpFamily::Pointwise && !viewOpOf(name)});
}

void LoweringRegistry::def(std::initializer_list<std::string_view> names, OpFamily family, LowerFn lower) {
    for (std::string_view name : names) def(name, family, lower);
}

const OpLowering* LoweringRegistry::find(std::string_view op) const {
    auto found = entries_.find(op);
    return found == entries_.end() ? nullptr : &found->second;
}

}  // namespace eng::inductor::lowering
