// The lowering registry: what lowering knows of an op, by the name a graph node calls it by (`sin`, `mul`,
// `swapaxes`): its family, how it lowers, whether its in-place form lowers functionally, and whether its result
// may alias its input (from the eager runtime's one table of view ops, tensor/view_ops.def).
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "inductor/lowering_context.h"
#include "tensor/view_ops.h"

namespace eng::inductor::lowering {

enum class OpFamily { Pointwise, Reduction, View, MatrixProduct };
const char* toString(OpFamily family);

/// Lowers one call of `op`; nullopt when this call is not supported (its arguments, dtypes): it then runs as an
/// extern kernel, the eager op.
using LowerFn = std::function<std::optional<LValue>(Lowering&, const std::string& op, const fx::Node&)>;

struct OpLowering {
    OpFamily family = OpFamily::Pointwise;
    LowerFn lower;
    /// `op_` (and `+=` for operators) lowers as `op` whose result replaces the operand: elementwise ops only.
    bool inPlaceForm = false;
};

class LoweringRegistry {
public:
    /// Every op lowering, each family's registered once (lowering_pointwise/reductions/views.cpp).
    static const LoweringRegistry& instance();

    /// Registers `lower` for each name; a name registered twice is a programming error.
    void def(std::initializer_list<std::string_view> names, OpFamily family, LowerFn lower);
    void def(std::string_view name, OpFamily family, LowerFn lower);
    const OpLowering* find(std::string_view op) const;
    const std::map<std::string, OpLowering, std::less<>>& entries() const { return entries_; }

private:
    std::map<std::string, OpLowering, std::less<>> entries_;
};

/// The eager runtime's view op called `op` (its result may share its input's storage), or null.
inline const tensor::ViewOp* viewOpOf(std::string_view op) { return tensor::findViewOp(op); }

/// A LowerFn that builds a family's per-node helper (`Family{lowering, node}`) and calls `handler(op)` on it.
template <typename Family>
LowerFn member(std::optional<LValue> (Family::*handler)(const std::string&)) {
    return [handler](Lowering& lowering, const std::string& op, const fx::Node& node) {
        Family family{lowering, node};
        return (family.*handler)(op);
    };
}

// Each family registers its lowerings (one file each).
void registerPointwiseLowerings(LoweringRegistry& registry);
void registerReductionLowerings(LoweringRegistry& registry);
void registerViewLowerings(LoweringRegistry& registry);
/// mm/bmm/addmm/matmul: shape padding (lowering_pad_mm.cpp); the product itself is an extern kernel either way.
void registerMatrixProductLowerings(LoweringRegistry& registry);
/// `x[index] = value` (operator.setitem) as a functional write (lowering_setitem.cpp).
void registerIndexWriteLowerings(LoweringRegistry& registry);

}  // namespace eng::inductor::lowering
