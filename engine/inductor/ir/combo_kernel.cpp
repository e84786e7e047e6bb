// Building a combo kernel (kernel_ir.h): the union of its parts' buffers and symbols, and one outer range that is
// the sum of the parts' flattened ranges; and the bodies its parts share, so identical parts compile once.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor {

Kernel makeComboKernel(const std::string& name, std::vector<Kernel> parts, const std::vector<std::vector<int>>& bufferKeys) {
    Kernel combo;
    combo.name = name;
    std::map<int, int> bufferOfKey;
    Index total = indexConstant(0);
    for (size_t p = 0; p < parts.size(); ++p) {
        ComboPart part{std::move(parts[p]), {}};
        for (size_t j = 0; j < part.kernel.buffers.size(); ++j) {
            const KernelBuffer& b = part.kernel.buffers[j];
            auto [it, added] = bufferOfKey.try_emplace(bufferKeys.at(p).at(j), static_cast<int>(combo.buffers.size()));
            if (added) combo.buffers.push_back(KernelBuffer{b.name, b.dtype, false, false});
            KernelBuffer& merged = combo.buffers[static_cast<size_t>(it->second)];
            merged.read = merged.read || b.read;
            merged.written = merged.written || b.written;
            part.buffers.push_back(it->second);
        }
        for (const std::string& symbol : part.kernel.symbols)
            if (std::find(combo.symbols.begin(), combo.symbols.end(), symbol) == combo.symbols.end()) combo.symbols.push_back(symbol);
        total = total + product(part.kernel.outerRanges);
        combo.parts.push_back(std::move(part));
    }
    combo.outerRanges = {total};
    return combo;
}

namespace {

/// `part` over the flat range [kSharedBodyExtent] (accesses at its flat index become x0), or nullopt when some access is
/// neither that index nor one element, or its sizes are not constant.
std::optional<Kernel> flatBody(const Kernel& part) {
    if (part.isReduction() || part.isCombo() || part.passes.size() != 1 || !part.finalStores.empty()) return std::nullopt;
    std::vector<int64_t> strides(part.outerRanges.size(), 1);
    for (size_t d = part.outerRanges.size(); d-- > 0;) {
        const std::optional<int64_t> extent = constantValue(part.outerRanges[d]);
        if (!extent) return std::nullopt;
        if (d > 0) strides[d - 1] = strides[d] * *extent;
    }
    // Each variable's coefficient exact (no products of variables, no floor division or modulo of them), no
    // symbols, and nothing else added: the index is sum(stride * var) or a constant.
    auto coefficientsAre = [&](const Index& index, bool flat) {
        std::vector<std::string> symbols;
        collectSymbols(index, symbols);
        if (!symbols.empty()) return false;
        for (size_t v = 0; v < strides.size(); ++v)
            if (constantStrideOf(index, static_cast<int>(v)) != std::optional<int64_t>(flat ? strides[v] : 0)) return false;
        return !flat || evaluate(index, std::vector<int64_t>(strides.size(), 0), {}) == 0;
    };
    bool ok = true;
    std::unordered_map<const Expr*, ExprPtr> memo;
    std::function<ExprPtr(const ExprPtr&)> rewrite = [&](const ExprPtr& e) -> ExprPtr {
        if (!e || !ok) return e;
        if (auto found = memo.find(e.get()); found != memo.end()) return found->second;
        auto copy = std::make_shared<Expr>(*e);
        copy->a = rewrite(e->a);
        copy->b = rewrite(e->b);
        copy->c = rewrite(e->c);
        if (e->kind == Expr::Kind::Load || e->kind == Expr::Kind::IndexValue) {
            if (coefficientsAre(e->index, true) && e->kind == Expr::Kind::Load) copy->index = indexVar(0);
            else if (!coefficientsAre(e->index, false)) ok = false;
        }
        return memo[e.get()] = copy;
    };
    Kernel body;
    for (size_t j = 0; j < part.buffers.size(); ++j) body.buffers.push_back(KernelBuffer{fmt::format("b{}", j), part.buffers[j].dtype, part.buffers[j].read, part.buffers[j].written, part.buffers[j].aliased});
    body.symbols = {kSharedBodyExtent};
    body.outerRanges = {indexSymbol(kSharedBodyExtent)};
    body.passes.emplace_back();
    for (const Store& s : part.passes[0].stores) {
        if (!coefficientsAre(s.index, true)) return std::nullopt;
        body.passes[0].stores.push_back(Store{s.buffer, indexVar(0), rewrite(s.value)});
    }
    if (!ok) return std::nullopt;
    return body;
}

bool sameBody(const Kernel& a, const Kernel& b) {
    if (a.buffers.size() != b.buffers.size() || a.passes[0].stores.size() != b.passes[0].stores.size()) return false;
    for (size_t j = 0; j < a.buffers.size(); ++j)
        if (a.buffers[j].dtype != b.buffers[j].dtype || a.buffers[j].read != b.buffers[j].read || a.buffers[j].written != b.buffers[j].written ||
            a.buffers[j].aliased != b.buffers[j].aliased)
            return false;
    for (size_t i = 0; i < a.passes[0].stores.size(); ++i) {
        const Store &x = a.passes[0].stores[i], &y = b.passes[0].stores[i];
        if (x.buffer != y.buffer || !exprEqual(x.value, y.value)) return false;
    }
    return true;
}

}  // namespace

ComboSharedBodies comboSharedBodies(const Kernel& combo) {
    ComboSharedBodies shared;
    for (const ComboPart& part : combo.parts) {
        std::optional<Kernel> body = flatBody(part.kernel);
        int index = -1;
        for (size_t i = 0; body && index < 0 && i < shared.bodies.size(); ++i)
            if (sameBody(shared.bodies[i], *body)) index = static_cast<int>(i);
        if (body && index < 0) {
            index = static_cast<int>(shared.bodies.size());
            body->name = fmt::format("{}_body{}", combo.name, index);
            shared.bodies.push_back(std::move(*body));
        }
        shared.bodyOfPart.push_back(index);
    }
    return shared;
}

}  // namespace eng::inductor
