// Column reductions of few columns over many rows (a bias gradient: [8192, 768] summed over its rows) as row kernels
// with reductions over their outer range: rows spread over the whole grid, each piece of rows keeps per-column partials
// in registers and the finish entry combines the pieces in order (cuda_outer_partials.cpp), instead of 24 blocks of 32
// columns each walking all 8192 rows one 2-byte element a thread.
#include <unordered_map>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

namespace {

// Old variable v becomes to[v].
Index renumbered(const Index& index, const std::vector<int>& to) {
    return mapVars(index, [&](const Index& var) { return indexVar(to.at(static_cast<size_t>(var->value))); });
}

struct Renumber {
    const std::vector<int>& to;
    std::unordered_map<const Expr*, ExprPtr> done;  // shared subexpressions stay shared
    ExprPtr operator()(const ExprPtr& e) {
        if (!e) return e;
        if (auto found = done.find(e.get()); found != done.end()) return found->second;
        auto copy = std::make_shared<Expr>(*e);
        if (copy->index) copy->index = renumbered(copy->index, to);
        copy->a = (*this)(e->a);
        copy->b = (*this)(e->b);
        copy->c = (*this)(e->c);
        return done[e.get()] = copy;
    }
};

bool loads(const ExprPtr& e) { return !loadedBuffers(e).empty(); }

}  // namespace

std::optional<Kernel> columnReductionAsRows(const Kernel& kernel, const CudaTuning& tuning) {
    if (!tuning.columnPartials || kernel.isCombo() || !kernel.isReduction() || kernel.hasOuterRangeReductions() || !kernel.finalStores.empty() ||
        kernel.outerRanges.size() != 1 || kernel.passes.empty() || !preferColumns(kernel))
        return std::nullopt;
    // Few columns (the column form's blocks of 32 columns would not fill the device) over many rows.
    const std::optional<int64_t> columns = constantValue(kernel.outerRanges[0]), rows = constantValue(product(kernel.reductionRanges));
    if (!columns || !rows || *columns > 8192 || *rows < 256) return std::nullopt;
    // One pass of reductions over the rows (no stores in it), then outer passes storing what is computed from their
    // results alone: those become the finish's stores.
    const KernelPass& first = kernel.passes[0];
    if (!first.overReductionRange || !first.stores.empty() || first.reductions.empty()) return std::nullopt;
    // Floating sums, products and extremes (what the run tests cover; no positions to carry across pieces).
    for (const Reduction& r : first.reductions)
        if (!tensor::isFloating(r.value->dtype) || (r.op != ReductionOp::Sum && r.op != ReductionOp::Prod && r.op != ReductionOp::Max && r.op != ReductionOp::Min))
            return std::nullopt;
    for (size_t p = 1; p < kernel.passes.size(); ++p) {
        if (kernel.passes[p].overReductionRange || !kernel.passes[p].reductions.empty()) return std::nullopt;
        for (const Store& s : kernel.passes[p].stores)
            if (loads(s.value)) return std::nullopt;
    }
    // The reduction variables become the outer ones (in order), the column the reduction variable.
    const int m = static_cast<int>(kernel.reductionRanges.size());
    std::vector<int> to(static_cast<size_t>(m) + 1);
    to[0] = m;
    for (int j = 0; j < m; ++j) to[static_cast<size_t>(j) + 1] = j;
    Renumber renumber{to, {}};
    Kernel rows_ = kernel;
    rows_.outerRanges = kernel.reductionRanges;
    rows_.reductionRanges = kernel.outerRanges;
    KernelPass pass{true, {}, {}};
    for (const Reduction& r : first.reductions) {
        Reduction column = r;
        column.value = renumber(r.value);
        column.overOuterRange = true;
        pass.reductions.push_back(column);
    }
    rows_.passes = {pass};
    for (size_t p = 1; p < kernel.passes.size(); ++p)
        for (const Store& s : kernel.passes[p].stores) rows_.finalStores.push_back(Store{s.buffer, renumbered(s.index, to), renumber(s.value)});
    return rows_;
}

}  // namespace eng::inductor::cuda::detail
