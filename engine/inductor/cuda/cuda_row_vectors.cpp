// Which passes of a row kernel move 16-byte vectors along the row, whether every row start is a multiple of the
// vector width, how many register arrays rows kept in registers take, and the one base that a pass's row loads share
// (read in vectors shifted back to an aligned start when rows are not known to be aligned).
#include <algorithm>
#include <set>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

bool dividesEveryTerm(int width, const Index& index) {
    const std::optional<Polynomial> terms = polynomialOf(index);
    if (!terms) return false;
    for (const auto& [monomial, coefficient] : *terms)
        if (coefficient % width != 0) return false;
    return true;
}

RowVectorPlan planRowVectors(const Kernel& kernel, const CudaTuning& tuning) {
    RowVectorPlan plan;
    plan.passOk.assign(kernel.passes.size(), false);
    if (!tuning.allowVectorized || kernel.reductionRanges.size() != 1) return plan;
    const int r = kernel.outerVarCount();
    int widest = 1;
    for (size_t p = 0; p < kernel.passes.size(); ++p) {
        const KernelPass& pass = kernel.passes[p];
        if (!pass.overReductionRange) continue;
        bool ok = true, contiguous = false;
        std::set<int> stored;
        auto access = [&](const Index& index, DType dtype, int buffer) {
            auto stride = linearCoefficient(index, r);
            if (stride == 0) return;
            if (stride != 1) {
                ok = false;
                return;
            }
            contiguous = true;
            widest = std::max(widest, itemBytes(dtype));
            plan.bases.push_back(substituteVar(index, r, indexConstant(0)));
            plan.buffers.insert(buffer);
        };
        auto visit = [&](const Expr& e) {
            if (e.kind == Expr::Kind::Load) access(e.index, e.dtype, e.buffer);
        };
        for (const Reduction& red : pass.reductions) forEachExpr(red.value, visit);
        for (size_t i = 0; i < pass.stores.size(); ++i) {
            const Store& st = pass.stores[i];
            forEachExpr(st.value, visit);
            access(st.index, kernel.buffers[static_cast<size_t>(st.buffer)].dtype, st.buffer);
            if (!stored.insert(st.buffer).second || laterStoreReads(pass.stores, i, pass.reductions)) ok = false;
            if (linearCoefficient(st.index, r) == 0) ok = false;  // every lane would store to one element
        }
        plan.passOk[p] = ok && contiguous;
    }
    plan.width = 16 / widest;
    if (plan.width < 2) plan.passOk.assign(kernel.passes.size(), false);
    return plan;
}

int rowArrays(const Kernel& kernel) {
    const int r = kernel.outerVarCount();
    std::set<std::pair<int, std::string>> arrays;
    auto visit = [&](const Expr& e) {
        if (e.kind == Expr::Kind::Load && linearCoefficient(e.index, r) == 1) arrays.emplace(e.buffer, toString(e.index));
    };
    for (const KernelPass& pass : kernel.passes) {
        if (!pass.overReductionRange) continue;
        for (const Reduction& red : pass.reductions) forEachExpr(red.value, visit);
        for (const Store& st : pass.stores) forEachExpr(st.value, visit);
    }
    return static_cast<int>(arrays.size());
}

std::optional<Index> commonRowBase(const Kernel& kernel, const KernelPass& pass) {
    const int r = kernel.outerVarCount();
    std::optional<Index> common;
    bool same = true;
    auto visit = [&](const Expr& e) {
        if (e.kind != Expr::Kind::Load || linearCoefficient(e.index, r) != 1) return;
        const Index base = substituteVar(e.index, r, indexConstant(0));
        if (!common) common = base;
        else if (!indexEqual(*common, base)) same = false;
    };
    for (const Reduction& red : pass.reductions) forEachExpr(red.value, visit);
    for (const Store& st : pass.stores) forEachExpr(st.value, visit);
    return same ? common : std::nullopt;
}

}  // namespace eng::inductor::cuda::detail
