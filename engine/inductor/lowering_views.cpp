// View lowerings as index arithmetic: view/reshape/flatten/ravel and *_as, permute/transpose/swapdims/t/mT/
// movedim, unsqueeze/squeeze, expand/broadcast_to, indexing with ints, slices, None and Ellipsis, select/narrow,
// split/chunk; plus size queries and getitem on tuples. A view's loader rewrites the index and calls its base's
// loader, so nothing is copied.
#include <fmt/format.h>

#include "inductor/lowering_registry.h"
#include "tensor/shape.h"

namespace eng::inductor::lowering {

namespace {

int64_t normaliseDim(int64_t dim, int64_t rank) {
    const int64_t limit = std::max<int64_t>(rank, 1);
    if (dim < -limit || dim >= limit) throw LoweringError(fmt::format("dim {} out of range", dim));
    return dim < 0 ? dim + rank : dim;
}

LValue withLoader(const LValue& base, std::vector<Index> sizes, std::function<std::vector<Index>(const std::vector<Index>&)> map) {
    LValue v;
    v.kind = LValue::Kind::Tensor;
    v.dtype = base.dtype;
    v.sizes = std::move(sizes);
    v.origins = base.origins;
    Loader inner = base.loader;
    v.loader = [inner, map](const std::vector<Index>& index) { return inner(map(index)); };
    return v;
}

/// Dims of a reshape that map onto each other: old dims [oldBegin, oldEnd) hold the same elements as new dims
/// [newBegin, newEnd). A group of one old dim split into several new dims needs no div/mod.
struct ReshapeGroup {
    size_t oldBegin, oldEnd, newBegin, newEnd;
};

/// Splits a reshape into the smallest groups whose element counts agree, as PyTorch's view does: constant sizes
/// by their products, symbolic ones only when both sides name the same size. What cannot be matched (symbolic
/// sizes that merge or split) becomes one group of the remaining dims.
std::vector<ReshapeGroup> reshapeGroups(const std::vector<Index>& oldSizes, const std::vector<Index>& newSizes) {
    std::vector<ReshapeGroup> groups;
    size_t i = 0, j = 0;
    while (i < oldSizes.size() || j < newSizes.size()) {
        const ReshapeGroup g{i, i, j, j};
        if (i < oldSizes.size() && j < newSizes.size() && sameIndex(oldSizes[i], newSizes[j])) {
            groups.push_back({i, i + 1, j, j + 1});
            ++i, ++j;
            continue;
        }
        // A size-1 dim on either side pairs with nothing: its old index is 0, its new index is never read.
        if (i < oldSizes.size() && constantValue(oldSizes[i]) == 1) {
            ++i;
            continue;
        }
        if (j < newSizes.size() && constantValue(newSizes[j]) == 1) {
            ++j;
            continue;
        }
        std::optional<int64_t> oldCount = 1, newCount = 1;
        auto take = [](const std::vector<Index>& sizes, size_t& at, std::optional<int64_t>& count) {
            auto size = constantValue(sizes[at++]);
            count = size && count ? std::optional<int64_t>(*count * *size) : std::nullopt;
        };
        if (i < oldSizes.size()) take(oldSizes, i, oldCount);
        if (j < newSizes.size()) take(newSizes, j, newCount);
        while (oldCount && newCount && *oldCount != *newCount) {
            if (*oldCount < *newCount && i < oldSizes.size()) take(oldSizes, i, oldCount);
            else if (*newCount < *oldCount && j < newSizes.size()) take(newSizes, j, newCount);
            else break;
        }
        if (!oldCount || !newCount || *oldCount != *newCount) {
            groups.push_back({g.oldBegin, oldSizes.size(), g.newBegin, newSizes.size()});
            break;
        }
        groups.push_back({g.oldBegin, i, g.newBegin, j});
    }
    return groups;
}

/// Row-major reinterpretation, group by group: new index -> offset within its group -> old index. Splitting one
/// dim is index arithmetic without div/mod, so a reshaped contiguous buffer keeps a plain strided load.
LValue reshape(Lowering& lowering, const LValue& x, std::vector<Index> sizes) {
    (void)lowering;
    if (sameSizes(sizes, x.sizes)) return x;
    std::vector<Index> oldSizes = x.sizes;
    std::vector<ReshapeGroup> groups = reshapeGroups(oldSizes, sizes);
    std::vector<Index> newSizes = sizes;
    return withLoader(x, std::move(sizes), [groups, oldSizes, newSizes](const std::vector<Index>& index) {
        std::vector<Index> old(oldSizes.size(), indexConstant(0));
        for (const ReshapeGroup& g : groups) {
            std::vector<Index> newPart(newSizes.begin() + g.newBegin, newSizes.begin() + g.newEnd);
            std::vector<Index> newStrides = contiguousStrides(newPart);
            Index flat = offsetOf(std::vector<Index>(index.begin() + g.newBegin, index.begin() + g.newEnd), newStrides);
            std::vector<Index> oldPart(oldSizes.begin() + g.oldBegin, oldSizes.begin() + g.oldEnd);
            std::vector<Index> oldStrides = contiguousStrides(oldPart);
            for (size_t d = 0; d < oldPart.size(); ++d) {
                // The group's first dim needs no modulo: the offset is below the group's element count.
                Index q = floorDiv(flat, oldStrides[d]);
                old[g.oldBegin + d] = d == 0 ? q : modulo(q, oldPart[d]);
            }
        }
        return old;
    });
}

struct ViewLowering {
    Lowering& lowering;
    const fx::Node& node;
    NodeArgs args{lowering, node};

    /// Sizes from a view/reshape argument list, with one -1 inferred from the element count.
    std::vector<Index> shapeArgs(const LValue& x) {
        std::vector<LValue> items;
        for (size_t i = 1; i < node.args.size(); ++i) {
            LValue v = args.get(i, "shape");
            if (v.kind == LValue::Kind::List) items.insert(items.end(), v.items.begin(), v.items.end());
            else items.push_back(v);
        }
        if (node.args.size() <= 1) {
            LValue v = args.get(1, "shape");
            items = v.kind == LValue::Kind::List ? v.items : std::vector<LValue>{v};
        }
        std::vector<Index> sizes;
        int inferred = -1;
        Index known = indexConstant(1);
        for (const LValue& item : items) {
            Index s;
            if (item.kind == LValue::Kind::Size) s = item.size;
            else if (item.kind == LValue::Kind::Number) s = indexConstant(item.number.asInt());
            else throw LoweringError(node.name + ": view sizes must be ints");
            if (constantValue(s) == -1) {
                inferred = static_cast<int>(sizes.size());
                sizes.push_back(s);
                continue;
            }
            known = known * s;
            sizes.push_back(s);
        }
        if (inferred >= 0) sizes[static_cast<size_t>(inferred)] = floorDiv(product(x.sizes), known);
        return sizes;
    }

    LValue permute(const LValue& x, const std::vector<int64_t>& order) {
        std::vector<Index> sizes;
        for (int64_t d : order) sizes.push_back(x.sizes.at(static_cast<size_t>(d)));
        return withLoader(x, sizes, [order](const std::vector<Index>& index) {
            std::vector<Index> old(index.size());
            for (size_t i = 0; i < order.size(); ++i) old[static_cast<size_t>(order[i])] = index[i];
            return old;
        });
    }

    LValue transpose(const LValue& x, int64_t a, int64_t b) {
        std::vector<int64_t> order;
        for (int64_t d = 0; d < x.dim(); ++d) order.push_back(d);
        std::swap(order[static_cast<size_t>(a)], order[static_cast<size_t>(b)]);
        return permute(x, order);
    }

    /// x[start:stop:step] along dim (bounds already clamped to constants or symbols).
    LValue slice(const LValue& x, int64_t dim, Index start, Index length, int64_t step) {
        std::vector<Index> sizes = x.sizes;
        sizes[static_cast<size_t>(dim)] = length;
        return withLoader(x, sizes, [dim, start, step](const std::vector<Index>& index) {
            std::vector<Index> old = index;
            old[static_cast<size_t>(dim)] = start + index[static_cast<size_t>(dim)] * indexConstant(step);
            return old;
        });
    }

    LValue select(const LValue& x, int64_t dim, Index position) {
        std::vector<Index> sizes = x.sizes;
        sizes.erase(sizes.begin() + dim);
        return withLoader(x, sizes, [dim, position](const std::vector<Index>& index) {
            std::vector<Index> old = index;
            old.insert(old.begin() + dim, position);
            return old;
        });
    }

    /// Python slice bounds on a constant size; symbolic sizes only for the whole range or constant starts.
    std::pair<Index, Index> sliceBounds(const Index& size, const vm::Value& startV, const vm::Value& stopV, int64_t step) {
        if (step <= 0) throw LoweringError("slice step must be positive");
        auto n = constantValue(size);
        auto boundOf = [&](const vm::Value& v, bool isStart) -> std::optional<int64_t> {
            if (v.isNone()) return std::nullopt;
            (void)isStart;
            return v.asInt();
        };
        auto start = boundOf(startV, true), stop = boundOf(stopV, false);
        if (!n) {
            if ((start && *start < 0) || stop) throw LoweringError("slice of a dynamic dimension");
            Index s = indexConstant(start.value_or(0));
            return {s, floorDiv(size + indexConstant(-start.value_or(0) + step - 1), indexConstant(step))};
        }
        const tensor::SliceRange range = tensor::sliceRange(*n, start, stop, step);
        return {indexConstant(range.first), indexConstant(range.length)};
    }

    std::optional<LValue> getItem() {
        LValue base = args.get(0, "self");
        const fx::Arg& key = node.args.at(1);
        if (base.kind == LValue::Kind::List) {
            LValue k = lowering.valueOf(key);
            if (k.kind != LValue::Kind::Number) throw LoweringError("tuple index must be a constant");
            int64_t i = k.number.asInt();
            if (i < 0) i += static_cast<int64_t>(base.items.size());
            return base.items.at(static_cast<size_t>(i));
        }
        if (!base.isTensor()) return std::nullopt;
        std::vector<const fx::Arg*> parts;
        if (key.kind == fx::Arg::Kind::Tuple)
            for (const fx::Arg& item : key.items) parts.push_back(&item);
        else parts.push_back(&key);
        LValue x = base;
        int64_t dim = 0;
        for (const fx::Arg* p : parts) {
            if (p->kind == fx::Arg::Kind::Slice) {
                auto value = [&](size_t i) {
                    LValue v = lowering.valueOf(p->items[i]);
                    if (v.kind == LValue::Kind::None) return vm::Value();
                    if (v.kind != LValue::Kind::Number) throw LoweringError("slice bounds must be constants");
                    return v.number;
                };
                vm::Value stepV = value(2);
                int64_t step = stepV.isNone() ? 1 : stepV.asInt();
                auto [start, length] = sliceBounds(x.sizes.at(static_cast<size_t>(dim)), value(0), value(1), step);
                x = slice(x, dim, start, length, step);
                ++dim;
            } else if (p->kind == fx::Arg::Kind::Constant && p->constant.isNone()) {
                x = unsqueeze(x, dim);
                ++dim;
            } else if (p->kind == fx::Arg::Kind::Constant && p->constant.is(vm::Kind::Ellipsis)) {
                // the parts after the ellipsis index the last dims
                int64_t remaining = 0;
                bool after = false;
                for (const fx::Arg* q : parts) {
                    if (q == p) {
                        after = true;
                        continue;
                    }
                    if (after && !(q->kind == fx::Arg::Kind::Constant && q->constant.isNone())) ++remaining;
                }
                dim = x.dim() - remaining;
            } else {
                LValue k = lowering.valueOf(*p);
                if (k.isTensor()) return std::nullopt;  // advanced indexing: eager
                Index position;
                if (k.kind == LValue::Kind::Number && k.number.is(vm::Kind::Int)) {
                    int64_t i = k.number.asInt();
                    auto n = constantValue(x.sizes.at(static_cast<size_t>(dim)));
                    if (i < 0) {
                        if (!n) throw LoweringError("negative index into a dynamic dimension");
                        i += *n;
                    }
                    position = indexConstant(i);
                } else if (k.kind == LValue::Kind::Size) {
                    position = k.size;
                } else {
                    return std::nullopt;
                }
                x = select(x, dim, position);
            }
        }
        x.origins = mergeOrigins({x}, node.name);
        return x;
    }

    LValue unsqueeze(const LValue& x, int64_t dim) {
        std::vector<Index> sizes = x.sizes;
        sizes.insert(sizes.begin() + dim, indexConstant(1));
        return withLoader(x, sizes, [dim](const std::vector<Index>& index) {
            std::vector<Index> old = index;
            old.erase(old.begin() + dim);
            return old;
        });
    }

    std::optional<LValue> item(const std::string&) { return getItem(); }

    std::optional<LValue> sizeQuery(const std::string& op) {
        LValue x = args.tensor(0, "input");
        if (op == "dim") return numberValue(vm::Value(x.dim()));
        if (op == "numel") return sizeValue(product(x.sizes));
        if (args.has(1, "dim")) return sizeValue(x.sizes.at(static_cast<size_t>(normaliseDim(args.integer(1, "dim"), x.dim()))));
        LValue list;
        list.kind = LValue::Kind::List;
        for (const Index& s : x.sizes) list.items.push_back(sizeValue(s));
        return list;
    }

    std::optional<LValue> viewOrReshape(const std::string& op) {
        LValue x = args.tensor(0, "input");
        if (op == "view" && args.dtype(1, "dtype")) return std::nullopt;
        return reshape(lowering, x, shapeArgs(x));
    }

    /// view_as / reshape_as / expand_as: the sizes of another tensor.
    std::optional<LValue> asOther(const std::string& op) {
        LValue x = args.tensor(0, "input");
        std::vector<Index> sizes = args.tensor(1, "other").sizes;
        return op == "expand_as" ? expandTo(x, sizes) : reshape(lowering, x, sizes);
    }

    std::optional<LValue> flatten(const std::string& op) {
        LValue x = args.tensor(0, "input");
        if (x.dim() == 0) return reshape(lowering, x, {indexConstant(1)});
        int64_t start = 0, end = x.dim() - 1;
        if (op == "flatten") start = normaliseDim(args.integer(1, "start_dim", 0), x.dim()), end = normaliseDim(args.integer(2, "end_dim", -1), x.dim());
        std::vector<Index> sizes(x.sizes.begin(), x.sizes.begin() + start);
        sizes.push_back(product(std::span<const Index>(x.sizes.data() + start, static_cast<size_t>(end - start + 1))));
        sizes.insert(sizes.end(), x.sizes.begin() + end + 1, x.sizes.end());
        return reshape(lowering, x, sizes);
    }

    std::optional<LValue> transposeOp(const std::string& op) {
        LValue x = args.tensor(0, "input");
        if (op == "t") return x.dim() < 2 ? x : transpose(x, 0, 1);
        if (op == "adjoint" || op == "mT") {
            if (x.dim() < 2) return std::nullopt;  // eager's error
            return transpose(x, x.dim() - 2, x.dim() - 1);
        }
        return transpose(x, normaliseDim(args.integer(1, "dim0"), x.dim()), normaliseDim(args.integer(2, "dim1"), x.dim()));
    }

    std::optional<LValue> permuteOp(const std::string&) {
        LValue x = args.tensor(0, "input");
        std::vector<int64_t> order;
        for (size_t i = 1; i < node.args.size(); ++i) {
            auto dims = args.dims(i, "dims");
            for (int64_t d : dims.value_or(std::vector<int64_t>{})) order.push_back(normaliseDim(d, x.dim()));
        }
        if (order.empty())
            for (int64_t d : args.dims(1, "dims").value_or(std::vector<int64_t>{})) order.push_back(normaliseDim(d, x.dim()));
        if (static_cast<int64_t>(order.size()) != x.dim()) throw LoweringError("permute needs every dim");
        return permute(x, order);
    }

    /// movedim/moveaxis with ints or lists, in the eager runtime's dim order.
    std::optional<LValue> movedim(const std::string&) {
        LValue x = args.tensor(0, "input");
        auto source = args.dims(1, "source"), destination = args.dims(2, "destination");
        if (!source || !destination) return std::nullopt;
        std::vector<int64_t> order;
        try {
            order = tensor::movedimOrder(x.dim(), *source, *destination);
        } catch (const tensor::TensorError&) {
            return std::nullopt;  // the extern kernel raises eager's error
        }
        return permute(x, order);
    }

    std::optional<LValue> unsqueezeOp(const std::string&) {
        LValue x = args.tensor(0, "input");
        return unsqueeze(x, normaliseDim(args.integer(1, "dim"), x.dim() + 1));
    }

    std::optional<LValue> squeeze(const std::string&) {
        LValue x = args.tensor(0, "input");
        std::vector<Index> sizes;
        std::vector<bool> dropped(x.sizes.size(), false);
        auto dims = args.dims(1, "dim");
        for (size_t d = 0; d < x.sizes.size(); ++d) {
            bool listed = !dims;
            if (dims)
                for (int64_t k : *dims) listed = listed || normaliseDim(k, x.dim()) == static_cast<int64_t>(d);
            dropped[d] = listed && constantValue(x.sizes[d]) == 1;
            if (!dropped[d]) sizes.push_back(x.sizes[d]);
        }
        return withLoader(x, sizes, [dropped](const std::vector<Index>& index) {
            std::vector<Index> old;
            size_t k = 0;
            for (bool d : dropped) old.push_back(d ? indexConstant(0) : index[k++]);
            return old;
        });
    }

    /// x seen with `sizes` (-1 keeps a size): broadcast size-1 dims read index 0, new leading dims nothing.
    LValue expandTo(const LValue& x, std::vector<Index> sizes) {
        const size_t leading = sizes.size() - x.sizes.size();
        for (size_t d = leading; d < sizes.size(); ++d)
            if (constantValue(sizes[d]) == -1) sizes[d] = x.sizes[d - leading];
        return withLoader(x, sizes, [own = x.sizes, sizes](const std::vector<Index>& index) {
            std::vector<Index> old(own.size());
            const size_t offset = sizes.size() - own.size();
            for (size_t d = 0; d < own.size(); ++d)
                old[d] = constantValue(own[d]) == 1 && constantValue(sizes[d + offset]) != 1 ? indexConstant(0) : index[d + offset];
            return old;
        });
    }

    std::optional<LValue> expand(const std::string&) {
        LValue x = args.tensor(0, "input");
        return expandTo(x, shapeArgs(x));
    }

    std::optional<LValue> selectOp(const std::string&) {
        LValue x = args.tensor(0, "input");
        int64_t dim = normaliseDim(args.integer(1, "dim"), x.dim());
        int64_t i = args.integer(2, "index");
        auto n = constantValue(x.sizes[static_cast<size_t>(dim)]);
        if (i < 0 && !n) throw LoweringError("negative index into a dynamic dimension");
        return select(x, dim, indexConstant(i < 0 ? i + *n : i));
    }

    std::optional<LValue> narrow(const std::string&) {
        LValue x = args.tensor(0, "input");
        int64_t dim = normaliseDim(args.integer(1, "dim"), x.dim());
        return slice(x, dim, indexConstant(args.integer(2, "start")), indexConstant(args.integer(3, "length")), 1);
    }

    std::optional<LValue> split(const std::string& op) {
        LValue x = args.tensor(0, "input");
        int64_t dim = normaliseDim(args.integer(2, "dim", 0), x.dim());
        auto n = constantValue(x.sizes[static_cast<size_t>(dim)]);
        if (!n) throw LoweringError("split of a dynamic dimension");
        int64_t piece = op == "split" ? args.integer(1, "split_size_or_sections") : (*n + args.integer(1, "chunks") - 1) / args.integer(1, "chunks");
        LValue list;
        list.kind = LValue::Kind::List;
        for (int64_t start = 0; start < *n; start += piece)
            list.items.push_back(slice(x, dim, indexConstant(start), indexConstant(std::min(piece, *n - start)), 1));
        return list;
    }
};

}  // namespace

void registerViewLowerings(LoweringRegistry& r) {
    using V = ViewLowering;
    r.def("getitem", OpFamily::View, member(&V::item));
    r.def({"size", "dim", "numel"}, OpFamily::View, member(&V::sizeQuery));
    r.def({"view", "reshape"}, OpFamily::View, member(&V::viewOrReshape));
    r.def({"view_as", "reshape_as", "expand_as"}, OpFamily::View, member(&V::asOther));
    r.def({"flatten", "ravel"}, OpFamily::View, member(&V::flatten));
    r.def({"t", "transpose", "swapaxes", "swapdims", "adjoint", "mT"}, OpFamily::View, member(&V::transposeOp));
    r.def("permute", OpFamily::View, member(&V::permuteOp));
    r.def({"movedim", "moveaxis"}, OpFamily::View, member(&V::movedim));
    r.def("unsqueeze", OpFamily::View, member(&V::unsqueezeOp));
    r.def("squeeze", OpFamily::View, member(&V::squeeze));
    r.def({"expand", "broadcast_to"}, OpFamily::View, member(&V::expand));
    r.def("select", OpFamily::View, member(&V::selectOp));
    r.def("narrow", OpFamily::View, member(&V::narrow));
    r.def({"split", "chunk"}, OpFamily::View, member(&V::split));
}

bool Lowering::distinctItem(const fx::Node& node, const fx::Node& self) {
    if (node.callKind != fx::CallKind::GetItem || !node.example.is(vm::Kind::Tensor) || !self.example.is(vm::Kind::Tuple)) return false;
    const tensor::Tensor& item = node.example.as<vm::TensorObject>().value;
    int sharing = 0;
    for (const vm::Value& other : self.example.as<vm::TupleObject>().items)
        sharing += other.is(vm::Kind::Tensor) && item.sharesStorageWith(other.as<vm::TensorObject>().value);
    if (sharing != 1) return false;  // itself only
    bool aliasesArgument = false;
    std::function<void(const fx::Arg&)> visit = [&](const fx::Arg& a) {
        if (a.kind == fx::Arg::Kind::NodeRef && a.node->example.is(vm::Kind::Tensor))
            aliasesArgument = aliasesArgument || item.sharesStorageWith(a.node->example.as<vm::TensorObject>().value);
        for (const fx::Arg& i : a.items) visit(i);
    };
    for (const fx::Arg& a : self.args) visit(a);
    for (const auto& kw : self.kwargs) visit(kw.second);
    return !aliasesArgument;
}

}  // namespace eng::inductor::lowering
