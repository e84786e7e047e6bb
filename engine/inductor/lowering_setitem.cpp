// Item assignment (`x[index] = value`, one operator.setitem node) lowered functionally, as AOT Autograd's
// functionalisation turns it into slice_scatter/select_scatter or index_put: the result is x with the indexed
// region replaced; lowerCall makes it x's value for later readers and writes it back into a graph input.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "fx/graph_runner.h"
#include "inductor/lowering_registry.h"
#include "tensor/creation.h"
#include "tensor/dtype.h"
#include "tensor/indexing.h"
#include "tensor/shape.h"

namespace eng::inductor::lowering {

namespace {

/// How one dim of x is indexed: kept whole (a full slice or a dim the index does not reach), a slice, or one
/// position (an int, which removes the dim from the indexed region).
struct DimIndex {
    enum class Kind { Whole, Slice, Position } kind = Kind::Whole;
    int64_t start = 0, length = 0, step = 1;  // Slice: the positions start, start + step, ... (length of them)
    Index position;                           // Position
};

/// The indexed region of `x[key]` for a basic key (ints, slices with constant bounds, None, Ellipsis, tuples of
/// them): each dim of x's index and, for each dim of the region, the dim of x it walks (-1 for a None's dim of 1).
struct BasicIndex {
    std::vector<DimIndex> dims;
    std::vector<int> regionDims;
};

std::optional<BasicIndex> basicIndex(Lowering& lowering, const LValue& x, const fx::Arg& key) {
    std::vector<const fx::Arg*> parts;
    if (key.kind == fx::Arg::Kind::Tuple) for (const fx::Arg& item : key.items) parts.push_back(&item);
    else parts.push_back(&key);
    auto isNone = [](const fx::Arg* p) { return p->kind == fx::Arg::Kind::Constant && p->constant.isNone(); };
    auto isEllipsis = [](const fx::Arg* p) { return p->kind == fx::Arg::Kind::Constant && p->constant.is(vm::Kind::Ellipsis); };
    int64_t consuming = 0;
    for (const fx::Arg* p : parts) consuming += !isNone(p) && !isEllipsis(p);
    if (consuming > x.dim()) return std::nullopt;
    BasicIndex out;
    out.dims.resize(static_cast<size_t>(x.dim()));
    int dim = 0;
    for (const fx::Arg* p : parts) {
        if (isNone(p)) {
            out.regionDims.push_back(-1);
        } else if (isEllipsis(p)) {
            for (int64_t skipped = x.dim() - consuming; skipped > 0; --skipped) out.regionDims.push_back(dim++);
            consuming = x.dim();  // a second Ellipsis is Python's IndexError: the eager op raises it
        } else if (p->kind == fx::Arg::Kind::Slice) {
            std::optional<int64_t> bounds[3];
            for (size_t i = 0; i < 3; ++i) {
                const LValue v = lowering.valueOf(p->items[i]);
                if (v.kind == LValue::Kind::Number && v.number.is(vm::Kind::Int)) bounds[i] = v.number.asInt();
                else if (v.kind != LValue::Kind::None) return std::nullopt;  // a bound that changes between calls
            }
            DimIndex& d = out.dims[static_cast<size_t>(dim)];
            const int64_t step = bounds[2].value_or(1);
            if (step <= 0) return std::nullopt;
            if (bounds[0].value_or(0) != 0 || bounds[1] || step != 1) {
                const std::optional<int64_t> n = constantValue(x.sizes[static_cast<size_t>(dim)]);
                if (!n) return std::nullopt;
                const tensor::SliceRange range = tensor::sliceRange(*n, bounds[0], bounds[1], step);
                d = {DimIndex::Kind::Slice, range.first, range.length, step, {}};
            }
            out.regionDims.push_back(dim++);
        } else {
            const LValue k = p->kind == fx::Arg::Kind::NodeRef || p->kind == fx::Arg::Kind::Constant ? lowering.valueOf(*p) : LValue{};
            DimIndex& d = out.dims[static_cast<size_t>(dim)];
            d.kind = DimIndex::Kind::Position;
            if (k.kind == LValue::Kind::Number && k.number.is(vm::Kind::Int)) {
                const std::optional<int64_t> n = constantValue(x.sizes[static_cast<size_t>(dim)]);
                int64_t i = k.number.asInt();
                if (!n || i < -*n || i >= *n) return std::nullopt;  // out of range: the eager op raises
                d.position = indexConstant(i < 0 ? i + *n : i);
            } else {
                return std::nullopt;  // a tensor, a size that changes between calls, a bool: index_put
            }
            ++dim;
        }
    }
    while (dim < x.dim()) out.regionDims.push_back(dim++);
    return out;
}

/// Reads `value` (a number or a tensor broadcast to `region` as setitem broadcasts: leading dims of 1 dropped) at
/// the region's coordinates, as x's dtype.
std::optional<std::function<ExprPtr(const std::vector<Index>&)>> regionReader(Lowering& lowering, const LValue& value,
                                                                             const std::vector<Index>& region, DType dtype) {
    if (value.kind == LValue::Kind::Number) {
        const LValue constant = lowering.asTensor(value, value.number.is(vm::Kind::Float) ? DType::Float64 : DType::Int64);
        return [constant, dtype](const std::vector<Index>&) { return cast(constant.loader({}), dtype); };
    }
    if (!value.isTensor() || tensor::isComplex(value.dtype)) return std::nullopt;
    std::vector<Index> sizes = value.sizes;
    while (sizes.size() > region.size() && constantValue(sizes.front()) == 1) sizes.erase(sizes.begin());
    if (sizes.size() > region.size()) return std::nullopt;
    const size_t lead = region.size() - sizes.size();
    std::vector<bool> broadcast(sizes.size());
    for (size_t d = 0; d < sizes.size(); ++d) {
        broadcast[d] = constantValue(sizes[d]) == 1 && constantValue(region[lead + d]) != 1;
        if (!broadcast[d] && !sameIndex(sizes[d], region[lead + d])) return std::nullopt;  // the eager op raises
    }
    const size_t dropped = value.sizes.size() - sizes.size();
    return [loader = value.loader, broadcast, lead, dropped, dtype](const std::vector<Index>& at) {
        std::vector<Index> index(dropped, indexConstant(0));
        for (size_t d = 0; d < broadcast.size(); ++d) index.push_back(broadcast[d] ? indexConstant(0) : at[lead + d]);
        return cast(loader(index), dtype);
    };
}

ExprPtr both(ExprPtr a, ExprPtr b) { return a ? binary(ElementOp::LogicalAnd, a, b) : b; }
ExprPtr indexCompare(ElementOp op, const Index& i, const Index& bound) {
    return binary(op, indexValue(i, DType::Int64), indexValue(bound, DType::Int64));
}

/// x with the basic-indexed region replaced: where(inside the region, value at the region's coordinates, x).
std::optional<LValue> basicWrite(Lowering& lowering, const LValue& x, const BasicIndex& index, const LValue& value) {
    std::vector<Index> region;
    for (int dim : index.regionDims) {
        const DimIndex* d = dim < 0 ? nullptr : &index.dims[static_cast<size_t>(dim)];
        region.push_back(!d ? indexConstant(1) : d->kind == DimIndex::Kind::Slice ? indexConstant(d->length) : x.sizes[static_cast<size_t>(dim)]);
    }
    for (const DimIndex& d : index.dims)
        if (d.kind == DimIndex::Kind::Slice && d.length == 0) return x;  // an empty region: nothing is written
    auto read = regionReader(lowering, value, region, x.dtype);
    if (!read) return std::nullopt;
    LValue out = x;
    out.buffer = -1;
    out.origins = mergeOrigins({x, value}, lowering.currentNode()->name);
    out.loader = [old = x.loader, dims = index.dims, regionDims = index.regionDims, read = *read](const std::vector<Index>& at) {
        ExprPtr inside;
        for (size_t dim = 0; dim < dims.size(); ++dim) {
            const DimIndex& d = dims[dim];
            if (d.kind == DimIndex::Kind::Position) inside = both(inside, indexCompare(ElementOp::Eq, at[dim], d.position));
            if (d.kind != DimIndex::Kind::Slice) continue;
            inside = both(inside, indexCompare(ElementOp::Ge, at[dim], indexConstant(d.start)));
            inside = both(inside, indexCompare(ElementOp::Lt, at[dim], indexConstant(d.start + (d.length - 1) * d.step + 1)));
        }
        // Region coordinates kept in range outside the region too (both sides of the where are loaded): a
        // slice's offset from its start is shifted by a multiple of step * length that makes it non-negative.
        std::vector<Index> coordinate;
        for (int dim : regionDims) {
            if (dim < 0) {
                coordinate.push_back(indexConstant(0));
                continue;
            }
            const DimIndex& d = dims[static_cast<size_t>(dim)];
            if (d.kind != DimIndex::Kind::Slice) {
                coordinate.push_back(at[static_cast<size_t>(dim)]);
                continue;
            }
            const int64_t period = d.step * d.length, shift = period * ((d.start + period - 1) / period) - d.start;
            const Index offset = at[static_cast<size_t>(dim)] + indexConstant(shift);
            if (d.step != 1)
                inside = both(inside, indexCompare(ElementOp::Eq, modulo(offset, indexConstant(d.step)), indexConstant(0)));
            coordinate.push_back(modulo(floorDiv(offset, indexConstant(d.step)), indexConstant(d.length)));
        }
        const ExprPtr written = read(coordinate), kept = old(at);
        return inside ? where(inside, written, kept) : written;
    };
    return out;
}

/// x with the positions a boolean mask over x's leading dims selects set to one value (`scores[mask] = -inf`).
std::optional<LValue> maskWrite(Lowering& lowering, const LValue& x, const LValue& mask, const LValue& value) {
    if (mask.dtype != DType::Bool || mask.dim() > x.dim()) return std::nullopt;
    for (size_t d = 0; d < mask.sizes.size(); ++d)
        if (!sameIndex(mask.sizes[d], x.sizes[d])) return std::nullopt;
    if (value.isTensor())
        for (const Index& s : value.sizes)
            if (constantValue(s) != 1) return std::nullopt;  // one value per selected position: index_put
    auto read = regionReader(lowering, value, {}, x.dtype);
    if (!read) return std::nullopt;
    LValue out = x;
    out.buffer = -1;
    out.origins = mergeOrigins({x, mask, value}, lowering.currentNode()->name);
    out.loader = [old = x.loader, selected = mask.loader, rank = mask.sizes.size(), read = *read](const std::vector<Index>& at) {
        const std::vector<Index> leading(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(rank));
        return where(cast(selected(leading), DType::Bool), read({}), old(at));
    };
    return out;
}

std::optional<LValue> setItem(Lowering& lowering, const std::string&, const fx::Node& node) {
    if (node.args.size() != 3 || !node.kwargs.empty()) return std::nullopt;
    const LValue x = lowering.valueOf(node.args[0]);
    if (!x.isTensor()) return std::nullopt;
    const LValue value = lowering.valueOf(node.args[2]);
    if (value.kind != LValue::Kind::Number && !value.isTensor()) return std::nullopt;
    if (value.kind == LValue::Kind::Number && !value.number.is(vm::Kind::Float) && !value.number.is(vm::Kind::Int) &&
        !value.number.is(vm::Kind::Bool))
        return std::nullopt;
    const fx::Arg& key = node.args[1];
    if (key.kind == fx::Arg::Kind::NodeRef) {
        const LValue k = lowering.valueOf(key);
        if (k.isTensor()) {
            if (auto written = maskWrite(lowering, x, k, value)) return written;
            return std::nullopt;
        }
    }
    if (auto index = basicIndex(lowering, x, key))
        if (auto written = basicWrite(lowering, x, *index, value)) return written;
    return std::nullopt;
}

/// What no kernel expresses (integer tensor indices, a mask with one value per selected position, bounds that
/// change between calls): index_put on a copy of x, an extern kernel that runs the eager op on the copy.
LValue copyThenSetItem(Lowering& lowering, const fx::Node& node) {
    LValue x = lowering.valueOf(node.args[0]);
    std::vector<LValue> operands{x};
    std::vector<const fx::Node*> reads{node.args[0].node};
    std::function<void(const fx::Arg&)> collect = [&](const fx::Arg& arg) {
        if (arg.kind == fx::Arg::Kind::NodeRef && std::find(reads.begin(), reads.end(), arg.node) == reads.end()) {
            const LValue v = lowering.valueOf(arg);
            if (!v.isTensor()) throw LoweringError(fmt::format("{}: index {} is neither a tensor nor a constant", node.name, arg.node->name));
            reads.push_back(arg.node);
            operands.push_back(v);
        }
        for (const fx::Arg& item : arg.items) collect(item);
    };
    collect(node.args[1]);
    collect(node.args[2]);
    LValue out = lowering.externCall("index_put", operands, x.sizes, x.dtype, [](const vm::ValueList&) { return vm::Value(); });
    // The call rebuilds the node's index around its tensors, which needs the interpreter it runs under.
    lowering.buffer(out.buffer).extern_.call = [&node, reads](vm::Interpreter& vm, const vm::ValueList& tensors, const SymbolValues&) {
        const vm::Value copy = vm::callOp("Tensor.clone", {tensors.at(0)});
        fx::callNodeOn(vm, node, [&](const fx::Node& read) {
            if (&read == reads[0]) return copy;
            return tensors.at(static_cast<size_t>(std::find(reads.begin(), reads.end(), &read) - reads.begin()));
        });
        return copy;
    };
    return out;
}

/// torch.index_put(zeros, indices, values, accumulate), embedding's backward (aot/derivative_rules.cpp): an extern
/// that makes its zeros and scatters into them in place, where the eager functional op copies its first operand (for
/// GPT-2's token embedding, a kernel writing 154 MB of float32 zeros, then a copy of them). Static sizes only; any
/// other first operand, or zeros something else reads or writes, runs the eager op. CWB_INDEX_PUT_COPIES_ZEROS=1 lowers it as before.
std::optional<LValue> indexPutIntoZeros(Lowering& lowering, const fx::Node& node) {
    static const bool off = [] {
        const char* value = std::getenv("CWB_INDEX_PUT_COPIES_ZEROS");
        return value != nullptr && std::string_view(value) == "1";
    }();
    if (off || nodeIsInPlace(node) || node.args.size() < 3 || node.args.size() > 4 || !node.kwargs.empty() || node.args[0].kind != fx::Arg::Kind::NodeRef) return std::nullopt;
    const std::string base = nodeOpName(*node.args[0].node);
    if (base != "new_zeros" && base != "zeros" && base != "zeros_like") return std::nullopt;
    // Only when the index_put is the zeros' one reader: an in-place op on them before it (z.add_(1), z[0] = 2) is
    // another reader in the graph, and fresh zeros would drop what it wrote.
    if (lowering.soleUser(*node.args[0].node) != &node) return std::nullopt;
    const fx::Arg& indexList = node.args[1];
    if (indexList.kind != fx::Arg::Kind::List && indexList.kind != fx::Arg::Kind::Tuple) return std::nullopt;
    bool accumulate = false;
    if (node.args.size() == 4) {
        if (node.args[3].kind != fx::Arg::Kind::Constant || !node.args[3].constant.is(vm::Kind::Bool)) return std::nullopt;
        accumulate = node.args[3].constant.asBool();
    }
    const LValue x = lowering.valueOf(node.args[0]);
    tensor::Shape sizes;
    for (const Index& size : x.sizes) {
        const std::optional<int64_t> value = constantValue(size);
        if (!value) return std::nullopt;
        sizes.push_back(*value);
    }
    // Operands: each index tensor (an absent index is -1 in `slots`), then the values.
    std::vector<LValue> operands;
    std::vector<int> slots;
    for (const fx::Arg& item : indexList.items) {
        if (item.kind == fx::Arg::Kind::Constant && item.constant.isNone()) {
            slots.push_back(-1);
            continue;
        }
        if (item.kind != fx::Arg::Kind::NodeRef) return std::nullopt;
        const LValue index = lowering.valueOf(item);
        if (!index.isTensor()) return std::nullopt;
        slots.push_back(static_cast<int>(operands.size()));
        operands.push_back(index);
    }
    if (node.args[2].kind != fx::Arg::Kind::NodeRef) return std::nullopt;
    const LValue values = lowering.valueOf(node.args[2]);
    if (!values.isTensor()) return std::nullopt;
    operands.push_back(values);
    // (the result's device, as traced: a graph on one device may still make its zeros on another)
    if (!node.example.is(vm::Kind::Tensor)) return std::nullopt;
    const tensor::Device device = node.example.as<vm::TensorObject>().value.device();
    const DType dtype = x.dtype;
    return lowering.externCall("index_put", std::move(operands), x.sizes, dtype, [sizes, dtype, device, slots, accumulate](const vm::ValueList& t) {
        std::vector<tensor::Tensor> indices;
        for (int slot : slots) indices.push_back(slot < 0 ? tensor::Tensor() : t.at(static_cast<size_t>(slot)).as<vm::TensorObject>().value);
        const tensor::Tensor out = tensor::zeros(sizes, tensor::TensorOptions{dtype, device, false});
        tensor::indexPut(out, indices, t.back().as<vm::TensorObject>().value, accumulate);
        return vm::makeTensor(out);
    });
}

}  // namespace

void registerIndexWriteLowerings(LoweringRegistry& r) {
    r.def("index_put", OpFamily::Pointwise, [](Lowering& lowering, const std::string&, const fx::Node& node) { return indexPutIntoZeros(lowering, node); });
    r.def("setitem", OpFamily::Pointwise, [](Lowering& lowering, const std::string& op, const fx::Node& node) -> std::optional<LValue> {
        if (auto written = setItem(lowering, op, node)) return written;
        return copyThenSetItem(lowering, node);
    });
}

}  // namespace eng::inductor::lowering
