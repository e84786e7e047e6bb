// Reduction lowerings and the decompositions built on them: sum/mean/prod/amax/amin/max/min/argmax/any/all,
// var/std, softmax, log_softmax, logsumexp, cross_entropy, layer_norm (and native_layer_norm, with its statistics),
// linear, scaled_dot_product_attention. Each reduction becomes a Reduction buffer whose body reads its input's
// loader, so producers are computed inside its loop.
#include <cmath>

#include <fmt/format.h>

#include "inductor/lowering_registry.h"
#include "tensor/cpu_attention.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/nn_functional.h"

namespace eng::inductor::lowering {

namespace {

std::vector<int64_t> normaliseDims(std::vector<int64_t> dims, int64_t rank) {
    for (int64_t& d : dims) {
        if (d < -std::max<int64_t>(rank, 1) || d >= std::max<int64_t>(rank, 1)) throw LoweringError(fmt::format("dim {} out of range", d));
        if (d < 0) d += rank;
    }
    std::sort(dims.begin(), dims.end());
    dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
    return dims;
}

std::vector<int64_t> allDims(int64_t rank) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
    return dims;
}

}  // namespace

LValue reduce(Lowering& lowering, const LValue& input, const std::vector<int64_t>& dims, bool keepdim, ReductionOp op,
              DType accumulate, std::function<ExprPtr(ExprPtr)> element) {
    const size_t rank = input.sizes.size();
    std::vector<bool> reduced(rank, false);
    for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
    GraphBuffer b;
    b.name = lowering.newBufferName();
    b.kind = BufferKind::Reduction;
    b.reductionOp = op;
    b.dtype = reductionResultDtype(op, accumulate);
    b.fullSizes = input.sizes;
    b.reducedDims = reduced;
    for (size_t d = 0; d < rank; ++d) {
        if (reduced[d]) {
            b.reductionSizes.push_back(input.sizes[d]);
            if (keepdim) b.sizes.push_back(indexConstant(1));
        } else {
            b.sizes.push_back(input.sizes[d]);
        }
    }
    b.strides = contiguousStrides(b.sizes);
    Loader inputLoader = input.loader;
    // Any/All reduce truth values: Bool whatever they would accumulate in.
    const bool toBool = reductionResultDtype(op, DType::Float32) == DType::Bool;
    b.reductionBody = [inputLoader, reduced, accumulate, element, toBool](const std::vector<Index>& outer, const std::vector<Index>& red) {
        std::vector<Index> full;
        size_t k = 0, j = 0;
        for (bool r : reduced) full.push_back(r ? red[j++] : outer[k++]);
        ExprPtr value = cast(inputLoader(full), toBool ? DType::Bool : accumulate);
        return element ? element(value) : value;
    };
    b.originNodes = mergeOrigins({input}, lowering.currentNode()->name);
    return lowering.bufferValue(lowering.graph().add(std::move(b)).id);
}

namespace {

/// x cast to `dtype` (a pointwise view, nothing materialised).
LValue castTo(const LValue& x, DType dtype) {
    if (x.dtype == dtype) return x;
    return mapElements({x}, x.dtype, dtype, [](const std::vector<ExprPtr>& e) { return e[0]; });
}

Index reducedCount(const LValue& input, const std::vector<int64_t>& dims) {
    Index n = indexConstant(1);
    for (int64_t d : dims) n = n * input.sizes[static_cast<size_t>(d)];
    return n;
}

struct ReductionLowering {
    Lowering& lowering;
    const fx::Node& node;
    NodeArgs args{lowering, node};

    LValue named(LValue v) {
        v.origins = mergeOrigins({v}, node.name);
        return v;
    }

    std::vector<int64_t> dimsArg(const LValue& x, size_t position, const std::string& name) {
        auto dims = args.dims(position, name);
        if (!dims || dims->empty()) return allDims(x.dim());
        return normaliseDims(*dims, x.dim());
    }

    LValue mean(const LValue& x, const std::vector<int64_t>& dims, bool keepdim, DType result) {
        DType acc = computeTypeFor(result);
        LValue sum = reduce(lowering, x, dims, keepdim, ReductionOp::Sum, acc);
        Index n = reducedCount(x, dims);
        LValue count = lowering.asTensor(sizeValue(n), acc);
        return mapElements({sum, count}, acc, result, [](const std::vector<ExprPtr>& e) { return binary(ElementOp::Div, e[0], e[1]); });
    }

    /// Two-pass variance: the mean first, then the mean of squared deviations (kept in the accumulation type).
    /// `knownMean`: the caller's mean of x (keepdim), so that layer_norm's row is summed once, not twice.
    LValue variance(const LValue& x, const std::vector<int64_t>& dims, bool keepdim, double correction, DType acc,
                    const LValue* knownMean = nullptr) {
        LValue m = knownMean ? *knownMean : mean(x, dims, true, acc);
        LValue centred = mapElements({x, m}, acc, acc, [](const std::vector<ExprPtr>& e) {
            auto d = binary(ElementOp::Sub, e[0], e[1]);
            return binary(ElementOp::Mul, d, d);
        });
        LValue squares = reduce(lowering, centred, dims, keepdim, ReductionOp::Sum, acc);
        Index n = reducedCount(x, dims);
        LValue count = lowering.asTensor(sizeValue(n), acc);
        return mapElements({squares, count}, acc, acc, [correction, acc](const std::vector<ExprPtr>& e) {
            return binary(ElementOp::Div, e[0], binary(ElementOp::Sub, e[1], constantFloat(correction, acc)));
        });
    }

    double correctionArg() {
        if (args.has(99, "correction")) return args.number(99, "correction");
        if (args.has(99, "unbiased")) return args.flag(99, "unbiased", true) ? 1.0 : 0.0;
        // var(x, dim, unbiased) positional form
        if (node.args.size() > 2) {
            LValue third = args.get(2, "unbiased");
            if (third.kind == LValue::Kind::Number && third.number.is(vm::Kind::Bool)) return third.number.asInt() ? 1.0 : 0.0;
        }
        return 1.0;
    }

    LValue softmax(bool logarithmic) {
        LValue x = args.tensor(0, "input");
        int64_t dim = normaliseDims({args.integer(1, "dim")}, x.dim())[0];
        DType result = args.dtype(2, "dtype").value_or(x.dtype);
        return softmaxOf(x, dim, result, logarithmic);
    }

    LValue softmaxOf(const LValue& x, int64_t dim, DType result, bool logarithmic) {
        if (!tensor::isFloating(result)) throw LoweringError("softmax of an integer tensor");
        DType acc = computeTypeFor(result);
        LValue xf = castTo(x, acc);
        LValue m = reduce(lowering, xf, {dim}, true, ReductionOp::Max, acc);
        LValue shifted = mapElements({xf, m}, acc, acc, [](const std::vector<ExprPtr>& e) { return binary(ElementOp::Sub, e[0], e[1]); });
        LValue e = mapElements({shifted}, acc, acc, [](const std::vector<ExprPtr>& v) { return unary(ElementOp::Exp, v[0]); });
        LValue s = reduce(lowering, e, {dim}, true, ReductionOp::Sum, acc);
        if (logarithmic)
            return named(mapElements({shifted, s}, acc, result, [](const std::vector<ExprPtr>& v) { return binary(ElementOp::Sub, v[0], unary(ElementOp::Log, v[1])); }));
        return named(mapElements({e, s}, acc, result, [](const std::vector<ExprPtr>& v) { return binary(ElementOp::Div, v[0], v[1]); }));
    }

    /// layer_norm's output and statistics (each row's mean and 1/sqrt(var + eps), normalized dims kept as 1):
    /// native_layer_norm returns all three, in the eager op's statistics dtype.
    std::vector<LValue> layerNormParts() {
        LValue x = args.tensor(0, "input");
        auto shape = args.dims(1, "normalized_shape");
        if (!shape) throw LoweringError("layer_norm without normalized_shape");
        std::vector<int64_t> dims;
        for (size_t k = 0; k < shape->size(); ++k) dims.push_back(x.dim() - static_cast<int64_t>(shape->size()) + static_cast<int64_t>(k));
        double eps = args.number(4, "eps", 1e-5);
        DType acc = computeTypeFor(x.dtype);
        LValue xf = castTo(x, acc);
        LValue m = mean(xf, dims, true, acc);
        LValue var = variance(xf, dims, true, 0.0, acc, &m);
        LValue rstd = mapElements({var}, acc, acc, [=](const std::vector<ExprPtr>& e) {
            return unary(ElementOp::Rsqrt, binary(ElementOp::Add, e[0], constantFloat(eps, acc)));
        });
        std::vector<LValue> operands{xf, m, rstd};
        const bool hasWeight = args.has(2, "weight"), hasBias = args.has(3, "bias");
        bool mixed = false;
        for (size_t i = 2; i <= 3; ++i)
            if (args.has(i, i == 2 ? "weight" : "bias")) {
                operands.push_back(args.tensor(i, i == 2 ? "weight" : "bias"));
                mixed = mixed || (tensor::isReducedFloat(x.dtype) && !tensor::isReducedFloat(operands.back().dtype));
            }
        LValue out = named(mapElements(operands, acc, x.dtype, [=](const std::vector<ExprPtr>& e) {
            ExprPtr y = binary(ElementOp::Mul, binary(ElementOp::Sub, e[0], e[1]), e[2]);
            size_t next = 3;
            if (hasWeight) y = binary(ElementOp::Mul, y, e[next++]);
            if (hasBias) y = binary(ElementOp::Add, y, e[next++]);
            return y;
        }));
        const DType statistics = tensor::layerNormStatisticsDType(x.dtype, lowering.graph().device.type() == tensor::DeviceType::CUDA, mixed);
        return {out, named(castTo(m, statistics)), named(castTo(rstd, statistics))};
    }

    LValue layerNorm() { return layerNormParts()[0]; }

    LValue nativeLayerNorm() {
        LValue list;
        list.kind = LValue::Kind::List;
        list.items = layerNormParts();
        return list;
    }

    /// x @ w.t() as an extern matmul (cuBLAS / OpenBLAS / oneDNN), the bias added by a pointwise kernel that fuses
    /// with what follows (an activation), as Inductor's mm + fused epilogue; on CUDA one cuBLASLt call, and on the
    /// CPU one oneDNN call where it takes the product, that add the bias and apply the activation they can
    /// (lowering_linear.cpp).
    LValue linear() {
        if (auto fused = lowerLinearLt(lowering, node, args)) return *fused;      // CUDA: one cuBLASLt call
        if (auto fused = lowerLinearOneDnn(lowering, node, args)) return *fused;  // CPU: one oneDNN call
        LValue x = args.tensor(0, "input"), w = args.tensor(1, "weight");
        if (w.dim() != 2 || x.dim() < 1) throw LoweringError("linear expects a 2-D weight");
        std::vector<Index> sizes(x.sizes.begin(), x.sizes.end() - 1);
        sizes.push_back(w.sizes[0]);
        LValue mm = lowering.externCall("torch.matmul", {x, w}, sizes, x.dtype, [](const vm::ValueList& t) {
            return vm::callOp("torch.matmul", {t[0], vm::callOp("Tensor.t", {t[1]})});
        });
        if (!args.has(2, "bias")) return mm;
        LValue b = args.tensor(2, "bias");
        DType compute = computeTypeFor(x.dtype);
        return named(mapElements({mm, b}, compute, x.dtype, [](const std::vector<ExprPtr>& e) { return binary(ElementOp::Add, e[0], e[1]); }));
    }

    /// On CUDA, 16-bit sdpa without mask or dropout is one extern call to the eager op, which runs the fused flash
    /// kernel (engine/tensor/cuda_attention.h), as Inductor calls aten's flash attention: the scores stay on chip.
    /// The eager op rechecks its operands at run time and takes the composite path when the kernel does not apply.
    /// On the CPU, 4-D operands of any float dtype but float64 with head dims up to 256 call it too: the eager op runs
    /// the CPU flash kernel (engine/tensor/cpu_attention.h), as Inductor calls aten's CPU flash attention.
    bool fusedAttentionApplies(const LValue& q, const LValue& k, const LValue& v, int64_t headDim) const {
        const tensor::DeviceType device = lowering.graph().device.type();
        if (device == tensor::DeviceType::CPU) {
            if (k.dtype != q.dtype || v.dtype != q.dtype || !tensor::cpuops::flashAttentionTakes(q.dtype, q.dim(), headDim, headDim)) return false;
        } else {
            if (device != tensor::DeviceType::CUDA) return false;
            if ((q.dtype != DType::Float16 && q.dtype != DType::BFloat16) || k.dtype != q.dtype || v.dtype != q.dtype) return false;
            if (headDim != 16 && headDim != 32 && headDim != 64 && headDim != 128) return false;
        }
        auto keyDim = constantValue(k.sizes.back()), valueDim = constantValue(v.sizes.back());
        if (keyDim != headDim || valueDim != headDim) return false;
        // Broadcast batch dims would change the output's shape: those keep the composite lowering.
        const std::vector<Index> batch(q.sizes.begin(), q.sizes.end() - 2);
        for (const LValue* t : {&k, &v})
            if (!sameSizes(batch, std::vector<Index>(t->sizes.begin(), t->sizes.end() - 2))) return false;
        return true;
    }

    /// q/k/v that are views of the qkv projection reach the kernel in place (Lowering::stridedView), not copied.
    LValue fusedAttention(const LValue& q, const LValue& k, const LValue& v, bool causal) {
        const std::optional<double> scale = args.has(6, "scale") ? std::optional<double>(args.number(6, "scale")) : std::nullopt;
        // The eager op leaves 4-D results as PyTorch's flash kernel does, [b, L, h, E] in memory: the buffer holds
        // that layout and the value is its transpose, so a following transpose(1, 2).reshape(...) reads it in place.
        const bool interleaved = q.dim() == 4;
        std::vector<Index> outSizes = q.sizes;
        if (interleaved) std::swap(outSizes[1], outSizes[2]);
        LValue out = lowering.externCall("F.scaled_dot_product_attention", {q, k, v}, outSizes, q.dtype,
                                         [causal, scale, interleaved](const vm::ValueList& t) {
            vm::ValueList operands = {t[0], t[1], t[2], vm::Value(), vm::Value(0.0), vm::Value(causal), scale ? vm::Value(*scale) : vm::Value()};
            vm::Value result = vm::callOp("F.scaled_dot_product_attention", operands);
            return interleaved ? vm::callOp("Tensor.transpose", {result, vm::Value(1), vm::Value(2)}) : result;
        });
        if (!interleaved) return named(out);
        LValue heads = out;
        heads.sizes = q.sizes;
        heads.buffer = -1;
        heads.loader = [inner = out.loader](const std::vector<Index>& i) { return inner({i[0], i[2], i[1], i[3]}); };
        return named(heads);
    }

    /// torch._flash_attention_forward(q, k, v, is_causal, scale) -> (out, logsumexp), AOT Autograd's CUDA sdpa of a
    /// training graph (engine/aot/derivative_rules.h): one extern call with two results, each its own buffer (the
    /// logsumexp's is item 1 of the call's tuple, CompiledGraph::runExtern), the output in the flash layout as above.
    std::optional<LValue> flashForward(const std::string&) {
        LValue q = args.tensor(0, "query"), k = args.tensor(1, "key"), v = args.tensor(2, "value");
        const bool causal = args.flag(3, "is_causal", false);
        const double scale = args.number(4, "scale");
        if (q.dim() != 4 || !fusedAttentionApplies(q, k, v, constantValue(q.sizes.back()).value_or(0)))
            throw LoweringError("_flash_attention_forward needs 4-D 16-bit CUDA operands with head dim 16, 32, 64 or 128");
        GraphBuffer call;
        for (LValue* input : {&q, &k, &v}) lowering.addExternInput(call.extern_, *input, node.name, true);
        call.name = lowering.newBufferName();
        call.kind = BufferKind::Extern;
        call.dtype = q.dtype;
        call.sizes = {q.sizes[0], q.sizes[2], q.sizes[1], q.sizes[3]};
        call.strides = contiguousStrides(call.sizes);
        call.originNodes = {node.name};
        call.extern_.op = "torch._flash_attention_forward";
        call.extern_.node = &node;
        call.extern_.call = [causal, scale](vm::Interpreter&, const vm::ValueList& t, const SymbolValues&) {
            const vm::Value result = vm::callOp("torch._flash_attention_forward", {t[0], t[1], t[2], vm::Value(causal), vm::Value(scale)});
            const vm::ValueList& items = result.as<vm::TupleObject>().items;
            return vm::makeTuple({vm::callOp("Tensor.transpose", {items.at(0), vm::Value(1), vm::Value(2)}), items.at(1)});
        };
        const int out = lowering.graph().add(std::move(call)).id;
        GraphBuffer item;
        item.name = lowering.newBufferName();
        item.kind = BufferKind::Extern;
        item.dtype = DType::Float32;
        item.sizes = {q.sizes[0], q.sizes[1], q.sizes[2]};
        item.strides = contiguousStrides(item.sizes);
        item.originNodes = {node.name};
        item.extern_.op = "operator.getitem";
        item.extern_.node = &node;
        item.extern_.inputBuffers = {out};
        item.extern_.inputViews = {std::nullopt};
        item.extern_.resultItem = 1;
        const int logsumexp = lowering.graph().add(std::move(item)).id;
        LValue heads = lowering.bufferValue(out);
        heads.sizes = q.sizes;
        heads.buffer = -1;
        heads.loader = [inner = heads.loader](const std::vector<Index>& i) { return inner({i[0], i[2], i[1], i[3]}); };
        LValue results;
        results.kind = LValue::Kind::List;
        results.items = {named(heads), named(lowering.bufferValue(logsumexp))};
        return results;
    }

    /// F.scaled_dot_product_attention as matmul -> scale, mask and softmax fused in one row kernel -> matmul; the
    /// causal mask is index arithmetic (key position <= query position), so no mask tensor is built.
    std::optional<LValue> attention() {
        LValue q = args.tensor(0, "query"), k = args.tensor(1, "key"), v = args.tensor(2, "value");
        if (q.dim() < 2 || k.dim() != q.dim() || v.dim() != q.dim()) return std::nullopt;
        if (args.number(4, "dropout_p", 0.0) != 0.0 || args.flag(99, "enable_gqa", false)) return std::nullopt;
        const bool causal = args.flag(5, "is_causal", false);
        const bool hasMask = args.has(3, "attn_mask");
        if (causal && hasMask) return std::nullopt;  // the eager op raises PyTorch's error
        auto headDim = constantValue(q.sizes.back());
        if (!headDim) return std::nullopt;
        if (!hasMask && fusedAttentionApplies(q, k, v, *headDim)) return fusedAttention(q, k, v, causal);
        const double scale = args.has(99, "scale") ? args.number(99, "scale") : 1.0 / std::sqrt(static_cast<double>(*headDim));
        std::vector<Index> scoreSizes = broadcastSizes(std::vector<Index>(q.sizes.begin(), q.sizes.end() - 2),
                                                       std::vector<Index>(k.sizes.begin(), k.sizes.end() - 2));
        scoreSizes.push_back(q.sizes[q.sizes.size() - 2]);
        scoreSizes.push_back(k.sizes[k.sizes.size() - 2]);
        LValue scores = lowering.externCall("torch.matmul", {q, k}, scoreSizes, q.dtype, [](const vm::ValueList& t) {
            return vm::callOp("torch.matmul", {t[0], vm::callOp("Tensor.transpose", {t[1], vm::Value(-2), vm::Value(-1)})});
        });
        const DType acc = computeTypeFor(q.dtype);
        LValue mask = hasMask ? args.tensor(3, "attn_mask") : LValue{};
        LValue masked;
        masked.kind = LValue::Kind::Tensor;
        masked.dtype = acc;
        masked.sizes = scoreSizes;
        masked.loader = [scores, mask, hasMask, causal, scale, acc, scoreSizes](const std::vector<Index>& index) {
            ExprPtr x = binary(ElementOp::Mul, cast(scores.loader(index), acc), constantFloat(scale, acc));
            const ExprPtr minusInf = constantFloat(-INFINITY, acc);
            if (causal) {
                auto allowed = binary(ElementOp::Le, indexValue(index[index.size() - 1], DType::Int64), indexValue(index[index.size() - 2], DType::Int64));
                x = where(allowed, x, minusInf);
            }
            if (hasMask) {
                if (mask.dtype == DType::Bool) x = where(broadcastLoad(mask, index, scoreSizes, DType::Bool), x, minusInf);
                else x = binary(ElementOp::Add, x, broadcastLoad(mask, index, scoreSizes, acc));
            }
            return x;
        };
        LValue weights = softmaxOf(masked, static_cast<int64_t>(scoreSizes.size()) - 1, q.dtype, false);
        std::vector<Index> outSizes = scoreSizes;
        outSizes.back() = v.sizes.back();
        return named(lowering.externCall("torch.matmul", {weights, v}, outSizes, q.dtype, [](const vm::ValueList& t) {
            return vm::callOp("torch.matmul", {t[0], t[1]});
        }));
    }

    /// max/min: of all elements, of two tensors (elementwise), or along a dim with indices.
    std::optional<LValue> extremum(bool isMax) {
        LValue x = args.tensor(0, "input");
        if (args.has(1, "other") && args.get(1, "other").isTensor()) return std::nullopt;  // torch.max(a, b): pointwise
        ReductionOp valueOp = isMax ? ReductionOp::Max : ReductionOp::Min;
        DType acc = computeTypeFor(x.dtype);
        if (!args.has(1, "dim")) return named(castTo(reduce(lowering, x, allDims(x.dim()), false, valueOp, acc), x.dtype));
        int64_t dim = normaliseDims({args.integer(1, "dim")}, x.dim())[0];
        bool keepdim = args.flag(2, "keepdim", false);
        LValue values = named(castTo(reduce(lowering, x, {dim}, keepdim, valueOp, acc), x.dtype));
        LValue indices = named(reduce(lowering, x, {dim}, keepdim, isMax ? ReductionOp::ArgMax : ReductionOp::ArgMin, acc));
        LValue pair;
        pair.kind = LValue::Kind::List;
        pair.items = {values, indices};
        return pair;
    }

    std::optional<LValue> sumOrProd(const std::string& op) {
        LValue x = args.tensor(0, "input");
        DType result = args.dtype(99, "dtype").value_or(tensor::isFloating(x.dtype) ? x.dtype : DType::Int64);
        if (op == "prod" && args.has(1, "dim")) {
            int64_t dim = normaliseDims({args.integer(1, "dim")}, x.dim())[0];
            DType acc = computeTypeFor(result);
            return named(castTo(reduce(lowering, x, {dim}, args.flag(2, "keepdim", false), ReductionOp::Prod, acc), result));
        }
        auto dims = op == "prod" ? allDims(x.dim()) : dimsArg(x, 1, "dim");
        DType acc = computeTypeFor(result);
        return named(castTo(reduce(lowering, x, dims, op == "sum" && args.flag(2, "keepdim", false),
                                   op == "sum" ? ReductionOp::Sum : ReductionOp::Prod, acc), result));
    }

    std::optional<LValue> meanOp(const std::string&) {
        LValue x = args.tensor(0, "input");
        DType result = args.dtype(99, "dtype").value_or(x.dtype);
        if (!tensor::isFloating(result)) throw LoweringError("mean of an integer tensor");
        return named(mean(x, dimsArg(x, 1, "dim"), args.flag(2, "keepdim", false), result));
    }

    std::optional<LValue> amaxOrAmin(const std::string& op) {
        LValue x = args.tensor(0, "input");
        return named(castTo(reduce(lowering, x, dimsArg(x, 1, "dim"), args.flag(2, "keepdim", false),
                                   op == "amax" ? ReductionOp::Max : ReductionOp::Min, computeTypeFor(x.dtype)), x.dtype));
    }

    std::optional<LValue> maxOrMin(const std::string& op) { return extremum(op == "max"); }

    std::optional<LValue> argExtremum(const std::string& op) {
        LValue x = args.tensor(0, "input");
        ReductionOp r = op == "argmax" ? ReductionOp::ArgMax : ReductionOp::ArgMin;
        if (!args.has(1, "dim")) {
            if (x.dim() > 1) return std::nullopt;  // flattened position over several dims: eager
            return named(reduce(lowering, x, allDims(x.dim()), false, r, computeTypeFor(x.dtype)));
        }
        int64_t dim = normaliseDims({args.integer(1, "dim")}, x.dim())[0];
        return named(reduce(lowering, x, {dim}, args.flag(2, "keepdim", false), r, computeTypeFor(x.dtype)));
    }

    std::optional<LValue> anyOrAll(const std::string& op) {
        LValue x = args.tensor(0, "input");
        return named(reduce(lowering, x, dimsArg(x, 1, "dim"), args.flag(2, "keepdim", false),
                            op == "any" ? ReductionOp::Any : ReductionOp::All, DType::Bool));
    }

    std::optional<LValue> varOrStd(const std::string& op) {
        LValue x = args.tensor(0, "input");
        if (!tensor::isFloating(x.dtype)) return std::nullopt;
        DType acc = computeTypeFor(x.dtype);
        auto dims = dimsArg(x, 1, "dim");
        LValue v = variance(x, dims, args.flag(99, "keepdim", false), correctionArg(), acc);
        if (op == "std") v = mapElements({v}, acc, acc, [](const std::vector<ExprPtr>& e) { return unary(ElementOp::Sqrt, e[0]); });
        return named(castTo(v, x.dtype));
    }

    std::optional<LValue> softmaxOp(const std::string& op) { return softmax(op == "log_softmax" || op == "_log_softmax"); }

    std::optional<LValue> logsumexp(const std::string&) {
        LValue x = args.tensor(0, "input");
        auto dims = dimsArg(x, 1, "dim");
        bool keepdim = args.flag(2, "keepdim", false);
        DType acc = computeTypeFor(x.dtype);
        LValue xf = castTo(x, acc);
        LValue m = reduce(lowering, xf, dims, true, ReductionOp::Max, acc);
        LValue e = mapElements({xf, m}, acc, acc, [](const std::vector<ExprPtr>& v) { return unary(ElementOp::Exp, binary(ElementOp::Sub, v[0], v[1])); });
        LValue s = reduce(lowering, e, dims, keepdim, ReductionOp::Sum, acc);
        LValue mk = keepdim ? m : reduce(lowering, xf, dims, false, ReductionOp::Max, acc);
        return named(mapElements({s, mk}, acc, x.dtype, [](const std::vector<ExprPtr>& v) { return binary(ElementOp::Add, unary(ElementOp::Log, v[0]), v[1]); }));
    }

    /// F.cross_entropy of [N, C] logits and class indices, as Inductor decomposes it (log_softmax + nll_loss) but
    /// without a gather, which the kernel IR has not: per row the max and the sum of exp(x - max) (one online-softmax
    /// pass) and the target's logit, summed out of the row where the column equals the target, all in one pass over
    /// the row (16-bit logits read as they are); loss = log(sum) + max - x[target], 0 on ignore_index rows, their
    /// mean over the rows kept. Class weights, label smoothing and the legacy arguments run as the eager op. A target
    /// outside [0, C) that is not ignore_index raises eager's IndexError: an extern call checks them (nll_loss's own
    /// check: at once on the CPU; on CUDA a kernel asserts on the device and the next synchronisation raises, so the
    /// step never waits for the device). No kernel indexes memory by a target (a bad row's loss is NaN).
    std::optional<LValue> crossEntropy(const std::string&) {
        LValue x = args.tensor(0, "input"), target = args.tensor(1, "target");
        if (x.dim() != 2 || target.dim() != 1 || !tensor::isFloating(x.dtype) || tensor::isFloating(target.dtype) || target.dtype == DType::Bool)
            return std::nullopt;
        if (args.has(2, "weight") || args.has(3, "size_average") || args.has(5, "reduce") || args.number(7, "label_smoothing", 0.0) != 0.0)
            return std::nullopt;
        const std::string reduction = args.text(6, "reduction", "mean");
        if (reduction != "mean" && reduction != "sum" && reduction != "none") return std::nullopt;
        const double ignore = static_cast<double>(args.integer(4, "ignore_index", -100));
        const DType acc = computeTypeFor(x.dtype);
        const Index classes = x.sizes[1];
        // Its result (no elements) is read by nothing: the kernels never index by the target, so they need not wait
        // for the check and fuse as they would without it; every extern of a graph runs, so the check does.
        LValue checked = lowering.externCall("check_class_targets", {target}, {indexConstant(0)}, DType::Int64, nullptr);
        lowering.buffer(checked.buffer).extern_.call = [classes, ignore](vm::Interpreter&, const vm::ValueList& t, const SymbolValues& symbols) {
            const tensor::Tensor& labels = t.at(0).as<vm::TensorObject>().value;
            tensor::checkClassTargets(labels, evaluate(classes, {}, symbols), static_cast<int64_t>(ignore));
            return vm::makeTensor(tensor::empty({0}, DType::Int64, labels.device()));
        };
        LValue xf = castTo(x, acc);
        // target as a [N, 1] column, to meet the keepdim row results
        LValue column = target;
        column.buffer = -1;
        column.sizes = {x.sizes[0], indexConstant(1)};
        column.loader = [rows = target.loader](const std::vector<Index>& i) { return rows({i[0]}); };
        LValue m = reduce(lowering, xf, {1}, true, ReductionOp::Max, acc);
        LValue e = mapElements({xf, m}, acc, acc, [](const std::vector<ExprPtr>& v) { return unary(ElementOp::Exp, binary(ElementOp::Sub, v[0], v[1])); });
        LValue s = reduce(lowering, e, {1}, true, ReductionOp::Sum, acc);
        LValue targetLogits = xf;
        targetLogits.buffer = -1;
        targetLogits.loader = [logits = xf.loader, rows = target.loader, acc](const std::vector<Index>& i) {
            ExprPtr isTarget = binary(ElementOp::Eq, indexValue(i[1], DType::Int64), cast(rows({i[0]}), DType::Int64));
            return where(isTarget, logits(i), constantFloat(0.0, acc));
        };
        LValue picked = reduce(lowering, targetLogits, {1}, true, ReductionOp::Sum, acc);
        LValue count = lowering.asTensor(sizeValue(classes), DType::Int64);
        LValue rowLoss = mapElements({s, m, picked, column, count}, acc, acc, [acc, ignore](const std::vector<ExprPtr>& v) {
            ExprPtr t = cast(v[3], DType::Int64), n = cast(v[4], DType::Int64);
            ExprPtr kept = binary(ElementOp::Ne, t, constantInt(static_cast<int64_t>(ignore), DType::Int64));
            ExprPtr inRange = binary(ElementOp::LogicalAnd, binary(ElementOp::Ge, t, constantInt(0, DType::Int64)), binary(ElementOp::Lt, t, n));
            ExprPtr loss = binary(ElementOp::Sub, binary(ElementOp::Add, unary(ElementOp::Log, v[0]), v[1]), v[2]);
            return where(kept, where(inRange, loss, constantFloat(std::nan(""), acc)), constantFloat(0.0, acc));
        });
        LValue perRow = rowLoss;  // [N]
        perRow.buffer = -1;
        perRow.sizes = {x.sizes[0]};
        perRow.loader = [rows = rowLoss.loader](const std::vector<Index>& i) { return rows({i[0], indexConstant(0)}); };
        if (reduction == "none") return named(castTo(perRow, x.dtype));
        LValue total = reduce(lowering, perRow, {0}, false, ReductionOp::Sum, acc);
        if (reduction == "sum") return named(castTo(total, x.dtype));
        LValue keptRows = mapElements({target}, acc, acc, [acc, ignore](const std::vector<ExprPtr>& v) {
            return cast(binary(ElementOp::Ne, cast(v[0], DType::Int64), constantInt(static_cast<int64_t>(ignore), DType::Int64)), acc);
        });
        LValue kept = reduce(lowering, keptRows, {0}, false, ReductionOp::Sum, acc);
        return named(mapElements({total, kept}, acc, x.dtype, [](const std::vector<ExprPtr>& v) { return binary(ElementOp::Div, v[0], v[1]); }));
    }

    std::optional<LValue> layerNormOp(const std::string& op) { return op == "native_layer_norm" ? nativeLayerNorm() : layerNorm(); }
    std::optional<LValue> linearOp(const std::string&) { return linear(); }
    std::optional<LValue> attentionOp(const std::string&) { return attention(); }
};

}  // namespace

void registerReductionLowerings(LoweringRegistry& r) {
    using R = ReductionLowering;
    r.def({"sum", "prod"}, OpFamily::Reduction, member(&R::sumOrProd));
    r.def("mean", OpFamily::Reduction, member(&R::meanOp));
    r.def({"amax", "amin"}, OpFamily::Reduction, member(&R::amaxOrAmin));
    r.def({"max", "min"}, OpFamily::Reduction, member(&R::maxOrMin));
    r.def({"argmax", "argmin"}, OpFamily::Reduction, member(&R::argExtremum));
    r.def({"any", "all"}, OpFamily::Reduction, member(&R::anyOrAll));
    r.def({"var", "std"}, OpFamily::Reduction, member(&R::varOrStd));
    r.def({"softmax", "_softmax", "log_softmax", "_log_softmax"}, OpFamily::Reduction, member(&R::softmaxOp));
    r.def("logsumexp", OpFamily::Reduction, member(&R::logsumexp));
    r.def("cross_entropy", OpFamily::Reduction, member(&R::crossEntropy));
    r.def({"layer_norm", "native_layer_norm"}, OpFamily::Reduction, member(&R::layerNormOp));
    r.def("linear", OpFamily::Reduction, member(&R::linearOp));
    r.def("scaled_dot_product_attention", OpFamily::Reduction, member(&R::attentionOp));
    r.def("_flash_attention_forward", OpFamily::Reduction, member(&R::flashForward));
}

}  // namespace eng::inductor::lowering
