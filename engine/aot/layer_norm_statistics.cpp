// layer_norm in a training graph as PyTorch's native_layer_norm (output, mean, rstd), with the derivative that reads
// the saved statistics. The statistics are in float32 for 16-bit inputs on CUDA, so the backward computes there
// (the incoming gradient is cast up once) and each gradient is rounded once to its input's dtype.
#include "aot/layer_norm_statistics.h"

#include <fmt/format.h>

#include "inductor/lowering_context.h"

namespace eng::aot {

using fx::Arg;
using fx::Node;

namespace {

Arg mapped(const Arg& a, const std::map<const Node*, Node*>& remap) {
    Arg out = a;
    if (a.kind == Arg::Kind::NodeRef) out.node = remap.at(a.node);
    for (Arg& item : out.items) item = mapped(item, remap);
    return out;
}

/// The getitem node that reads item `index` of `several` (the forward made one for each statistic).
Node* itemOf(GraphBuilder& b, const Node& several, int64_t index) {
    for (const auto& owned : b.graph().nodes()) {
        const Node& n = *owned;
        if (n.callKind == fx::CallKind::GetItem && n.args.size() == 2 && n.args[0].kind == Arg::Kind::NodeRef && n.args[0].node == &several &&
            n.args[1].kind == Arg::Kind::Constant && n.args[1].constant.is(vm::Kind::Int) && n.args[1].constant.asInt() == index)
            return owned.get();
    }
    return nullptr;
}

}  // namespace

Node* nativeLayerNormForward(GraphBuilder& b, const Node& layerNorm, const std::map<const Node*, Node*>& remap, std::vector<Node*>& added) {
    // F.layer_norm's parameters, positional or keyword, as native_layer_norm takes them (all five, in order).
    const char* names[] = {"input", "normalized_shape", "weight", "bias", "eps"};
    std::vector<Arg> args;
    for (size_t i = 0; i < 5; ++i) {
        const Arg* a = inductor::lowering::findArg(layerNorm, i, names[i]);
        if (a) args.push_back(mapped(*a, remap));
        else if (i < 2) throw AotUnsupported(fmt::format("{} ({}) without its {}", layerNorm.name, layerNorm.target, names[i]));
        else args.push_back(GraphBuilder::constant(i == 4 ? vm::Value(1e-5) : vm::Value()));
    }
    Node* native = b.torchFunction("native_layer_norm", std::move(args));
    added.push_back(native);
    for (int64_t i = 0; i < 3; ++i) added.push_back(b.getitem(native, i));
    return added[added.size() - 3];
}

void nativeLayerNormRule(GradContext& ctx) {
    if (ctx.itemGrads.contains(1) || ctx.itemGrads.contains(2)) ctx.unsupported("a gradient through native_layer_norm's statistics");
    auto output = ctx.itemGrads.find(0);
    if (output == ctx.itemGrads.end()) return;
    Node* x = ctx.nodeArg(0, "input");
    auto normalized = ctx.dims(1, "normalized_shape");
    if (!x || !normalized) ctx.unsupported("native_layer_norm without a constant normalized_shape");
    Node* mean = itemOf(ctx.b, ctx.node, 1);
    Node* rstd = itemOf(ctx.b, ctx.node, 2);
    if (!mean || !rstd) ctx.unsupported("native_layer_norm whose statistics the forward does not read");
    Node* weight = ctx.nodeArg(2, "weight");
    GraphBuilder& b = ctx.b;
    auto ref = [](Node* n) { return GraphBuilder::ref(n); };
    const int64_t rank = exampleTensor(*x)->dim();
    const int64_t k = static_cast<int64_t>(normalized->size());
    std::vector<int64_t> axes, batch;
    for (int64_t d = 0; d < rank; ++d) (d < rank - k ? batch : axes).push_back(d);
    const Arg keep = GraphBuilder::constant(vm::Value(true));
    // In the statistics' dtype (float32 for bf16 on CUDA), as native_layer_norm_backward computes.
    Node* g = output->second;
    const tensor::DType compute = exampleTensor(*rstd)->dtype();
    if (exampleTensor(*g)->dtype() != compute) g = b.method("to", g, {GraphBuilder::constant(vm::Value(std::make_shared<vm::DTypeObject>(compute)))});
    // x normalised, made anew for each reader: a value several nodes read becomes a buffer, which would start a
    // kernel of its own (it shares no data with the gradient's kernel) and split the backward into two passes.
    auto xhat = [&] { return b.method("mul", b.method("sub", x, {ref(mean)}), {ref(rstd)}); };
    if (ctx.differentiable(0, "input")) {
        // rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) over the normalized dims: two row sums, one pass.
        Node* gxhat = weight ? b.method("mul", g, {ref(weight)}) : g;
        const Arg n = reducedCount(ctx, *x, axes);
        Node* a = b.method("sum", gxhat, {GraphBuilder::ints(axes)}, {{"keepdim", keep}});
        Node* c = b.method("sum", b.method("mul", gxhat, {ref(xhat())}), {GraphBuilder::ints(axes)}, {{"keepdim", keep}});
        Node* inner = b.method("sub", b.method("sub", gxhat, {ref(b.method("div", a, {n}))}), {ref(b.method("div", b.method("mul", xhat(), {ref(c)}), {n}))});
        ctx.send(x, b.method("mul", inner, {ref(rstd)}));
    }
    // The parameters' gradients: column sums over the rows (the scheduler's per-piece partials with a finish).
    auto overBatch = [&](Node* v) { return batch.empty() ? v : b.method("sum", v, {GraphBuilder::ints(batch)}); };
    if (Node* w = ctx.differentiable(2, "weight")) ctx.send(w, overBatch(b.method("mul", g, {ref(xhat())})));
    if (Node* bias = ctx.differentiable(3, "bias")) ctx.send(bias, overBatch(g));
}

}  // namespace eng::aot
