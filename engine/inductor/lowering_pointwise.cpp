// Pointwise lowerings: arithmetic, comparisons, math functions, activations (gelu, silu, ...), where/clamp,
// dtype conversions, identities, cat, new_ones/new_zeros/new_full and the cumsum of a constant. Each builds a loader over the broadcast operands; nothing is materialised.
#include <cmath>
#include <memory>
#include <unordered_set>
#include <fmt/format.h>

#include "inductor/lowering_registry.h"

namespace eng::inductor::lowering {

DType computeTypeFor(DType dtype) { return tensor::isReducedFloat(dtype) ? DType::Float32 : dtype; }

DType promote(const std::vector<const LValue*>& operands) {
    tensor::ResultTypeBuilder builder;
    for (const LValue* v : operands) {
        if (v->isTensor()) builder.addTensor(v->dtype, v->dim());
        else if (v->kind == LValue::Kind::Size) builder.addScalar(tensor::ScalarKind::Int);
        else if (v->kind == LValue::Kind::Number)
            builder.addScalar(v->number.is(vm::Kind::Float)  ? tensor::ScalarKind::Float
                              : v->number.is(vm::Kind::Bool) ? tensor::ScalarKind::Bool
                                                             : tensor::ScalarKind::Int);
        else throw LoweringError("operand is not a tensor or a number");
    }
    return builder.result();
}

std::vector<Index> broadcastSizes(const std::vector<Index>& a, const std::vector<Index>& b) {
    std::vector<Index> out(std::max(a.size(), b.size()));
    for (size_t i = 0; i < out.size(); ++i) {
        const Index* x = i < a.size() ? &a[a.size() - 1 - i] : nullptr;
        const Index* y = i < b.size() ? &b[b.size() - 1 - i] : nullptr;
        Index& o = out[out.size() - 1 - i];
        if (!x) o = *y;
        else if (!y) o = *x;
        else if (constantValue(*x) == 1) o = *y;
        else if (constantValue(*y) == 1 || sameIndex(*x, *y)) o = *x;
        else throw LoweringError(fmt::format("cannot broadcast sizes {} and {}", toString(*x), toString(*y)));
    }
    return out;
}

ExprPtr broadcastLoad(const LValue& operand, const std::vector<Index>& index, const std::vector<Index>& resultSizes, DType dtype) {
    std::vector<Index> own(operand.sizes.size());
    const size_t offset = resultSizes.size() - operand.sizes.size();
    for (size_t d = 0; d < own.size(); ++d) {
        const bool broadcast = constantValue(operand.sizes[d]) == 1 && constantValue(resultSizes[d + offset]) != 1;
        own[d] = broadcast ? indexConstant(0) : index[d + offset];
    }
    return cast(operand.loader(own), dtype);
}

std::vector<std::string> mergeOrigins(const std::vector<LValue>& operands, const std::string& self) {
    std::vector<std::string> merged;
    std::unordered_set<std::string> seen;
    for (const LValue& v : operands)
        for (const std::string& o : v.origins)
            if (seen.insert(o).second) merged.push_back(o);
    merged.push_back(self);
    return merged;
}

LValue mapElements(const std::vector<LValue>& operands, DType computeDtype, DType resultDtype,
                   std::function<ExprPtr(const std::vector<ExprPtr>&)> body) {
    LValue out;
    out.kind = LValue::Kind::Tensor;
    out.dtype = resultDtype;
    for (const LValue& v : operands) out.sizes = broadcastSizes(out.sizes, v.sizes);
    auto sizes = out.sizes;
    // The loader shares its operands, without their origins, instead of holding copies: copying a loader copies
    // what it captured, so every node of a chain of n pointwise nodes copied the chain below it with its origins
    // (a compiled loop of 1,000 additions took 3 GB to lower, 10,000 ran out of memory).
    auto inputs = std::make_shared<std::vector<LValue>>(operands);
    for (LValue& v : *inputs) v.origins.clear();
    out.loader = [inputs, sizes, computeDtype, resultDtype, body](const std::vector<Index>& index) {
        std::vector<ExprPtr> elements;
        for (const LValue& v : *inputs) elements.push_back(broadcastLoad(v, index, sizes, computeDtype));
        return cast(body(elements), resultDtype);
    };
    return out;
}

namespace {

ExprPtr c(double v, DType dtype) { return constantFloat(v, dtype); }

struct PointwiseLowering {
    Lowering& lowering;
    const fx::Node& node;
    NodeArgs args{lowering, node};

    LValue finish(LValue v, const std::vector<LValue>& operands) {
        v.origins = mergeOrigins(operands, node.name);
        return v;
    }

    /// Unary op computing in floating point: integer inputs become float32, half types compute in float.
    LValue floatUnary(std::function<ExprPtr(ExprPtr, DType)> f) {
        LValue x = args.tensor(0, "input");
        DType result = tensor::isFloating(x.dtype) ? x.dtype : tensor::kDefaultFloat;
        DType compute = computeTypeFor(result);
        return finish(mapElements({x}, compute, result, [f, compute](const std::vector<ExprPtr>& e) { return f(e[0], compute); }), {x});
    }

    LValue sameTypeUnary(std::function<ExprPtr(ExprPtr, DType)> f) {
        LValue x = args.tensor(0, "input");
        DType compute = computeTypeFor(x.dtype);
        return finish(mapElements({x}, compute, x.dtype, [f, compute](const std::vector<ExprPtr>& e) { return f(e[0], compute); }), {x});
    }

    std::vector<LValue> tensorsOf(const std::vector<LValue>& operands, DType dtype) {
        std::vector<LValue> tensors;
        for (const LValue& v : operands) tensors.push_back(lowering.asTensor(v, dtype));
        return tensors;
    }

    /// a op b with PyTorch's promotion; comparisons give bool.
    LValue binaryOp(ElementOp op, const LValue& a, const LValue& b, std::optional<DType> forcedResult = std::nullopt) {
        DType promoted = promote({&a, &b});
        // true division and the Promote ops (atan2) of integers compute in the default float type
        if ((op == ElementOp::Div || elementTyping(op) == ElementTyping::Promote) && !tensor::isFloating(promoted))
            promoted = tensor::kDefaultFloat;
        DType compute = computeTypeFor(promoted);
        DType result = isComparison(op) ? DType::Bool : forcedResult.value_or(promoted);
        auto operands = tensorsOf({a, b}, compute);
        return finish(mapElements(operands, compute, result, [op](const std::vector<ExprPtr>& e) { return binary(op, e[0], e[1]); }),
                      operands);
    }
    /// An op of the elementwise tables, typed as its row says (ElementTyping). A call with more arguments than
    /// the op takes (torch.round's decimals, an out= tensor) runs as an extern kernel.
    std::optional<LValue> elementwiseOp(const std::string& op) {
        const ElementOp e = elementOpsByName().at(op);
        const size_t arity = isUnary(e) ? 1 : 2;
        if (args.positionalCount() + node.kwargs.size() != arity) return std::nullopt;
        if (isUnary(e)) {
            const auto apply = [e](ExprPtr x, DType) { return unary(e, x); };
            switch (elementTyping(e)) {
                case ElementTyping::Promote:
                case ElementTyping::Floating: return floatUnary(apply);
                case ElementTyping::Bool: {
                    LValue x = args.tensor(0, "input");
                    return finish(mapElements({x}, x.dtype, DType::Bool, [e](const std::vector<ExprPtr>& v) { return unary(e, v[0]); }), {x});
                }
                default: return sameTypeUnary(apply);
            }
        }
        LValue a = args.get(0, "input"), b = args.get(1, "other");
        if (!a.isTensor() && !b.isTensor()) return std::nullopt;
        return binaryOp(e, a, b);
    }

    std::optional<LValue> identity(const std::string&) {
        LValue x = args.tensor(0, "input");
        return x;
    }

    std::optional<LValue> relu(const std::string&) {
        return sameTypeUnary([](ExprPtr x, DType) { return unary(ElementOp::Relu, x); });
    }

    std::optional<LValue> clampedRelu(const std::string& op) {
        double low = op == "relu6" ? 0.0 : args.number(1, "min_val", -1.0), high = op == "relu6" ? 6.0 : args.number(2, "max_val", 1.0);
        return sameTypeUnary([low, high](ExprPtr x, DType d) {
            return binary(ElementOp::Minimum, binary(ElementOp::Maximum, x, c(low, d)), c(high, d));
        });
    }

    std::optional<LValue> silu(const std::string&) {
        return floatUnary([](ExprPtr x, DType) { return unary(ElementOp::Silu, x); });
    }

    std::optional<LValue> gelu(const std::string&) {
        const ElementOp op = args.text(1, "approximate", "none") == "tanh" ? ElementOp::GeluTanh : ElementOp::Gelu;
        return floatUnary([op](ExprPtr x, DType) { return unary(op, x); });
    }

    std::optional<LValue> leakyRelu(const std::string&) {
        double slope = args.number(1, "negative_slope", 0.01);
        return sameTypeUnary([slope](ExprPtr x, DType d) {
            return where(binary(ElementOp::Gt, x, c(0, d)), x, binary(ElementOp::Mul, x, c(slope, d)));
        });
    }

    std::optional<LValue> elu(const std::string&) {
        double alpha = args.number(1, "alpha", 1.0);
        return floatUnary([alpha](ExprPtr x, DType d) {
            return where(binary(ElementOp::Gt, x, c(0, d)), x, binary(ElementOp::Mul, c(alpha, d), unary(ElementOp::Expm1, x)));
        });
    }

    /// PyTorch's decomposition of softplus, for every beta and threshold: at the defaults (beta 1, threshold 20)
    /// x * 1 and y / 1 are exact, so it computes the Softplus row's value bit for bit.
    std::optional<LValue> softplus(const std::string&) {
        double beta = args.number(1, "beta", 1.0), threshold = args.number(2, "threshold", 20.0);
        return floatUnary([beta, threshold](ExprPtr x, DType d) {
            auto bx = binary(ElementOp::Mul, x, c(beta, d));
            auto soft = binary(ElementOp::Div, unary(ElementOp::Log1p, unary(ElementOp::Exp, bx)), c(beta, d));
            return where(binary(ElementOp::Gt, bx, c(threshold, d)), x, soft);
        });
    }

    std::optional<LValue> hardSigmoid(const std::string& op) {
        const bool swish = op == "hardswish";
        return floatUnary([swish](ExprPtr x, DType d) {
            auto clipped = binary(ElementOp::Minimum, binary(ElementOp::Maximum, binary(ElementOp::Add, x, c(3, d)), c(0, d)), c(6, d));
            auto sig = binary(ElementOp::Div, clipped, c(6, d));
            return swish ? binary(ElementOp::Mul, x, sig) : sig;
        });
    }

    /// torch.div with its rounding modes, each a row of the elementwise table; any other mode runs eagerly, which
    /// raises PyTorch's error.
    std::optional<LValue> divOp(const std::string&) {
        LValue a = args.get(0, "input"), b = args.get(1, "other");
        if (!a.isTensor() && !b.isTensor()) return std::nullopt;
        std::string mode = args.text(2, "rounding_mode", "");
        if (mode.empty()) return binaryOp(ElementOp::Div, a, b);
        if (mode == "floor") return binaryOp(ElementOp::FloorDiv, a, b);
        if (mode == "trunc") return binaryOp(ElementOp::DivTrunc, a, b);
        return std::nullopt;
    }

    std::optional<LValue> addOrSub(const std::string& op) {
        LValue a = args.get(0, "input"), b = args.get(1, "other");
        if (!a.isTensor() && !b.isTensor()) return std::nullopt;
        double alpha = args.number(2, "alpha", 1.0);
        ElementOp e = op == "add" ? ElementOp::Add : ElementOp::Sub;
        if (alpha == 1.0) return binaryOp(e, a, b);
        DType promoted = promote({&a, &b});
        DType compute = computeTypeFor(promoted);
        auto operands = tensorsOf({a, b}, compute);
        return finish(mapElements(operands, compute, promoted, [e, alpha, compute](const std::vector<ExprPtr>& x) {
            return binary(e, x[0], binary(ElementOp::Mul, x[1], c(alpha, compute)));
        }), operands);
    }

    std::optional<LValue> powOp(const std::string&) {
        LValue a = args.get(0, "input"), b = args.get(1, "exponent");
        if (!a.isTensor() && !b.isTensor()) return std::nullopt;
        if (a.isTensor() && b.kind == LValue::Kind::Number && b.number.asFloat() == 2.0) {
            DType promoted = promote({&a, &b});
            DType compute = computeTypeFor(promoted);
            return finish(mapElements({a}, compute, promoted, [](const std::vector<ExprPtr>& x) { return binary(ElementOp::Mul, x[0], x[0]); }), {a});
        }
        return binaryOp(ElementOp::Pow, a, b);
    }

    std::optional<LValue> whereOp(const std::string&) {
        if (!(args.positionalCount() == 3)) return std::nullopt;
        LValue cond = args.tensor(0, "condition"), a = args.get(1, "input"), b = args.get(2, "other");
        DType promoted = promote({&a, &b});
        DType compute = computeTypeFor(promoted);
        auto operands = tensorsOf({a, b}, compute);
        operands.insert(operands.begin(), cond);
        return finish(mapElements(operands, compute, promoted, [](const std::vector<ExprPtr>& x) {
            return where(cast(x[0], DType::Bool), x[1], x[2]);
        }), operands);
    }

    std::optional<LValue> maskedFill(const std::string&) {
        LValue x = args.tensor(0, "input"), mask = args.tensor(1, "mask"), value = args.get(2, "value");
        DType compute = computeTypeFor(x.dtype);
        auto operands = std::vector<LValue>{x, mask, lowering.asTensor(value, compute)};
        return finish(mapElements(operands, compute, x.dtype, [](const std::vector<ExprPtr>& e) {
            return where(cast(e[1], DType::Bool), e[2], e[0]);
        }), operands);
    }

    std::optional<LValue> clampOp(const std::string&) {
        LValue x = args.tensor(0, "input");
        LValue low = args.has(1, "min") ? args.get(1, "min") : LValue{}, high = args.has(2, "max") ? args.get(2, "max") : LValue{};
        if (low.isTensor() || high.isTensor()) return std::nullopt;
        DType compute = computeTypeFor(x.dtype);
        const bool hasLow = low.kind == LValue::Kind::Number, hasHigh = high.kind == LValue::Kind::Number;
        double lo = hasLow ? low.number.asFloat() : 0, hi = hasHigh ? high.number.asFloat() : 0;
        return finish(mapElements({x}, compute, x.dtype, [=](const std::vector<ExprPtr>& e) {
            ExprPtr v = e[0];
            if (hasLow) v = binary(ElementOp::Maximum, v, c(lo, compute));
            if (hasHigh) v = binary(ElementOp::Minimum, v, c(hi, compute));
            return v;
        }), {x});
    }

    /// Conversion methods (x.float(), ...) and to/type with a dtype alone.
    std::optional<LValue> convert(const std::string& op) {
        std::optional<DType> target;
        if (op == "to" || op == "type") {
            target = args.dtype(1, "dtype");
            for (const auto& [key, a] : node.kwargs)
                if (key == "dtype" && a.kind == fx::Arg::Kind::Constant && a.constant.is(vm::Kind::DType)) target = a.constant.as<vm::DTypeObject>().value;
            if (args.has(2, "device") || node.args.size() > 2) return std::nullopt;
        } else if (node.op == fx::NodeOp::CallMethod) {
            target = tensor::dtypeOfConversionMethod(op);
        }
        if (!target) return std::nullopt;
        LValue x = args.tensor(0, "input");
        return finish(mapElements({x}, x.dtype, *target, [](const std::vector<ExprPtr>& e) { return e[0]; }), {x});
    }

    /// torch.cat along a dim of constant sizes, as Inductor's pointwise cat: each element reads the input its position
    /// falls in (every input's index is wrapped into its range, so no load leaves it), so one kernel writes the result
    /// (the attention's q/k/v gradients) where the eager op copied input by input. Dynamic or empty pieces (the legacy
    /// 1-D empty tensor that cat skips) keep the eager op.
    std::optional<LValue> cat(const std::string&) {
        if (findArg(node, SIZE_MAX, "out")) return std::nullopt;  // the eager op writes it
        LValue list = args.get(0, "tensors");
        if (list.kind != LValue::Kind::List || list.items.empty()) return std::nullopt;
        const LValue& first = list.items[0];
        if (!first.isTensor() || first.dim() == 0) return std::nullopt;
        int64_t dim = args.has(1, "dim") ? args.integer(1, "dim") : 0;
        if (dim < -first.dim() || dim >= first.dim()) return std::nullopt;
        if (dim < 0) dim += first.dim();
        std::vector<int64_t> offsets, extents;
        std::vector<const LValue*> operands;
        int64_t total = 0;
        for (const LValue& item : list.items) {
            if (!item.isTensor() || item.dim() != first.dim()) return std::nullopt;
            for (int64_t d = 0; d < first.dim(); ++d)
                if (d != dim && !sameIndex(item.sizes[static_cast<size_t>(d)], first.sizes[static_cast<size_t>(d)])) return std::nullopt;
            const std::optional<int64_t> extent = constantValue(item.sizes[static_cast<size_t>(dim)]);
            if (!extent || *extent <= 0) return std::nullopt;
            offsets.push_back(total);
            extents.push_back(*extent);
            total += *extent;
            operands.push_back(&item);
        }
        const DType dtype = promote(operands);
        LValue out;
        out.kind = LValue::Kind::Tensor;
        out.dtype = dtype;
        out.sizes = first.sizes;
        out.sizes[static_cast<size_t>(dim)] = indexConstant(total);
        out.origins = mergeOrigins(list.items, node.name);
        out.loader = [items = list.items, offsets, extents, dim, dtype](const std::vector<Index>& index) {
            const Index& position = index[static_cast<size_t>(dim)];
            ExprPtr value;
            for (size_t k = items.size(); k-- > 0;) {
                std::vector<Index> local = index;
                // (position - offset) mod extent, kept non-negative: offset is at most a multiple of extent below position
                const int64_t lift = (offsets[k] + extents[k] - 1) / extents[k] * extents[k];
                local[static_cast<size_t>(dim)] = modulo(position + indexConstant(lift - offsets[k]), indexConstant(extents[k]));
                ExprPtr piece = cast(items[k].loader(local), dtype);
                value = value ? where(binary(ElementOp::Lt, indexValue(position, DType::Int64), constantInt(offsets[k] + extents[k], DType::Int64)), piece, value)
                              : piece;
            }
            return value;
        };
        return out;
    }

    /// x.new_ones(size) / new_zeros(size) / new_full(size, fill): a constant of constant sizes in x's dtype (or dtype=).
    std::optional<LValue> newFilled(const std::string& op) {
        for (const auto& [key, arg] : node.kwargs)
            if (key != "dtype") return std::nullopt;  // device=, layout=, ...: the eager op
        LValue x = args.tensor(0, "self");
        const bool full = op == "new_full";
        std::vector<LValue> items;
        if (LValue shape = args.get(1, "size"); shape.kind == LValue::Kind::List) items = shape.items;
        else if (!full) for (size_t i = 1; i < node.args.size(); ++i) items.push_back(args.get(i, "size"));
        else return std::nullopt;
        LValue out;
        for (const LValue& item : items) {
            if (item.kind != LValue::Kind::Number || !item.number.is(vm::Kind::Int) || item.number.asInt() < 0) return std::nullopt;
            out.sizes.push_back(indexConstant(item.number.asInt()));
        }
        const double fill = op == "new_zeros" ? 0.0 : op == "new_ones" ? 1.0 : args.number(2, "fill_value");
        out.kind = LValue::Kind::Tensor;
        out.dtype = args.dtype(99, "dtype").value_or(x.dtype);
        out.loader = [fill, dtype = out.dtype](const std::vector<Index>&) {
            return tensor::isFloating(dtype) ? constantFloat(fill, dtype) : constantInt(static_cast<int64_t>(fill), dtype);
        };
        out.origins = {node.name};
        return out;
    }

    /// cumsum of a constant tensor (the class numbers x.new_ones(C).cumsum(0) of cross_entropy's gradient): (i + 1) * c
    /// along the dim, in cumsum's dtype (int64 for integers and bools). Any other input keeps the eager scan.
    std::optional<LValue> cumsumOfConstant(const std::string&) {
        LValue x = args.tensor(0, "input");
        // Integers only: a float cumsum rounds every partial sum (a bfloat16 one stops counting at 256).
        if (x.dim() == 0 || args.has(2, "dtype") || tensor::isFloating(x.dtype) || tensor::isComplex(x.dtype)) return std::nullopt;
        int64_t dim = args.integer(1, "dim");
        if (dim < -x.dim() || dim >= x.dim()) return std::nullopt;
        if (dim < 0) dim += x.dim();
        std::vector<Index> probe;
        for (int64_t d = 0; d < x.dim(); ++d) probe.push_back(indexVar(static_cast<int>(d)));
        const ExprPtr element = x.loader(probe);
        if (element->kind != Expr::Kind::Constant) return std::nullopt;
        const DType dtype = DType::Int64;
        LValue out = x;
        out.buffer = -1;
        out.dtype = dtype;
        out.origins = mergeOrigins({x}, node.name);
        out.loader = [element, dim, dtype](const std::vector<Index>& index) {
            ExprPtr count = indexValue(index[static_cast<size_t>(dim)] + indexConstant(1), dtype);
            return binary(ElementOp::Mul, count, cast(element, dtype));
        };
        return out;
    }

    std::optional<LValue> fullLike(const std::string& op) {
        LValue x = args.tensor(0, "input");
        double fill = op == "zeros_like" ? 0.0 : op == "ones_like" ? 1.0 : args.number(1, "fill_value");
        DType dtype = args.dtype(99, "dtype").value_or(x.dtype);
        LValue out;
        out.kind = LValue::Kind::Tensor;
        out.dtype = dtype;
        out.sizes = x.sizes;
        out.loader = [fill, dtype](const std::vector<Index>&) { return constantFloat(fill, dtype); };
        out.origins = {node.name};
        return out;
    }
};

}  // namespace

void registerPointwiseLowerings(LoweringRegistry& r) {
    using P = PointwiseLowering;
    for (const tensor::ConversionMethod& conversion : tensor::conversionMethods())
        r.def(conversion.name, OpFamily::Pointwise, member(&P::convert));
    r.def({"to", "type"}, OpFamily::Pointwise, member(&P::convert));
    r.def({"pos", "contiguous", "clone", "detach", "alias"}, OpFamily::Pointwise, member(&P::identity));
    r.def({"relu"}, OpFamily::Pointwise, member(&P::relu));
    r.def({"relu6", "hardtanh"}, OpFamily::Pointwise, member(&P::clampedRelu));
    r.def("silu", OpFamily::Pointwise, member(&P::silu));
    r.def({"gelu"}, OpFamily::Pointwise, member(&P::gelu));
    r.def({"leaky_relu"}, OpFamily::Pointwise, member(&P::leakyRelu));
    r.def({"elu"}, OpFamily::Pointwise, member(&P::elu));
    r.def({"softplus"}, OpFamily::Pointwise, member(&P::softplus));
    r.def({"hardsigmoid", "hardswish"}, OpFamily::Pointwise, member(&P::hardSigmoid));
    r.def({"div", "divide"}, OpFamily::Pointwise, member(&P::divOp));
    r.def({"add", "sub", "subtract"}, OpFamily::Pointwise, member(&P::addOrSub));
    r.def({"pow"}, OpFamily::Pointwise, member(&P::powOp));
    r.def({"where"}, OpFamily::Pointwise, member(&P::whereOp));
    r.def({"masked_fill"}, OpFamily::Pointwise, member(&P::maskedFill));
    r.def({"clamp", "clip"}, OpFamily::Pointwise, member(&P::clampOp));
    r.def({"zeros_like", "ones_like", "full_like"}, OpFamily::Pointwise, member(&P::fullLike));
    r.def({"cat", "concat", "concatenate"}, OpFamily::Pointwise, member(&P::cat));
    r.def({"new_ones", "new_zeros", "new_full"}, OpFamily::Pointwise, member(&P::newFilled));
    r.def("cumsum", OpFamily::Pointwise, member(&P::cumsumOfConstant));
    // Every other op of the elementwise tables, as its row says (add, sub, div and pow above take more arguments).
    for (const auto& [name, op] : elementOpsByName())
        if (!r.find(name)) r.def(name, OpFamily::Pointwise, member(&P::elementwiseOp));
}

}  // namespace eng::inductor::lowering
