// Index analysis for the CUDA strategies: polynomial forms (to see flat and contiguous accesses whatever the
// operand order or symbolic sizes), bounds (to pick 32-bit indexing), and the kernel-level decisions built on them.
#include <algorithm>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

bool mentionsAnyVar(const Index& index) {
    if (!index) return false;
    if (index->op == IndexNode::Op::Var) return true;
    return mentionsAnyVar(index->lhs) || mentionsAnyVar(index->rhs);
}

std::optional<Polynomial> polynomialOf(const Index& index) {
    switch (index->op) {
        case IndexNode::Op::Constant: {
            Polynomial p;
            if (index->value != 0) p[{}] = index->value;
            return p;
        }
        case IndexNode::Op::Var: return Polynomial{{{fmt::format("v{}", index->value)}, 1}};
        case IndexNode::Op::Symbol: return Polynomial{{{index->symbol}, 1}};
        case IndexNode::Op::Add: {
            auto l = polynomialOf(index->lhs), r = polynomialOf(index->rhs);
            if (!l || !r) return std::nullopt;
            for (const auto& [m, coefficient] : *r)
                if (((*l)[m] += coefficient) == 0) l->erase(m);
            return l;
        }
        case IndexNode::Op::Mul: {
            auto l = polynomialOf(index->lhs), r = polynomialOf(index->rhs);
            if (!l || !r) return std::nullopt;
            Polynomial p;
            for (const auto& [ml, cl] : *l)
                for (const auto& [mr, cr] : *r) {
                    Monomial m = ml;
                    m.insert(m.end(), mr.begin(), mr.end());
                    std::sort(m.begin(), m.end());
                    if ((p[m] += cl * cr) == 0) p.erase(m);
                }
            return p;
        }
        case IndexNode::Op::FloorDiv:
        case IndexNode::Op::Mod:
            if (mentionsAnyVar(index)) return std::nullopt;
            return Polynomial{{{"(" + toString(index) + ")"}, 1}};
    }
    return std::nullopt;
}

std::optional<int64_t> linearCoefficient(const Index& index, int number) {
    auto p = polynomialOf(index);
    if (!p) return std::nullopt;
    const std::string name = fmt::format("v{}", number);
    int64_t coefficient = 0;
    for (const auto& [m, value] : *p) {
        const auto occurrences = std::count(m.begin(), m.end(), name);
        if (occurrences == 0) continue;
        if (occurrences > 1 || m.size() != 1) return std::nullopt;
        coefficient = value;
    }
    return coefficient;
}

Index flatIndex(const std::vector<Index>& ranges, int first) {
    Index flat = indexConstant(0);
    for (size_t d = 0; d < ranges.size(); ++d) flat = flat * ranges[d] + indexVar(first + static_cast<int>(d));
    return flat;
}

Index mapVars(const Index& index, const std::function<Index(const Index& var)>& replace) {
    if (!index) return index;
    switch (index->op) {
        case IndexNode::Op::Var: return replace(index);
        case IndexNode::Op::Add: return mapVars(index->lhs, replace) + mapVars(index->rhs, replace);
        case IndexNode::Op::Mul: return mapVars(index->lhs, replace) * mapVars(index->rhs, replace);
        case IndexNode::Op::FloorDiv: return floorDiv(mapVars(index->lhs, replace), mapVars(index->rhs, replace));
        case IndexNode::Op::Mod: return modulo(mapVars(index->lhs, replace), mapVars(index->rhs, replace));
        default: return index;
    }
}

Index substituteVar(const Index& index, int number, const Index& replacement) {
    return mapVars(index, [&](const Index& var) { return var->value == number ? replacement : var; });
}

bool sameIndex(const Index& a, const Index& b) {
    auto pa = polynomialOf(a), pb = polynomialOf(b);
    return pa && pb && *pa == *pb;
}

namespace {

int64_t saturatingAdd(int64_t a, int64_t b) { return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b; }
int64_t saturatingMul(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    return a > std::numeric_limits<int64_t>::max() / b ? std::numeric_limits<int64_t>::max() : a * b;
}

}  // namespace

std::optional<int64_t> indexBound(const Index& index, const std::vector<int64_t>& varExtents) {
    switch (index->op) {
        case IndexNode::Op::Constant: return index->value < 0 ? -index->value : index->value;
        case IndexNode::Op::Symbol: return std::nullopt;
        case IndexNode::Op::Var: {
            const auto v = static_cast<size_t>(index->value);
            return v < varExtents.size() ? std::max<int64_t>(varExtents[v] - 1, 0) : std::optional<int64_t>();
        }
        case IndexNode::Op::Add:
        case IndexNode::Op::Mul: {
            auto l = indexBound(index->lhs, varExtents), r = indexBound(index->rhs, varExtents);
            if (!l || !r) return std::nullopt;
            return index->op == IndexNode::Op::Add ? saturatingAdd(*l, *r) : saturatingMul(*l, *r);
        }
        case IndexNode::Op::FloorDiv: return indexBound(index->lhs, varExtents);
        case IndexNode::Op::Mod: {
            auto l = indexBound(index->lhs, varExtents), r = indexBound(index->rhs, varExtents);
            if (l && r) return std::min(*l, *r);
            return l ? l : r;
        }
    }
    return std::nullopt;
}

void forEachExpr(const ExprPtr& root, const std::function<void(const Expr&)>& visit) {
    std::unordered_set<const Expr*> seen;
    forEachExprOnce(root, visit, seen);
}

void forEachKernelExpr(const Kernel& kernel, const std::function<void(const Expr&)>& visit) {
    for (const KernelPass& pass : kernel.passes) {
        for (const Reduction& r : pass.reductions) forEachExpr(r.value, visit);
        for (const Store& s : pass.stores) forEachExpr(s.value, visit);
    }
}

std::optional<LaneForm> laneForm(const Index& index, int var, int width) {
    switch (index->op) {
        case IndexNode::Op::Constant: return LaneForm{0, index->value % width == 0};
        case IndexNode::Op::Var: return index->value == var ? LaneForm{1, true} : LaneForm{0, false};
        case IndexNode::Op::Symbol: return LaneForm{0, false};
        default: break;
    }
    const auto l = laneForm(index->lhs, var, width), r = laneForm(index->rhs, var, width);
    if (!l || !r) return std::nullopt;
    const std::optional<int64_t> rc = constantValue(index->rhs);
    switch (index->op) {
        case IndexNode::Op::Add: return LaneForm{l->step + r->step, l->aligned && r->aligned};
        case IndexNode::Op::Mul: {
            const std::optional<int64_t> lc = constantValue(index->lhs);
            // (w A + s k) m: a multiple of w at lane 0 when A's term was or m is one.
            if (rc) return LaneForm{l->step * *rc, l->aligned || *rc % width == 0};
            if (lc) return LaneForm{r->step * *lc, r->aligned || *lc % width == 0};
            if (l->step == 0 && r->step == 0) return LaneForm{0, l->aligned || r->aligned};
            return std::nullopt;
        }
        case IndexNode::Op::FloorDiv:
        case IndexNode::Op::Mod: {
            if (l->step == 0 && r->step == 0)
                return LaneForm{0, index->op == IndexNode::Op::Mod && rc && *rc % width == 0 && l->aligned};
            // (w A + k) with A >= 0 and a divisor d that w divides: w A mod d <= d - w, so the k < w lanes never
            // cross a multiple of d: the quotient is the same on every lane, the remainder steps by one.
            if (!rc || *rc <= 0 || *rc % width != 0 || l->step != 1 || !l->aligned) return std::nullopt;
            return index->op == IndexNode::Op::Mod ? LaneForm{1, true} : LaneForm{0, false};
        }
        default: return std::nullopt;
    }
}

namespace {

// The lane form of an int64 index value or constant (a cat's position and its bounds).
std::optional<LaneForm> integerLaneForm(const Expr& e, int var, int width) {
    if (e.dtype != DType::Int64) return std::nullopt;
    if (e.kind == Expr::Kind::Constant) return LaneForm{0, e.integer % width == 0};
    if (e.kind == Expr::Kind::IndexValue) return laneForm(e.index, var, width);
    return std::nullopt;
}

}  // namespace

bool uniformAcrossLanes(const Expr& e, int var, int width) {
    switch (e.kind) {
        case Expr::Kind::Constant: return true;
        case Expr::Kind::IndexValue: {
            const auto form = laneForm(e.index, var, width);
            return form && form->step == 0;
        }
        case Expr::Kind::Load:
        case Expr::Kind::ReductionValue: return false;
        default: break;
    }
    if (e.kind == Expr::Kind::Binary && (e.op == ElementOp::Lt || e.op == ElementOp::Ge || e.op == ElementOp::Gt || e.op == ElementOp::Le)) {
        // a < b with a - b = w D + k (D the same on every lane, k < w): true exactly where D < 0, on every lane alike;
        // a >= b is its negation, and a > b, a <= b the same with the operands swapped.
        const auto a = integerLaneForm(*e.a, var, width), b = integerLaneForm(*e.b, var, width);
        if (a && b && a->aligned && b->aligned) {
            const int64_t step = (e.op == ElementOp::Lt || e.op == ElementOp::Ge) ? a->step - b->step : b->step - a->step;
            if (step == 0 || step == 1) return true;
        }
    }
    for (const ExprPtr& operand : {e.a, e.b, e.c})
        if (operand && !uniformAcrossLanes(*operand, var, width)) return false;
    return true;
}

bool needsIndex64(const Kernel& kernel) {
    constexpr int64_t kLimit = std::numeric_limits<int32_t>::max();
    std::vector<int64_t> extents;
    int64_t outerTotal = 1, reductionTotal = 1;
    for (const Index& r : kernel.outerRanges) {
        auto value = constantValue(r);
        if (!value) return true;
        extents.push_back(*value);
        outerTotal = saturatingMul(outerTotal, std::max<int64_t>(*value, 1));
    }
    for (const Index& r : kernel.reductionRanges) {
        auto value = constantValue(r);
        if (!value) return true;
        extents.push_back(*value);
        reductionTotal = saturatingMul(reductionTotal, std::max<int64_t>(*value, 1));
    }
    // Flat loop counters run a vector or a grid stride past the end before the loop test.
    if (saturatingMul(outerTotal, reductionTotal) > kLimit / 2) return true;
    bool wide = false;
    auto check = [&](const Index& index) {
        auto bound = indexBound(index, extents);
        if (!bound || *bound > kLimit / 2) wide = true;
    };
    forEachKernelExpr(kernel, [&](const Expr& e) {
        if (e.index) check(e.index);
    });
    for (const KernelPass& pass : kernel.passes)
        for (const Store& s : pass.stores) check(s.index);
    return wide;
}

bool laterStoreReads(const std::vector<Store>& stores, size_t i, const std::vector<Reduction>& reductions) {
    const int written = stores[i].buffer;
    bool reads = false;
    auto visit = [&](const Expr& e) {
        if (e.kind == Expr::Kind::Load && e.buffer == written) reads = true;
    };
    for (size_t k = i + 1; k < stores.size(); ++k) forEachExpr(stores[k].value, visit);
    for (const Reduction& r : reductions) forEachExpr(r.value, visit);
    return reads;
}

}  // namespace eng::inductor::cuda::detail
