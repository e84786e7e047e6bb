// Finds the softmax shape in row kernels: a pass reducing max(v) followed by a pass reducing sum(exp(v - max)).
// The reduction generator merges such a pair into one pass with an online (max, sum) accumulator, so that
// softmax, log_softmax and logsumexp read their row once for both instead of once each.
#include <cstring>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

namespace {

bool sameExpr(const ExprPtr& a, const ExprPtr& b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
    switch (a->kind) {
        case Expr::Kind::Load: return a->buffer == b->buffer && sameIndex(a->index, b->index);
        case Expr::Kind::IndexValue: return sameIndex(a->index, b->index);
        case Expr::Kind::Constant:
            // Bitwise, so that NaN equals NaN and 0.0 differs from -0.0.
            return a->integer == b->integer && std::memcmp(&a->number, &b->number, sizeof(double)) == 0;
        case Expr::Kind::ReductionValue: return a->reduction == b->reduction;
        case Expr::Kind::Unary: return a->op == b->op && sameExpr(a->a, b->a);
        case Expr::Kind::Cast: return sameExpr(a->a, b->a);
        case Expr::Kind::Binary: return a->op == b->op && sameExpr(a->a, b->a) && sameExpr(a->b, b->b);
        case Expr::Kind::Where: return sameExpr(a->a, b->a) && sameExpr(a->b, b->b) && sameExpr(a->c, b->c);
    }
    return false;
}

// exp(v - red<maxId>): the value of the sum pass that pairs with max(v).
bool isExpOfShifted(const ExprPtr& e, const ExprPtr& v, int maxId) {
    if (e->kind != Expr::Kind::Unary || e->op != ElementOp::Exp) return false;
    const ExprPtr& shifted = e->a;
    return shifted->kind == Expr::Kind::Binary && shifted->op == ElementOp::Sub && sameExpr(shifted->a, v) &&
           shifted->b->kind == Expr::Kind::ReductionValue && shifted->b->reduction == maxId;
}

}  // namespace

std::vector<int> onlineSoftmaxPairs(const Kernel& kernel) {
    std::vector<int> partner(kernel.passes.size(), -1);
    for (size_t p = 0; p + 1 < kernel.passes.size(); ++p) {
        const KernelPass& first = kernel.passes[p];
        const KernelPass& second = kernel.passes[p + 1];
        if (p > 0 && partner[p - 1] == static_cast<int>(p)) continue;  // already the second of a pair
        if (!first.overReductionRange || !second.overReductionRange || !first.stores.empty() || !second.stores.empty()) continue;
        if (first.reductions.size() != 1 || second.reductions.size() != 1) continue;
        const Reduction& max = first.reductions[0];
        const Reduction& sum = second.reductions[0];
        // Float accumulators only: 16-bit values accumulate in float (opmath), where rescaling costs no rounding
        // the interpreter's per-step rounding would have to repeat.
        const DType dtype = max.value->dtype;
        if (max.op != ReductionOp::Max || sum.op != ReductionOp::Sum || (dtype != DType::Float32 && dtype != DType::Float64) ||
            sum.value->dtype != dtype)
            continue;
        if (isExpOfShifted(sum.value, max.value, max.id)) partner[p] = static_cast<int>(p + 1);
    }
    return partner;
}

}  // namespace eng::inductor::cuda::detail
