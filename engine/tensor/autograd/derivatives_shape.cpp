// Derivative formulas of shape and view ops (view/reshape/flatten/squeeze/unsqueeze, permute/transpose/t/T/mT,
// movedim, expand, narrow/select, unbind, cat/stack/hstack/vstack, split/chunk, triu/tril, repeat, flip) and of
// dtype/device conversions, clone, contiguous and copy_.
#include "tensor/autograd/derivatives.h"
#include "tensor/autograd/grad_utils.h"
#include "tensor/autograd/scatter_grad.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/op_recorder.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace eng::tensor::autograd {

namespace {

using GradMap = std::function<Tensor(const Tensor& grad)>;

// One tensor in, one out, and a backward that only rearranges the gradient (nothing saved).
Value recordRearrange(const DerivativeCall& call, const std::string& node, GradMap back) {
    Value out = call.forward(call.args);
    if (!out.isTensor()) return out;
    recordOp(node, {call.args.tensor(0)}, {out.toTensor()}, {},
             [back = std::move(back)](const BackwardContext& ctx) { return std::vector<Tensor>{back(ctx.grad())}; });
    return out;
}

// Backward of ops that keep every element (views and reshapes of all kinds): the gradient in the input's shape.
Derivative reshapeBack(const char* node) {
    return [node](const DerivativeCall& call) {
        const Shape shape = call.args.tensor(0).sizes();
        return recordRearrange(call, node, [shape](const Tensor& g) { return reshape(g, shape); });
    };
}

// Backward of ops that pick a region of the input (narrow, select): the gradient written into zeros there.
Value recordEmbed(const DerivativeCall& call, const std::string& node, std::function<Tensor(const Tensor& whole)> region) {
    const Tensor& x = call.args.tensor(0);
    const Shape shape = x.sizes();
    const DType dtype = x.dtype();
    return recordRearrange(call, node, [shape, dtype, region = std::move(region)](const Tensor& g) {
        // Under create_graph the write is a recorded index_put, so the gradient keeps its history.
        if (structuralOpsRecorded()) return scatterToPositions(shape, dtype, g, region);
        Tensor whole = to(zeros(shape, TensorOptions{dtype, kCpu, false}), std::nullopt, g.device());
        copyInto(region(whole), g);
        return whole;
    });
}

// Multi-output ops over one input (unbind, split, chunk): the output gradients joined back together.
Value recordJoin(const DerivativeCall& call, const std::string& node, std::function<Tensor(const std::vector<Tensor>&)> join) {
    Value out = call.forward(call.args);
    std::vector<Tensor> outputs;
    for (const Value& item : out.items()) outputs.push_back(item.toTensor());
    recordOp(node, {call.args.tensor(0)}, outputs, {}, [join = std::move(join)](const BackwardContext& ctx) {
        return std::vector<Tensor>{join(ctx.grads)};
    });
    return out;
}

// Joins over a list of inputs (cat and friends): each input's gradient is its slice of the output gradient
// along `dim`, reshaped to the input's shape; inputs that cat skips (1-D empty) get none.
Value recordSplitBack(const DerivativeCall& call, const std::string& node, const std::vector<Tensor>& inputs, int64_t dim,
                      const std::vector<int64_t>& extents) {
    Value out = call.forward(call.args);
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.sizes());
    recordOp(node, inputs, {out.toTensor()}, {}, [shapes, dim, extents](const BackwardContext& ctx) {
        std::vector<Tensor> grads;
        int64_t offset = 0;
        for (size_t i = 0; i < shapes.size(); ++i) {
            if (extents[i] < 0) {
                grads.emplace_back();
                continue;
            }
            grads.push_back(reshape(narrow(ctx.grad(), dim, offset, extents[i]), shapes[i]));
            offset += extents[i];
        }
        return grads;
    });
    return out;
}

bool skippedByCat(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

Value catDerivative(const DerivativeCall& call, std::vector<Tensor> joined, const std::vector<Tensor>& inputs, int64_t dim) {
    int64_t rank = 0;
    for (const Tensor& t : joined)
        if (!skippedByCat(t)) rank = t.dim();
    const int64_t wrapped = wrapDim(dim, rank);
    std::vector<int64_t> extents;
    for (const Tensor& t : joined) extents.push_back(skippedByCat(t) ? -1 : t.size(wrapped));
    return recordSplitBack(call, "CatBackward0", inputs, wrapped, extents);
}

}  // namespace

void registerShapeDerivatives(DerivativeTable& table) {
    table.def({"view_as"}, reshapeBack("ViewBackward0"));
    table.def({"view"}, [](const DerivativeCall& call) {
        // view(dtype) is not differentiable (PyTorch's output_differentiability: False); its own dtype returns self.
        if (call.args.size() > 1 && call.args[1].kind() == Value::Kind::DType) return call.forward(call.args);
        return reshapeBack("ViewBackward0")(call);
    });
    table.def({"reshape", "reshape_as", "flatten", "ravel", "unflatten"}, [](const DerivativeCall& call) {
        const Shape shape = call.args.tensor(0).sizes();
        Value out = call.forward(call.args);
        const char* node = out.toTensor().sharesStorageWith(call.args.tensor(0)) ? "ViewBackward0" : "UnsafeViewBackward0";
        recordOp(node, {call.args.tensor(0)}, {out.toTensor()}, {},
                 [shape](const BackwardContext& ctx) { return std::vector<Tensor>{reshape(ctx.grad(), shape)}; });
        return out;
    });
    table.def({"squeeze"}, reshapeBack("SqueezeBackward1"));
    table.def({"unsqueeze"}, reshapeBack("UnsqueezeBackward0"));
    table.def({"permute"}, [](const DerivativeCall& call) {
        const int64_t rank = call.args.tensor(0).dim();
        std::vector<int64_t> inverse(static_cast<size_t>(rank));
        const std::vector<int64_t> dims = call.args.intList(1);
        for (size_t i = 0; i < dims.size(); ++i) inverse[static_cast<size_t>(wrapDim(dims[i], rank))] = static_cast<int64_t>(i);
        return recordRearrange(call, "PermuteBackward0", [inverse](const Tensor& g) { return permute(g, inverse); });
    });
    table.def({"transpose", "swapaxes", "swapdims"}, [](const DerivativeCall& call) {
        const int64_t d0 = call.args.integer(1), d1 = call.args.integer(2);
        return recordRearrange(call, "TransposeBackward0", [d0, d1](const Tensor& g) { return transpose(g, d0, d1); });
    });
    table.def({"t"}, [](const DerivativeCall& call) { return recordRearrange(call, "TBackward0", [](const Tensor& g) { return t(g); }); });
    table.def({"adjoint", "mT", "mH"}, [](const DerivativeCall& call) {
        return recordRearrange(call, "TransposeBackward0", [](const Tensor& g) { return transpose(g, -2, -1); });
    });
    table.def({"T", "H"}, [](const DerivativeCall& call) {
        std::vector<int64_t> reversed;
        for (int64_t d = call.args.tensor(0).dim() - 1; d >= 0; --d) reversed.push_back(d);
        return recordRearrange(call, "PermuteBackward0", [reversed](const Tensor& g) { return permute(g, reversed); });
    });
    table.def({"movedim", "moveaxis"}, [](const DerivativeCall& call) {
        const std::vector<int64_t> source = call.args.intList(1), destination = call.args.intList(2);
        return recordRearrange(call, "MovedimBackward0", [source, destination](const Tensor& g) { return movedim(g, destination, source); });
    });
    table.def({"expand", "expand_as", "broadcast_to"}, [](const DerivativeCall& call) {
        const Shape shape = call.args.tensor(0).sizes();
        return recordRearrange(call, "ExpandBackward0", [shape](const Tensor& g) { return sumToShape(g, shape); });
    });
    table.def({"repeat"}, [](const DerivativeCall& call) {
        const Shape shape = call.args.tensor(0).sizes();
        const std::vector<int64_t> repeats = call.args.intList(1);
        return recordRearrange(call, "RepeatBackward0", [shape, repeats](const Tensor& g) {
            // View the gradient as (r0, s0, r1, s1, ...) and sum over the repeat counts.
            const size_t lead = repeats.size() - shape.size();
            Shape split;
            std::vector<int64_t> repeatDims;
            for (size_t i = 0; i < repeats.size(); ++i) {
                const int64_t size = i < lead ? 1 : shape[i - lead];
                repeatDims.push_back(static_cast<int64_t>(split.size()));
                split.push_back(repeats[i]);
                split.push_back(size);
            }
            return reshape(sum(reshape(contiguous(g), split), repeatDims), shape);
        });
    });
    table.def({"flip"}, [](const DerivativeCall& call) {
        const std::vector<int64_t> dims = call.args.intList(1);
        return recordRearrange(call, "FlipBackward0", [dims](const Tensor& g) { return flip(g, dims); });
    });
    for (const char* name : {"triu", "tril"}) {
        const bool upper = std::string_view(name) == "triu";
        table.def({name}, [upper](const DerivativeCall& call) {
            const int64_t diagonal = call.args.integer(1);
            return recordRearrange(call, upper ? "TriuBackward0" : "TrilBackward0",
                                   [upper, diagonal](const Tensor& g) { return upper ? triu(g, diagonal) : tril(g, diagonal); });
        });
    }
    table.def({"diagonal"}, [](const DerivativeCall& call) {
        const int64_t offset = call.args.integer(1), dim1 = call.args.integer(2), dim2 = call.args.integer(3);
        return recordEmbed(call, "DiagonalBackward0", [=](const Tensor& whole) { return diagonal(whole, offset, dim1, dim2); });
    });
    // Windows may overlap (step < size): each window's gradient adds into its stretch of the input.
    table.def({"unfold"}, [](const DerivativeCall& call) {
        const Tensor& x = call.args.tensor(0);
        const int64_t rank = std::max<int64_t>(x.dim(), 1);
        const int64_t dim = call.args.integer(1) < 0 ? call.args.integer(1) + rank : call.args.integer(1);
        const int64_t size = call.args.integer(2), step = call.args.integer(3);
        const Shape shape = x.sizes();
        const DType dtype = x.dtype();
        return recordRearrange(call, "UnfoldBackward0", [=](const Tensor& g) {
            Tensor whole = to(zeros(shape, TensorOptions{dtype, kCpu, false}), std::nullopt, g.device());
            if (shape.empty()) return copyInto(whole, reshape(g, {}));
            for (int64_t i = 0; i < g.size(dim); ++i) {
                const Tensor piece = movedim(select(g, dim, i), {g.dim() - 2}, {dim});
                const Tensor region = narrow(whole, dim, i * step, size);
                copyInto(region, add(region, piece));
            }
            return whole;
        });
    });
    table.def({"narrow"}, [](const DerivativeCall& call) {
        const int64_t dim = call.args.integer(1), start = call.args.integer(2), length = call.args.integer(3);
        return recordEmbed(call, "NarrowBackward0", [=](const Tensor& whole) { return narrow(whole, dim, start, length); });
    });
    table.def({"select"}, [](const DerivativeCall& call) {
        const int64_t dim = call.args.integer(1), index = call.args.integer(2);
        return recordEmbed(call, "SelectBackward0", [=](const Tensor& whole) { return select(whole, dim, index); });
    });
    table.def({"unbind"}, [](const DerivativeCall& call) {
        const int64_t dim = call.args.integer(1);
        return recordJoin(call, "UnbindBackward0", [dim](const std::vector<Tensor>& grads) { return stack(grads, dim); });
    });
    for (const char* name : {"split", "split_with_sizes", "chunk"}) {
        table.def({name}, [](const DerivativeCall& call) {
            const int64_t dim = call.args.integer(2);
            return recordJoin(call, "SplitBackward0", [dim](const std::vector<Tensor>& grads) { return cat(grads, dim); });
        });
    }
    table.def({"cat", "concat", "concatenate"}, [](const DerivativeCall& call) {
        const std::vector<Tensor> inputs = call.args.tensorList(0);
        return catDerivative(call, inputs, inputs, call.args.integer(1));
    });
    table.def({"hstack"}, [](const DerivativeCall& call) {
        const std::vector<Tensor> inputs = call.args.tensorList(0);
        return catDerivative(call, inputs, inputs, inputs.front().dim() == 1 ? 0 : 1);
    });
    table.def({"vstack"}, [](const DerivativeCall& call) {
        const std::vector<Tensor> inputs = call.args.tensorList(0);
        std::vector<Tensor> rows;
        for (const Tensor& t : inputs) rows.push_back(t.dim() < 2 ? reshape(t, {1, -1}) : t);
        return catDerivative(call, rows, inputs, 0);
    });
    table.def({"stack"}, [](const DerivativeCall& call) {
        const std::vector<Tensor> inputs = call.args.tensorList(0);
        const int64_t dim = wrapDim(call.args.integer(1), inputs.front().dim() + 1);
        Value out = call.forward(call.args);
        const size_t count = inputs.size();
        recordOp("StackBackward0", inputs, {out.toTensor()}, {}, [dim, count](const BackwardContext& ctx) {
            std::vector<Tensor> grads;
            for (size_t i = 0; i < count; ++i) grads.push_back(select(ctx.grad(), dim, static_cast<int64_t>(i)));
            return grads;
        });
        return out;
    });

    // Conversions: the engine casts each gradient to its input's dtype and device, so these pass it through.
    const Derivative passThrough = [](const DerivativeCall& call) {
        return recordRearrange(call, "ToCopyBackward0", [](const Tensor& g) { return g; });
    };
    table.def({"to", "float", "double", "half", "bfloat16", "type", "type_as", "cpu", "cuda"}, passThrough);
    table.def({"clone", "contiguous"}, [](const DerivativeCall& call) {
        return recordRearrange(call, "CloneBackward0", [](const Tensor& g) { return g; });
    });
    table.def({"copy_"}, [](const DerivativeCall& call) {
        Value out = call.forward(call.args);
        recordOp("CopyBackwards", {call.args.tensor(0), call.args.tensor(1)}, {out.toTensor()}, {}, [](const BackwardContext& ctx) {
            return std::vector<Tensor>{zerosLike(ctx.grad()), ctx.needs(1) ? ctx.grad() : Tensor()};
        });
        return out;
    });
}

}  // namespace eng::tensor::autograd
