// Finds the softmax shape in row kernels: a pass reducing max(v) followed by a pass reducing sum(exp(v - max)).
// The reduction generator merges such a pair into one pass with an online (max, sum) accumulator, so that
// softmax, log_softmax and logsumexp read their row once for both instead of once each.
#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

namespace {

// exp(v - red<maxId>): the value of the sum pass that pairs with max(v).
bool isExpOfShifted(const ExprPtr& e, const ExprPtr& v, int maxId) {
    if (e->kind != Expr::Kind::Unary || e->op != ElementOp::Exp) return false;
    const ExprPtr& shifted = e->a;
    return shifted->kind == Expr::Kind::Binary && shifted->op == ElementOp::Sub && exprEqual(shifted->a, v, sameIndex) &&
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
