// Output sizes of extern kernels whose shape follows from their operands' (PyTorch's meta functions of mm, bmm,
// matmul, cat and stack), as size expressions: a dynamic size reaches the output as s0 or s0 + s0, where the
// traced node's per-dimension symbols can only name a single symbol of the same size.
#include "inductor/lowering_context.h"

namespace eng::inductor::lowering {

namespace {

std::optional<int64_t> normalisedDim(int64_t dim, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    if (dim < -r || dim >= r) return std::nullopt;
    return dim < 0 ? dim + r : dim;
}

std::optional<std::vector<Index>> matmulSizes(const LValue& a, const LValue& b) {
    if (a.dim() == 0 || b.dim() == 0) return std::nullopt;
    if (a.dim() == 1 && b.dim() == 1) return std::vector<Index>{};
    if (b.dim() == 1) return std::vector<Index>(a.sizes.begin(), a.sizes.end() - 1);
    // (..., n, k) @ (..., k, m): batch dims broadcast; a 1-D left operand is a row that is dropped again.
    std::vector<Index> batchA(a.sizes.begin(), a.sizes.end() - std::min<int64_t>(a.dim(), 2));
    std::vector<Index> batchB(b.sizes.begin(), b.sizes.end() - 2);
    std::vector<Index> out = broadcastSizes(batchA, batchB);
    if (a.dim() >= 2) out.push_back(a.sizes[a.sizes.size() - 2]);
    out.push_back(b.sizes.back());
    return out;
}

std::vector<LValue> tensorList(const LValue& list) {
    std::vector<LValue> out;
    if (list.kind != LValue::Kind::List) return out;
    for (const LValue& item : list.items) {
        if (!item.isTensor()) return {};
        out.push_back(item);
    }
    return out;
}

std::optional<std::vector<Index>> catSizes(const std::vector<LValue>& tensors, int64_t dim) {
    // PyTorch skips 1-D empty tensors in cat whatever their size elsewhere; that case keeps the traced sizes.
    if (tensors.empty()) return std::nullopt;
    for (const LValue& t : tensors)
        if (t.dim() != tensors[0].dim() || (t.dim() == 1 && constantValue(t.sizes[0]) == 0)) return std::nullopt;
    auto d = normalisedDim(dim, tensors[0].sizes.size());
    if (!d) return std::nullopt;
    std::vector<Index> out = tensors[0].sizes;
    for (size_t i = 1; i < tensors.size(); ++i) out[static_cast<size_t>(*d)] = out[static_cast<size_t>(*d)] + tensors[i].sizes[static_cast<size_t>(*d)];
    return out;
}

std::optional<std::vector<Index>> stackSizes(const std::vector<LValue>& tensors, int64_t dim) {
    if (tensors.empty()) return std::nullopt;
    auto d = normalisedDim(dim, tensors[0].sizes.size() + 1);
    if (!d) return std::nullopt;
    std::vector<Index> out = tensors[0].sizes;
    out.insert(out.begin() + *d, indexConstant(static_cast<int64_t>(tensors.size())));
    return out;
}

}  // namespace

std::optional<std::vector<Index>> externOutputSizes(Lowering& lowering, const fx::Node& node) {
    const std::string op = nodeOpName(node);
    NodeArgs args(lowering, node);
    if (op == "mm" || op == "matmul" || op == "bmm") {
        const LValue a = args.get(0, "input"), b = args.get(1, op == "matmul" ? "other" : "mat2");
        if (!a.isTensor() || !b.isTensor()) return std::nullopt;
        if (op != "matmul" && (a.dim() != (op == "mm" ? 2 : 3) || b.dim() != a.dim())) return std::nullopt;
        return matmulSizes(a, b);
    }
    if (op == "cat" || op == "concat" || op == "stack") {
        if (node.op == fx::NodeOp::CallMethod) return std::nullopt;
        const std::vector<LValue> tensors = tensorList(args.get(0, "tensors"));
        const LValue dim = args.has(1, "dim") ? args.get(1, "dim") : LValue{};
        if (dim.kind != LValue::Kind::None && (dim.kind != LValue::Kind::Number || !dim.number.is(vm::Kind::Int))) return std::nullopt;
        const int64_t d = dim.kind == LValue::Kind::None ? 0 : dim.number.asInt();
        return op == "stack" ? stackSizes(tensors, d) : catSizes(tensors, d);
    }
    return std::nullopt;
}

}  // namespace eng::inductor::lowering
