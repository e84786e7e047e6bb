// Derivative formulas of indexing: x[idx] (basic and advanced), x[idx] = v, index_select, gather,
// masked_select and index_put_. Selections scatter their gradient back with an accumulating index_put over the
// flat positions the forward picked, so repeated indices add up as in PyTorch.
#include "tensor/autograd/derivatives.h"
#include "tensor/autograd/scatter_grad.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/op_recorder.h"
#include "tensor/shape.h"
#include "tensor/value.h"

namespace eng::tensor::autograd {

namespace {

Tensor zerosFor(const Shape& shape, DType dtype, const Tensor& like) {
    return to(zeros(shape, TensorOptions{dtype, kCpu, false}), std::nullopt, like.device());
}

// The gradient of a selection: `choose` applied to a tensor of flat positions tells which input element each
// output element came from; the output gradient is added there.
Value recordSelection(const DerivativeCall& call, const std::string& node, std::function<Tensor(const Tensor& positions)> choose) {
    const Tensor& x = call.args.tensor(0);
    const Shape shape = x.sizes();
    const DType dtype = x.dtype();
    Value out = call.forward(call.args);
    recordOp(node, {x}, {out.toTensor()}, {}, [shape, dtype, choose = std::move(choose)](const BackwardContext& ctx) {
        return std::vector<Tensor>{scatterToPositions(shape, dtype, ctx.grad(), choose)};
    });
    return out;
}

bool isBasic(const std::vector<TensorIndex>& indices) {
    for (const TensorIndex& i : indices)
        if (i.kind == TensorIndex::Kind::Tensor) return false;
    return true;
}

}  // namespace

void registerIndexingDerivatives(DerivativeTable& table) {
    table.def({"__getitem__"}, [](const DerivativeCall& call) {
        const std::vector<TensorIndex> indices = toTensorIndices(call.args[1]);
        if (!isBasic(indices))
            return recordSelection(call, "IndexBackward0", [indices](const Tensor& positions) { return getItem(positions, indices); });
        // Basic indexing is a view: its gradient is written into the same view of a zero tensor.
        const Tensor& x = call.args.tensor(0);
        const Shape shape = x.sizes();
        const DType dtype = x.dtype();
        Value out = call.forward(call.args);
        bool allIntegers = true;
        for (const TensorIndex& i : indices) allIntegers = allIntegers && i.kind == TensorIndex::Kind::Integer;
        recordOp(allIntegers ? "SelectBackward0" : "SliceBackward0", {x}, {out.toTensor()}, {}, [shape, dtype, indices](const BackwardContext& ctx) {
            // Under create_graph the write is a recorded index_put, so the gradient keeps its history.
            if (structuralOpsRecorded())
                return std::vector<Tensor>{scatterToPositions(shape, dtype, ctx.grad(), [&](const Tensor& p) { return getItem(p, indices); })};
            Tensor whole = zerosFor(shape, dtype, ctx.grad());
            copyInto(getItem(whole, indices), ctx.grad());
            return std::vector<Tensor>{whole};
        });
        return out;
    });
    table.def({"__setitem__"}, [](const DerivativeCall& call) {
        const std::vector<TensorIndex> indices = toTensorIndices(call.args[1]);
        const Tensor before = call.args.tensor(0);
        const Tensor value = tensorArg(call.args, 2);
        Value self = call.forward(call.args);
        recordOp("CopySlices", {before, value}, {self.toTensor()}, {}, [indices](const BackwardContext& ctx) {
            // The overwritten elements get no gradient from self; the value gets the gradient of where it went.
            Tensor rest;
            if (ctx.needs(0)) {
                rest = clone(ctx.grad());
                setItem(rest, indices, Scalar(0.0));
            }
            return std::vector<Tensor>{rest, ctx.needs(1) ? getItem(ctx.grad(), indices) : Tensor()};
        });
        return Value();
    });
    table.def({"index_put_", "index_put"}, [](const DerivativeCall& call) {
        const std::vector<Tensor> indices = call.args.tensorList(1);
        const bool accumulate = call.args.boolean(3);
        Value self = call.forward(call.args);
        recordOp("IndexPutBackward0", {call.args.tensor(0), call.args.tensor(2)}, {self.toTensor()}, {},
                 [indices, accumulate](const BackwardContext& ctx) {
                     Tensor rest = ctx.grad();
                     if (!accumulate && ctx.needs(0)) {
                         rest = clone(ctx.grad());
                         indexPut(rest, indices, scalarTensor(Scalar(0.0), rest.dtype()));
                     }
                     return std::vector<Tensor>{rest, ctx.needs(1) ? advancedIndex(ctx.grad(), indices) : Tensor()};
                 });
        return self;
    });
    table.def({"index_select"}, [](const DerivativeCall& call) {
        const int64_t dim = call.args.integer(1);
        const Tensor index = call.args.tensor(2);
        return recordSelection(call, "IndexSelectBackward0", [dim, index](const Tensor& p) { return indexSelect(p, dim, index); });
    });
    table.def({"gather"}, [](const DerivativeCall& call) {
        const int64_t dim = call.args.integer(1);
        const Tensor index = call.args.tensor(2);
        return recordSelection(call, "GatherBackward0", [dim, index](const Tensor& p) { return gather(p, dim, index); });
    });
    table.def({"masked_select"}, [](const DerivativeCall& call) {
        const Tensor mask = call.args.tensor(1);
        return recordSelection(call, "MaskedSelectBackward0", [mask](const Tensor& p) { return maskedSelect(p, mask); });
    });
}

}  // namespace eng::tensor::autograd
