// The derivative of basic indexing (`x[1, :4, None, ...]`) as graph nodes: the gradient of the selected elements
// put back in place (dims an int removed unsqueezed, new axes squeezed, zeros concatenated around each slice), as
// the eager formula writes the gradient into zeros, but functional and so lowerable.
#include "aot/index_derivative.h"

#include <algorithm>
#include <optional>

namespace eng::aot {

using fx::Arg;
using fx::Node;

namespace {

/// One item of a basic index (`x[1, :4, None, ...]`), resolved against the input's sizes.
struct IndexItem {
    enum class Kind { Int, Slice, Full, NewAxis, Ellipsis } kind = Kind::Full;
    int64_t start = 0, stop = 0;  // Int: start is the index; Slice: [start, stop) with step 1
};

std::optional<int64_t> constantInt(const vm::Value& v, GradContext& ctx) {
    if (v.isNone()) return std::nullopt;
    if (!v.is(vm::Kind::Int)) ctx.unsupported("indexing with a slice bound that is not a constant int");
    return v.asInt();
}

}  // namespace

/// x[index] with ints, slices of step 1, None and `...` (basic indexing, static sizes): the gradient is g with the
/// dims an int removed put back, the new axes removed, and zeros concatenated where a slice left elements out.
void basicIndexRule(GradContext& ctx, Node* x) {
    const Arg* index = ctx.arg(1, "index");
    const tensor::Tensor& in = *exampleTensor(*x);
    for (const std::string& symbol : x->dimSymbols)
        if (!symbol.empty()) ctx.unsupported("indexing a tensor with dynamic sizes");
    std::vector<Arg> items = index->kind == Arg::Kind::Tuple ? index->items : std::vector<Arg>{*index};
    if (index->kind == Arg::Kind::Constant && index->constant.is(vm::Kind::Tuple)) {
        items.clear();
        for (const vm::Value& v : index->constant.as<vm::TupleObject>().items) items.push_back(GraphBuilder::constant(v));
    }
    // First what each item is (bounds as written), then `...` expanded, then the bounds resolved against the sizes.
    std::vector<IndexItem> parsed;
    std::vector<std::pair<std::optional<int64_t>, std::optional<int64_t>>> written;
    int64_t consuming = 0;
    for (const Arg& a : items) {
        IndexItem item;
        std::optional<int64_t> first, last;
        if (a.kind == Arg::Kind::Slice || (a.kind == Arg::Kind::Constant && a.constant.is(vm::Kind::Slice))) {
            vm::Value bounds[3];
            for (int i = 0; i < 3; ++i) {
                const Arg* part = a.kind == Arg::Kind::Slice ? &a.items.at(static_cast<size_t>(i)) : nullptr;
                if (part && part->kind != Arg::Kind::Constant) ctx.unsupported("indexing with a slice bound computed in the graph");
                const auto& slice = a.kind == Arg::Kind::Constant ? &a.constant.as<vm::SliceObject>() : nullptr;
                bounds[i] = part ? part->constant : (i == 0 ? slice->start : i == 1 ? slice->stop : slice->step);
            }
            const std::optional<int64_t> step = constantInt(bounds[2], ctx);
            if (step && *step != 1) ctx.unsupported("indexing with a slice step other than 1");
            item.kind = IndexItem::Kind::Slice;
            first = constantInt(bounds[0], ctx);
            last = constantInt(bounds[1], ctx);
            ++consuming;
        } else if (a.kind == Arg::Kind::Constant && a.constant.is(vm::Kind::Int)) {
            item.kind = IndexItem::Kind::Int;
            first = a.constant.asInt();
            ++consuming;
        } else if (a.kind == Arg::Kind::Constant && a.constant.isNone()) {
            item.kind = IndexItem::Kind::NewAxis;
        } else if (a.kind == Arg::Kind::Constant && a.constant.is(vm::Kind::Ellipsis)) {
            item.kind = IndexItem::Kind::Ellipsis;
        } else {
            ctx.unsupported("indexing with a tensor or a value computed in the graph");
        }
        parsed.push_back(item);
        written.emplace_back(first, last);
    }
    if (consuming > in.dim()) ctx.unsupported("too many indices");
    std::vector<IndexItem> resolved;
    int64_t dim = 0;
    for (size_t i = 0; i < parsed.size(); ++i) {
        IndexItem item = parsed[i];
        if (item.kind == IndexItem::Kind::Ellipsis) {
            // `...` stands for the dims no other item consumes (full slices).
            for (int64_t k = 0; k < in.dim() - consuming; ++k, ++dim) resolved.push_back({});
            consuming = in.dim();
            continue;
        }
        if (item.kind != IndexItem::Kind::NewAxis) {
            const int64_t n = in.sizes()[static_cast<size_t>(dim++)];
            auto wrap = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
            const auto& [first, last] = written[i];
            if (item.kind == IndexItem::Kind::Int) {
                item.start = *first < 0 ? *first + n : *first;
                item.stop = item.start + 1;
            } else {
                item.start = wrap(first.value_or(0));
                item.stop = std::max(item.start, wrap(last.value_or(n)));
            }
        }
        resolved.push_back(item);
    }
    GraphBuilder& b = ctx.b;
    auto constantInt64 = [](int64_t v) { return GraphBuilder::constant(vm::Value(v)); };
    // Result dims in order: new axes are squeezed away (last first), dims an int removed come back as size 1.
    Node* g = ctx.grad;
    int64_t resultDim = 0;
    std::vector<int64_t> newAxes;
    for (const IndexItem& item : resolved) {
        if (item.kind == IndexItem::Kind::NewAxis) newAxes.push_back(resultDim);
        if (item.kind != IndexItem::Kind::Int) ++resultDim;
    }
    for (auto it = newAxes.rbegin(); it != newAxes.rend(); ++it) g = b.method("squeeze", g, {constantInt64(*it)});
    dim = 0;
    for (const IndexItem& item : resolved) {
        if (item.kind == IndexItem::Kind::NewAxis) continue;
        if (item.kind == IndexItem::Kind::Int) g = b.method("unsqueeze", g, {constantInt64(dim)});
        ++dim;
    }
    // Full slices of the dims no item named need nothing; each narrowed dim gets zeros before and after.
    dim = 0;
    for (const IndexItem& item : resolved) {
        if (item.kind == IndexItem::Kind::NewAxis) continue;
        const int64_t n = in.sizes()[static_cast<size_t>(dim)];
        const bool narrowed = item.kind == IndexItem::Kind::Int || (item.kind == IndexItem::Kind::Slice && (item.start > 0 || item.stop < n));
        if (narrowed) {
            auto zeros = [&](int64_t length) {
                tensor::Shape sizes = exampleTensor(*g)->sizes();
                sizes[static_cast<size_t>(dim)] = length;
                return GraphBuilder::ref(b.method("new_zeros", g, {GraphBuilder::ints(sizes)}));
            };
            std::vector<Arg> parts;
            if (item.start > 0) parts.push_back(zeros(item.start));
            parts.push_back(GraphBuilder::ref(g));
            if (item.stop < n) parts.push_back(zeros(n - item.stop));
            if (parts.size() > 1) g = b.torchFunction("cat", {Arg::ofItems(Arg::Kind::List, std::move(parts)), constantInt64(dim)});
        }
        ++dim;
    }
    ctx.send(x, g);
}

}  // namespace eng::aot
