// Derivative formulas of matrix products: matmul (with its 1-D and batched broadcasting cases, which also
// cover mm, bmm, mv, dot and @), outer, addmm and F.linear.
#include "tensor/autograd/derivatives.h"
#include "tensor/autograd/grad_utils.h"
#include "tensor/linalg.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace eng::tensor::autograd {

namespace {

// d(a @ b): 1-D operands are promoted to matrices (a row, b a column) as matmul does, the gradient gets those
// dims back, and batch broadcasting is summed away before restoring each operand's own shape.
std::vector<Tensor> matmulGrads(const Tensor& g, const Tensor& a, const Tensor& b, bool needA, bool needB) {
    const Tensor a2 = a.dim() == 1 ? unsqueeze(a, 0) : a;
    const Tensor b2 = b.dim() == 1 ? unsqueeze(b, -1) : b;
    Tensor g2 = g;
    if (b.dim() == 1) g2 = unsqueeze(g2, -1);
    if (a.dim() == 1) g2 = unsqueeze(g2, -2);
    Tensor ga, gb;
    if (needA) ga = reshape(sumToShape(matmul(g2, transpose(b2, -2, -1)), a2.sizes()), a.sizes());
    if (needB) gb = reshape(sumToShape(matmul(transpose(a2, -2, -1), g2), b2.sizes()), b.sizes());
    return {ga, gb};
}

// PyTorch's node for a matmul of these ranks (matmul dispatches to dot, mv, mm or a folded bmm).
const char* matmulNode(int64_t rankA, int64_t rankB) {
    if (rankA == 1 && rankB == 1) return "DotBackward0";
    if (rankA == 2 && rankB == 1) return "MvBackward0";
    if (rankA == 2 && rankB == 2) return "MmBackward0";
    return "UnsafeViewBackward0";
}

Derivative productOf(const char* node, bool reflected) {
    return [node, reflected](const DerivativeCall& call) {
        const size_t left = reflected ? 1 : 0, right = reflected ? 0 : 1;
        const std::string name = node ? node : matmulNode(call.args.tensor(left).dim(), call.args.tensor(right).dim());
        return recordSimple(call, name, {0, 1}, [reflected](const BackwardContext& ctx) {
            const size_t ia = reflected ? 1 : 0, ib = reflected ? 0 : 1;
            std::vector<Tensor> grads = matmulGrads(ctx.grad(), ctx.saved[ia], ctx.saved[ib], ctx.needs(ia), ctx.needs(ib));
            if (reflected) std::swap(grads[0], grads[1]);
            return grads;
        });
    };
}

}  // namespace

void registerLinalgDerivatives(DerivativeTable& table) {
    table.def({"matmul", "__matmul__"}, productOf(nullptr, false));
    table.def({"__rmatmul__"}, productOf(nullptr, true));
    table.def({"mm"}, productOf("MmBackward0", false));
    table.def({"bmm"}, productOf("BmmBackward0", false));
    table.def({"mv"}, productOf("MvBackward0", false));
    table.def({"dot"}, productOf("DotBackward0", false));
    table.def({"outer"}, [](const DerivativeCall& call) {
        return recordSimple(call, "OuterBackward0", {0, 1}, [](const BackwardContext& ctx) {
            const Tensor& g = ctx.grad();
            return std::vector<Tensor>{ctx.needs(0) ? mv(g, ctx.saved[1]) : Tensor(), ctx.needs(1) ? mv(t(g), ctx.saved[0]) : Tensor()};
        });
    });
    table.def({"addmm"}, [](const DerivativeCall& call) {
        const double beta = call.args.scalar(3).toDouble(), alpha = call.args.scalar(4).toDouble();
        return recordSimple(call, "AddmmBackward0", {0, 1, 2}, [beta, alpha](const BackwardContext& ctx) {
            const Tensor& g = ctx.grad();
            std::vector<Tensor> products = matmulGrads(g, ctx.saved[1], ctx.saved[2], ctx.needs(1), ctx.needs(2));
            auto scaled = [](const Tensor& x, double s) { return !x.defined() || s == 1.0 ? x : mul(x, s); };
            return std::vector<Tensor>{ctx.needs(0) ? scaled(g, beta) : Tensor(), scaled(products[0], alpha), scaled(products[1], alpha)};
        }, Saves{std::vector<size_t>{1, 2}, false});
    });
    table.def({"linear"}, [](const DerivativeCall& call) {
        // PyTorch lowers a 2-D linear to addmm (with bias) or mm; other ranks go through a reshape.
        const char* node = call.args.tensor(0).dim() != 2 ? "ViewBackward0" : call.args.isNone(2) ? "MmBackward0" : "AddmmBackward0";
        return recordSimple(call, node, {0, 1, 2}, [](const BackwardContext& ctx) {
            const Tensor& x = ctx.saved[0];
            const Tensor& weight = ctx.saved[1];
            const Tensor& g = ctx.grad();
            const int64_t outFeatures = weight.dim() == 2 ? weight.size(0) : 1;
            Tensor gx, gw, gb;
            if (ctx.needs(0)) gx = weight.dim() == 2 ? matmul(g, weight) : mul(unsqueeze(g, -1), weight);
            if (ctx.needs(1)) {
                // Every leading dim of x is a batch dim: flatten them and take one matrix product.
                const Tensor rows = reshape(g, {-1, outFeatures});
                const Tensor inputs = reshape(x, {-1, x.dim() == 0 ? 1 : x.size(-1)});
                gw = reshape(mm(t(rows), inputs), weight.sizes());
            }
            if (ctx.needs(2)) gb = g;
            return std::vector<Tensor>{gx, gw, gb};
        }, Saves{std::vector<size_t>{0, 1}, false});
    });
}

}  // namespace eng::tensor::autograd
