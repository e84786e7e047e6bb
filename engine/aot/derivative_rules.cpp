// Derivative rules written as graph nodes, for the ops whose eager derivative is not recorded (every other op's
// derivative is the eager runtime's own formula, recorded by recorded_derivative.cpp): matmul and linear, the
// reductions, softmax/log_softmax, native_layer_norm (layer_norm_statistics.cpp), cross_entropy, embedding,
// scaled_dot_product_attention, the views and split/chunk/unbind. Why these: their eager formulas (engine/tensor/autograd/derivatives_*.cpp) take sizes and dims
// as integers, which a recording would make constants of a dynamic-shape graph (these rules use its SymInt inputs),
// call runtime ops without a recording hook (matmul, sum, expand, the views), save values the forward computes
// besides its result (layer_norm's statistics), or have several results. Each mirrors the eager formula.
#include "aot/derivative_rules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

#include <fmt/format.h>

#include "aot/index_derivative.h"
#include "aot/layer_norm_statistics.h"
#include "inductor/lowering_context.h"
#include "tensor/cuda_attention.h"

namespace eng::aot {

using fx::Arg;
using fx::Node;

namespace {

Arg c(double v) { return GraphBuilder::constant(vm::Value(v)); }
Arg ref(Node* n) { return GraphBuilder::ref(n); }

std::vector<int64_t> normalizedDims(std::vector<int64_t> dims, int64_t rank) {
    for (int64_t& d : dims) d = d < 0 ? d + rank : d;
    std::sort(dims.begin(), dims.end());
    return dims;
}

std::vector<int64_t> range(int64_t from, int64_t to) {
    std::vector<int64_t> out;
    for (int64_t d = from; d < to; ++d) out.push_back(d);
    return out;
}

/// g of a reduction's result, with the reduced dims put back and expanded to the input's sizes.
Node* expandReduced(GradContext& ctx, Node* input, const std::vector<int64_t>& dims, bool keepdim) {
    Node* g = ctx.grad;
    if (!keepdim)
        for (int64_t d : dims) g = ctx.b.method("unsqueeze", g, {GraphBuilder::constant(vm::Value(d))});
    return ctx.b.method("expand", g, {ctx.b.sizesOf(*input)});
}

std::vector<int64_t> reductionDims(GradContext& ctx, Node* input) {
    const int64_t rank = exampleTensor(*input)->dim();
    auto dims = ctx.dims(1, "dim");
    return dims ? normalizedDims(*dims, rank) : range(0, rank);
}

void sumRule(GradContext& ctx) {
    Node* x = ctx.differentiable(0, "input");
    if (!x) return;
    if (const Arg* dtype = ctx.arg(99, "dtype"); dtype && !(dtype->kind == Arg::Kind::Constant && dtype->constant.isNone()))
        ctx.unsupported("sum with a dtype");
    const auto dims = reductionDims(ctx, x);
    ctx.send(x, expandReduced(ctx, x, dims, ctx.number(2, "keepdim", 0.0) != 0.0));
}

void meanRule(GradContext& ctx) {
    Node* x = ctx.differentiable(0, "input");
    if (!x) return;
    if (const Arg* dtype = ctx.arg(3, "dtype"); dtype && !(dtype->kind == Arg::Kind::Constant && dtype->constant.isNone()))
        ctx.unsupported("mean with a dtype");
    const auto dims = reductionDims(ctx, x);
    Node* expanded = expandReduced(ctx, x, dims, ctx.number(2, "keepdim", 0.0) != 0.0);
    ctx.send(x, ctx.b.method("div", expanded, {reducedCount(ctx, *x, dims)}));
}

void matmulRule(GradContext& ctx) {
    Node* a = ctx.nodeArg(0, "input");
    Node* b = ctx.nodeArg(1, "other");
    if (!a || !b || exampleTensor(*a)->dim() < 2 || exampleTensor(*b)->dim() < 2) ctx.unsupported("matmul of a 1-D operand");
    if (ctx.differentiable(0, "input"))
        ctx.send(a, ctx.b.method("matmul", ctx.grad, {ref(ctx.b.method("transpose", b, {GraphBuilder::constant(vm::Value(int64_t{-2})), GraphBuilder::constant(vm::Value(int64_t{-1}))}))}));
    if (ctx.differentiable(1, "other"))
        ctx.send(b, ctx.b.method("matmul", ctx.b.method("transpose", a, {GraphBuilder::constant(vm::Value(int64_t{-2})), GraphBuilder::constant(vm::Value(int64_t{-1}))}), {ref(ctx.grad)}));
}

void linearRule(GradContext& ctx) {
    Node* x = ctx.nodeArg(0, "input");
    Node* w = ctx.nodeArg(1, "weight");
    if (!x || !w || exampleTensor(*x)->dim() < 2) ctx.unsupported("linear of a 1-D input");
    const Arg first = GraphBuilder::constant(vm::Value(int64_t{0}));
    const Arg last = GraphBuilder::constant(vm::Value(int64_t{-2}));
    if (ctx.differentiable(0, "input")) ctx.send(x, ctx.b.method("matmul", ctx.grad, {ref(w)}));
    Node* rows = nullptr;
    auto flatGrad = [&] { return rows ? rows : rows = ctx.b.method("flatten", ctx.grad, {first, last}); };
    if (ctx.differentiable(1, "weight"))
        ctx.send(w, ctx.b.method("matmul", ctx.b.method("t", flatGrad()), {ref(ctx.b.method("flatten", x, {first, last}))}));
    if (Node* bias = ctx.differentiable(2, "bias")) ctx.send(bias, ctx.b.method("sum", flatGrad(), {first}));
}

bool functionalForm(const GradContext& ctx) { return ctx.node.target.find("functional") != std::string::npos; }

void softmaxRule(GradContext& ctx, bool logarithmic) {
    Node* x = ctx.differentiable(0, "input");
    if (!x) return;
    if (const Arg* dtype = ctx.arg(functionalForm(ctx) ? 3 : 2, "dtype"); dtype && !(dtype->kind == Arg::Kind::Constant && dtype->constant.isNone()))
        ctx.unsupported("softmax with a dtype");
    const Arg* dimArg = ctx.arg(1, "dim");
    if (!dimArg || dimArg->kind != Arg::Kind::Constant || !dimArg->constant.is(vm::Kind::Int)) ctx.unsupported("softmax without a constant dim");
    const Arg dim = *dimArg;
    GraphBuilder& b = ctx.b;
    Node* y = &ctx.node;
    if (logarithmic) {
        Node* total = b.method("sum", ctx.grad, {dim}, {{"keepdim", GraphBuilder::constant(vm::Value(true))}});
        ctx.send(x, b.method("sub", ctx.grad, {ref(b.method("mul", b.method("exp", y), {ref(total)}))}));
        return;
    }
    Node* gy = b.method("mul", ctx.grad, {ref(y)});
    Node* total = b.method("sum", gy, {dim}, {{"keepdim", GraphBuilder::constant(vm::Value(true))}});
    ctx.send(x, b.method("sub", gy, {ref(b.method("mul", y, {ref(total)}))}));
}

/// The flash backward's stacked [3, batch, L, heads, E] gradients (PyTorch's flash layout) sent to q, k and v.
void sendFlashGradients(GradContext& ctx, Node* grads) {
    auto integer = [](int64_t i) { return GraphBuilder::constant(vm::Value(i)); };
    for (int64_t i = 0; i < 3; ++i)
        if (Node* input = ctx.differentiable(static_cast<size_t>(i), i == 0 ? "query" : i == 1 ? "key" : "value"))
            ctx.send(input, ctx.b.method("transpose", ctx.b.method("select", grads, {integer(0), integer(i)}), {integer(1), integer(2)}));
}

/// scaled_dot_product_attention (no mask, no dropout, q/k/v of one shape but the sequence lengths): the weights are
/// recomputed from q and k (softmax of the scaled scores, the causal mask top-left aligned), then the eager formula;
/// on CUDA, the flash backward kernel (torch._flash_attention_backward), as the eager derivative there (a training
/// graph's sdpa is torch._flash_attention_forward there, below, whose backward reads the saved logsumexp).
void attentionRule(GradContext& ctx) {
    Node* q = ctx.nodeArg(0, "query");
    Node* k = ctx.nodeArg(1, "key");
    Node* v = ctx.nodeArg(2, "value");
    if (!q || !k || !v || !exampleTensor(*q) || !exampleTensor(*k) || !exampleTensor(*v)) ctx.unsupported("query, key and value must be tensors");
    if (const Arg* mask = ctx.arg(3, "attn_mask"); mask && !(mask->kind == Arg::Kind::Constant && mask->constant.isNone()))
        ctx.unsupported("scaled_dot_product_attention with an attn_mask");
    if (ctx.number(4, "dropout_p", 0.0) != 0.0) ctx.unsupported("scaled_dot_product_attention with dropout");
    if (ctx.number(7, "enable_gqa", 0.0) != 0.0) ctx.unsupported("scaled_dot_product_attention with enable_gqa");
    const tensor::Shape& qs = exampleTensor(*q)->sizes();
    const tensor::Shape& ks = exampleTensor(*k)->sizes();
    if (qs.size() < 2 || ks.size() != qs.size() || exampleTensor(*v)->sizes().size() != qs.size() ||
        !std::equal(qs.begin(), qs.end() - 2, ks.begin()) || qs.back() != ks.back())
        ctx.unsupported("scaled_dot_product_attention of broadcast or grouped heads");
    const bool causal = ctx.number(5, "is_causal", 0.0) != 0.0;
    const double factor = ctx.number(6, "scale", 1.0 / std::sqrt(static_cast<double>(qs.back())));
    GraphBuilder& b = ctx.b;
    if (tensor::cudaops::flashAttentionBackwardSupported(*exampleTensor(*q), *exampleTensor(*k), *exampleTensor(*v)) &&
        exampleTensor(*ctx.grad)->dtype() == exampleTensor(*q)->dtype()) {
        // On CUDA (16-bit q/k/v of one 4-D shape) the flash backward recomputes the weights tile by tile from the
        // forward's output; its three gradients come stacked in PyTorch's flash layout.
        sendFlashGradients(ctx, b.torchFunction("_flash_attention_backward", {ref(ctx.grad), ref(q), ref(k), ref(v), ref(&ctx.node),
                                                                             GraphBuilder::constant(vm::Value(causal)), c(factor)}));
        return;
    }
    auto swapLast = [&](Node* x) {
        return b.method("transpose", x, {GraphBuilder::constant(vm::Value(int64_t{-2})), GraphBuilder::constant(vm::Value(int64_t{-1}))});
    };
    Node* scores = b.method("mul", b.method("matmul", q, {ref(swapLast(k))}), {c(factor)});
    if (causal) {
        const Arg lengths = Arg::ofItems(Arg::Kind::List, {b.sizesOf(*q).items[qs.size() - 2], b.sizesOf(*k).items[ks.size() - 2]});
        Node* allowed = b.method("tril", b.method("new_ones", q, {lengths}, {{"dtype", GraphBuilder::constant(vm::Value(std::make_shared<vm::DTypeObject>(tensor::DType::Bool)))}}));
        scores = b.method("masked_fill", scores, {ref(b.method("logical_not", allowed)), c(-std::numeric_limits<double>::infinity())});
    }
    Node* weights = b.method("softmax", scores, {GraphBuilder::constant(vm::Value(int64_t{-1}))});
    Node* gWeights = b.method("matmul", ctx.grad, {ref(swapLast(v))});
    Node* rowDot = b.method("sum", b.method("mul", gWeights, {ref(weights)}), {GraphBuilder::ints({-1})}, {{"keepdim", GraphBuilder::constant(vm::Value(true))}});
    Node* gScaled = b.method("mul", b.method("mul", weights, {ref(b.method("sub", gWeights, {ref(rowDot)}))}), {c(factor)});
    if (ctx.differentiable(0, "query")) ctx.send(q, b.method("matmul", gScaled, {ref(k)}));
    if (ctx.differentiable(1, "key")) ctx.send(k, b.method("matmul", swapLast(gScaled), {ref(q)}));
    if (ctx.differentiable(2, "value")) ctx.send(v, b.method("matmul", swapLast(weights), {ref(ctx.grad)}));
}

/// torch._flash_attention_forward(q, k, v, is_causal, scale) -> (out, logsumexp): the flash backward from the output's
/// gradient, the saved output and the saved logsumexp (the getitems the forward took of it), so that the backward
/// does not walk the keys again for each row's statistics.
void flashForwardRule(GradContext& ctx) {
    auto outGrad = ctx.itemGrads.find(0);
    if (outGrad == ctx.itemGrads.end()) return;  // only the logsumexp was read: it carries no gradient
    Node* items[2] = {nullptr, nullptr};
    for (const auto& owned : ctx.b.graph().nodes()) {
        const Node& n = *owned;
        if (n.callKind != fx::CallKind::GetItem || n.args.size() != 2 || n.args[0].kind != Arg::Kind::NodeRef || n.args[0].node != &ctx.node ||
            n.args[1].kind != Arg::Kind::Constant || !n.args[1].constant.is(vm::Kind::Int))
            continue;
        const int64_t i = n.args[1].constant.asInt();
        if ((i == 0 || i == 1) && !items[i]) items[i] = owned.get();
    }
    if (!items[0] || !items[1]) ctx.unsupported("its output and logsumexp are not both taken by the forward");
    Node* q = ctx.nodeArg(0, "query");
    Node* grad = outGrad->second;
    if (exampleTensor(*grad)->dtype() != exampleTensor(*q)->dtype())
        grad = ctx.b.method("to", grad, {GraphBuilder::constant(vm::Value(std::make_shared<vm::DTypeObject>(exampleTensor(*q)->dtype())))});
    sendFlashGradients(ctx, ctx.b.torchFunction("_flash_attention_backward",
                                                {ref(grad), ref(q), ref(ctx.nodeArg(1, "key")), ref(ctx.nodeArg(2, "value")), ref(items[0]),
                                                 GraphBuilder::constant(vm::Value(ctx.number(3, "is_causal", std::nullopt) != 0.0)),
                                                 c(ctx.number(4, "scale", std::nullopt)), ref(items[1])}));
}

/// [N, count] rows of `indices` (1-D, integral) one-hot encoded in `like`'s dtype and device: the class numbers are made
/// from `indices` (no device constant in the graph), so they are exact integers whatever `like`'s dtype (a bfloat16
/// cumsum stops counting at 256).
Node* oneHotRows(GraphBuilder& b, Node* like, Node* indices, int64_t count) {
    const Arg zero = GraphBuilder::constant(vm::Value(int64_t{0}));
    Node* classIds = b.method("sub", b.method("cumsum", b.method("new_ones", indices, {GraphBuilder::ints({count})}), {zero}),
                              {GraphBuilder::constant(vm::Value(int64_t{1}))});
    Node* matches = b.method("eq", b.method("unsqueeze", indices, {GraphBuilder::constant(vm::Value(int64_t{1}))}), {ref(classIds)});
    return b.method("to", matches, {GraphBuilder::constant(vm::Value(std::make_shared<vm::DTypeObject>(exampleTensor(*like)->dtype())))});
}

/// embedding: the weight's gradient sums the rows of g by index into zeros (an accumulating index_put, as
/// embedding_dense_backward does); the padding row gets none, as it is a fixed vector.
void embeddingRule(GradContext& ctx) {
    Node* indices = ctx.nodeArg(0, "input");
    Node* weight = ctx.differentiable(1, "weight");
    if (!weight) return;
    if (!indices || exampleTensor(*indices)->dim() < 1 || exampleTensor(*weight)->dim() != 2) ctx.unsupported("embedding of a 0-dim index");
    if (const Arg* a = ctx.arg(3, "max_norm"); a && !(a->kind == Arg::Kind::Constant && a->constant.isNone())) ctx.unsupported("embedding with max_norm");
    if (ctx.number(5, "scale_grad_by_freq", 0.0) != 0.0 || ctx.number(6, "sparse", 0.0) != 0.0) ctx.unsupported("embedding with scale_grad_by_freq or sparse");
    GraphBuilder& b = ctx.b;
    const int64_t rows = exampleTensor(*weight)->sizes()[0];
    const Arg zero = GraphBuilder::constant(vm::Value(int64_t{0}));
    Node* flat = exampleTensor(*indices)->dim() == 1 ? indices : b.method("flatten", indices);
    Node* grads = b.method("flatten", ctx.grad, {zero, GraphBuilder::constant(vm::Value(int64_t{-2}))});
    if (const Arg* a = ctx.arg(2, "padding_idx"); a && !(a->kind == Arg::Kind::Constant && a->constant.isNone())) {
        int64_t padding = static_cast<int64_t>(ctx.number(2, "padding_idx", std::nullopt));
        if (padding < 0) padding += rows;
        Node* kept = b.method("unsqueeze", b.method("ne", flat, {GraphBuilder::constant(vm::Value(padding))}), {GraphBuilder::constant(vm::Value(int64_t{1}))});
        grads = b.method("mul", grads, {ref(kept)});
    }
    Node* zeros = b.method("new_zeros", weight, {GraphBuilder::ints(exampleTensor(*weight)->sizes())});
    ctx.send(weight, b.torchFunction("index_put", {ref(zeros), Arg::ofItems(Arg::Kind::List, {ref(flat)}), ref(grads), GraphBuilder::constant(vm::Value(true))}));
}

void crossEntropyRule(GradContext& ctx) {
    Node* x = ctx.differentiable(0, "input");
    Node* target = ctx.nodeArg(1, "target");
    if (!x) return;
    if (!target || exampleTensor(*x)->dim() != 2 || exampleTensor(*target)->dim() != 1 || tensor::isFloating(exampleTensor(*target)->dtype()))
        ctx.unsupported("cross_entropy other than [N, C] logits with class indices");
    if (ctx.nodeArg(2, "weight") || (ctx.arg(2, "weight") && !ctx.arg(2, "weight")->constant.isNone())) ctx.unsupported("cross_entropy with class weights");
    for (const auto& [position, legacy] : {std::pair<size_t, const char*>{3, "size_average"}, {5, "reduce"}})
        if (const Arg* a = ctx.arg(position, legacy); a && !(a->kind == Arg::Kind::Constant && a->constant.isNone()))
            ctx.unsupported(std::string("cross_entropy with ") + legacy);
    if (ctx.number(7, "label_smoothing", 0.0) != 0.0) ctx.unsupported("cross_entropy with label smoothing");
    const double ignore = ctx.number(4, "ignore_index", -100.0);
    const std::string reduction = ctx.text(6, "reduction", "mean");
    GraphBuilder& b = ctx.b;
    const int64_t classes = exampleTensor(*x)->sizes()[1];
    if (reduction != "mean" && reduction != "sum" && reduction != "none") ctx.unsupported("cross_entropy reduction " + reduction);
    const Arg one = GraphBuilder::constant(vm::Value(int64_t{1}));
    // The per-row factors first (grad / rows kept, the ignore mask), so that the [N, C] gradient is one pass over
    // the row after its softmax: (softmax(x) - onehot) * factor.
    Node* valid = b.method("ne", target, {c(ignore)});
    Node* factor = reduction == "mean" ? b.method("div", ctx.grad, {ref(b.method("sum", valid))}) : ctx.grad;
    Node* rowFactor = b.method("unsqueeze", b.method("mul", factor, {ref(valid)}), {one});
    Node* oneHot = oneHotRows(b, x, target, classes);
    Node* probabilities = b.method("softmax", x, {one});
    ctx.send(x, b.method("mul", b.method("sub", probabilities, {ref(oneHot)}), {ref(rowFactor)}));
}

void reshapeRule(GradContext& ctx) {
    if (const Arg* a = ctx.arg(1, "dtype"); a && a->kind == Arg::Kind::Constant && a->constant.is(vm::Kind::DType))
        ctx.unsupported("a view as another dtype");
    if (Node* x = ctx.differentiable(0, "input")) ctx.send(x, ctx.b.method("reshape", ctx.grad, {ctx.b.sizesOf(*x)}));
}

void transposeRule(GradContext& ctx) {
    Node* x = ctx.differentiable(0, "input");
    if (!x) return;
    const Arg* d0 = ctx.arg(1, "dim0");
    const Arg* d1 = ctx.arg(2, "dim1");
    if (!d0 || !d1) ctx.unsupported("transpose without constant dims");
    ctx.send(x, ctx.b.method("transpose", ctx.grad, {*d0, *d1}));
}

void permuteRule(GradContext& ctx) {
    Node* x = ctx.differentiable(0, "input");
    if (!x) return;
    std::vector<int64_t> dims;
    if (ctx.node.args.size() > 2) {
        for (size_t i = 1; i < ctx.node.args.size(); ++i) dims.push_back(static_cast<int64_t>(ctx.number(i, "", std::nullopt)));
    } else if (auto list = ctx.dims(1, "dims")) {
        dims = *list;
    } else {
        ctx.unsupported("permute without constant dims");
    }
    dims = [&] {
        std::vector<int64_t> inverse(dims.size());
        const int64_t rank = static_cast<int64_t>(dims.size());
        for (size_t i = 0; i < dims.size(); ++i) inverse[static_cast<size_t>(dims[i] < 0 ? dims[i] + rank : dims[i])] = static_cast<int64_t>(i);
        return inverse;
    }();
    ctx.send(x, ctx.b.method("permute", ctx.grad, {GraphBuilder::ints(dims)}));
}

void identityRule(GradContext& ctx) {
    if (Node* x = ctx.differentiable(0, "input")) ctx.send(x, ctx.grad);
}

void dropoutRule(GradContext& ctx) {
    const double p = ctx.number(1, "p", 0.5);
    const bool training = ctx.number(2, "training", 1.0) != 0.0;
    if (p != 0.0 && training) ctx.unsupported("dropout in training mode (random ops are not traced into the joint graph)");
    identityRule(ctx);
}

/// x[i] of an op with several results: the gradient goes to item i.
void getitemRule(GradContext& ctx) {
    Node* several = ctx.nodeArg(0, "input");
    const Arg* index = ctx.arg(1, "index");
    if (several && exampleTensor(*several) && index) {
        if (Node* x = ctx.differentiable(0, "input")) basicIndexRule(ctx, x);
        return;
    }
    if (!several || !(several->example.is(vm::Kind::Tuple) || several->example.is(vm::Kind::List)) || !index ||
        index->kind != Arg::Kind::Constant || !index->constant.is(vm::Kind::Int))
        ctx.unsupported("indexing a value that is neither a tensor nor a split/chunk/unbind result");
    const int64_t count = static_cast<int64_t>(several->example.is(vm::Kind::Tuple) ? several->example.as<vm::TupleObject>().items.size()
                                                                                   : several->example.as<vm::ListObject>().items.size());
    const int64_t i = index->constant.asInt();
    ctx.sendItem(several, i < 0 ? i + count : i, ctx.grad);
}

/// split/chunk (cat of the items' gradients) and unbind (stack): items nobody read get zeros.
void severalResultsRule(GradContext& ctx, bool stacked, size_t dimPosition) {
    Node* x = ctx.differentiable(0, "input");
    if (!x) return;
    const vm::ValueList& items = ctx.node.example.is(vm::Kind::Tuple) ? ctx.node.example.as<vm::TupleObject>().items
                                                                       : ctx.node.example.as<vm::ListObject>().items;
    std::vector<Arg> parts;
    for (size_t i = 0; i < items.size(); ++i) {
        auto found = ctx.itemGrads.find(static_cast<int64_t>(i));
        if (found != ctx.itemGrads.end()) {
            parts.push_back(ref(found->second));
            continue;
        }
        const tensor::Tensor& item = items[i].as<vm::TensorObject>().value;
        for (const std::string& symbol : x->dimSymbols)
            if (!symbol.empty()) ctx.unsupported("an unread item of a dynamic-shape " + ctx.node.target);
        std::vector<int64_t> sizes(item.sizes().begin(), item.sizes().end());
        parts.push_back(ref(ctx.b.method("new_zeros", ctx.grad ? ctx.grad : ctx.itemGrads.begin()->second, {GraphBuilder::ints(sizes)})));
    }
    const double dim = ctx.number(dimPosition, "dim", 0.0);
    ctx.send(x, ctx.b.torchFunction(stacked ? "stack" : "cat", {Arg::ofItems(Arg::Kind::List, std::move(parts)),
                                                                 GraphBuilder::constant(vm::Value(static_cast<int64_t>(dim)))}));
}

const std::map<std::string, GradRule, std::less<>>& rules() {
    static const std::map<std::string, GradRule, std::less<>> table = [] {
        std::map<std::string, GradRule, std::less<>> t;
        for (const char* name : {"matmul", "mm", "bmm", "__matmul__"}) t[name] = matmulRule;
        t["linear"] = linearRule;
        t["sum"] = sumRule;
        t["mean"] = meanRule;
        t["softmax"] = [](GradContext& ctx) { softmaxRule(ctx, false); };
        t["log_softmax"] = [](GradContext& ctx) { softmaxRule(ctx, true); };
        t["native_layer_norm"] = nativeLayerNormRule;  // layer_norm in training graphs (layer_norm_statistics.cpp)
        t["cross_entropy"] = crossEntropyRule;
        t["embedding"] = embeddingRule;
        t["scaled_dot_product_attention"] = attentionRule;
        t["_flash_attention_forward"] = flashForwardRule;
        for (const char* name : {"view", "reshape", "flatten", "view_as", "reshape_as", "unflatten", "squeeze", "unsqueeze", "ravel"})
            t[name] = reshapeRule;
        for (const char* name : {"transpose", "swapaxes", "swapdims"}) t[name] = transposeRule;
        for (const char* name : {"t", "T", "mT"}) t[name] = [](GradContext& ctx) {
            if (Node* x = ctx.differentiable(0, "input")) ctx.send(x, ctx.b.method("transpose", ctx.grad, {GraphBuilder::constant(vm::Value(int64_t{-2})), GraphBuilder::constant(vm::Value(int64_t{-1}))}));
        };
        t["permute"] = permuteRule;
        for (const char* name : {"expand", "expand_as", "broadcast_to", "contiguous", "clone", "positive", "__pos__"}) t[name] = identityRule;
        t["dropout"] = dropoutRule;
        t["getitem"] = getitemRule;
        t["split"] = [](GradContext& ctx) { severalResultsRule(ctx, false, 2); };
        t["chunk"] = [](GradContext& ctx) { severalResultsRule(ctx, false, 2); };
        t["unbind"] = [](GradContext& ctx) { severalResultsRule(ctx, true, 1); };
        return t;
    }();
    return table;
}

}  // namespace

Arg reducedCount(GradContext& ctx, const Node& input, const std::vector<int64_t>& dims) {
    const tensor::Tensor& t = *exampleTensor(input);
    int64_t constant = 1;
    std::optional<Arg> symbolic;
    Arg sizes = ctx.b.sizesOf(input);
    for (int64_t d : dims) {
        const Arg& size = sizes.items[static_cast<size_t>(d)];
        if (size.kind == Arg::Kind::Constant) {
            constant *= t.sizes()[static_cast<size_t>(d)];
            continue;
        }
        symbolic = symbolic ? ref(ctx.b.binaryOperator(ops::BinaryOperator::Multiply, *symbolic, size)) : size;
    }
    if (!symbolic) return c(static_cast<double>(constant));
    return constant == 1 ? *symbolic : ref(ctx.b.binaryOperator(ops::BinaryOperator::Multiply, *symbolic, GraphBuilder::constant(vm::Value(constant))));
}

const fx::Arg* GradContext::arg(size_t position, const std::string& name) const {
    return inductor::lowering::findArg(node, position, name);
}

Node* GradContext::nodeArg(size_t position, const std::string& name) const {
    const Arg* a = arg(position, name);
    return a && a->kind == Arg::Kind::NodeRef ? a->node : nullptr;
}

Node* GradContext::differentiable(size_t position, const std::string& name) const {
    Node* n = nodeArg(position, name);
    return n && exampleTensor(*n) && requiresGrad_(n) ? n : nullptr;
}

double GradContext::number(size_t position, const std::string& name, std::optional<double> fallback) const {
    const Arg* a = arg(position, name);
    if (!a || (a->kind == Arg::Kind::Constant && a->constant.isNone())) {
        if (!fallback) unsupported("missing argument " + name);
        return *fallback;
    }
    if (a->kind != Arg::Kind::Constant || !(a->constant.isNumber() || a->constant.is(vm::Kind::Bool)))
        unsupported(fmt::format("argument {} of {} is not a constant number", name.empty() ? std::to_string(position) : name, node.name));
    if (a->constant.is(vm::Kind::Bool)) return a->constant.asBool() ? 1.0 : 0.0;
    return a->constant.is(vm::Kind::Float) ? a->constant.asFloat() : static_cast<double>(a->constant.asInt());
}

std::optional<std::vector<int64_t>> GradContext::dims(size_t position, const std::string& name) const {
    const Arg* a = arg(position, name);
    if (!a || (a->kind == Arg::Kind::Constant && a->constant.isNone())) return std::nullopt;
    if (a->kind == Arg::Kind::Constant && a->constant.is(vm::Kind::Int)) return std::vector<int64_t>{a->constant.asInt()};
    std::vector<int64_t> out;
    auto take = [&](const Arg& item) {
        if (item.kind != Arg::Kind::Constant || !item.constant.is(vm::Kind::Int)) unsupported("a dim list of " + node.name + " is not constant");
        out.push_back(item.constant.asInt());
    };
    if (a->kind == Arg::Kind::List || a->kind == Arg::Kind::Tuple) {
        for (const Arg& item : a->items) take(item);
        return out;
    }
    if (a->kind == Arg::Kind::Constant && (a->constant.is(vm::Kind::Tuple) || a->constant.is(vm::Kind::List))) {
        for (const vm::Value& v : a->constant.is(vm::Kind::Tuple) ? a->constant.as<vm::TupleObject>().items : a->constant.as<vm::ListObject>().items)
            take(GraphBuilder::constant(v));
        return out;
    }
    unsupported("a dim argument of " + node.name + " is not constant");
}

std::string GradContext::text(size_t position, const std::string& name, const std::string& fallback) const {
    const Arg* a = arg(position, name);
    if (!a || (a->kind == Arg::Kind::Constant && a->constant.isNone())) return fallback;
    if (a->kind != Arg::Kind::Constant || !a->constant.is(vm::Kind::Str)) unsupported("argument " + name + " of " + node.name + " is not a constant string");
    return a->constant.str();
}

int64_t GradContext::rank() const { return exampleTensor(node) ? exampleTensor(node)->dim() : 0; }

void GradContext::send(Node* input, Node* gradient) {
    const tensor::Tensor* in = exampleTensor(*input);
    const tensor::Tensor* g = exampleTensor(*gradient);
    if (!in || !g) unsupported("a gradient of " + node.name + " is not a tensor");
    const int64_t lead = g->dim() - in->dim();
    if (lead < 0) unsupported("the gradient of " + input->name + " has fewer dimensions than it");
    if (lead > 0) gradient = b.method("sum", gradient, {GraphBuilder::ints(range(0, lead))});
    std::vector<int64_t> broadcast;
    for (int64_t d = 0; d < in->dim(); ++d)
        if (in->sizes()[static_cast<size_t>(d)] == 1 && g->sizes()[static_cast<size_t>(d + lead)] != 1) broadcast.push_back(d);
    if (!broadcast.empty()) gradient = b.method("sum", gradient, {GraphBuilder::ints(broadcast)}, {{"keepdim", GraphBuilder::constant(vm::Value(true))}});
    if (exampleTensor(*gradient)->dtype() != in->dtype())
        gradient = b.method("to", gradient, {GraphBuilder::constant(vm::Value(std::make_shared<vm::DTypeObject>(in->dtype())))});
    accumulate_(input, gradient);
}

void GradContext::unsupported(const std::string& why) const {
    throw AotUnsupported(fmt::format("{} ({}): {}", node.name, node.target, why));
}

const GradRule* findGradRule(std::string_view op) {
    auto found = rules().find(op);
    return found == rules().end() ? nullptr : &found->second;
}

bool hasSeveralDifferentiableResults(std::string_view op) {
    return op == "split" || op == "chunk" || op == "unbind" || op == "_flash_attention_forward" ||
           op == "native_layer_norm";
}

Node* flashAttentionWithStatistics(GraphBuilder& b, const Node& node, const std::map<const Node*, Node*>& remap, std::vector<Node*>& added) {
    if (inductor::lowering::nodeOpName(node) != "scaled_dot_product_attention") return nullptr;
    auto constantOr = [&](size_t position, const std::string& name, const vm::Value& absent) -> std::optional<vm::Value> {
        const Arg* a = inductor::lowering::findArg(node, position, name);
        if (!a) return absent;
        if (a->kind != Arg::Kind::Constant) return std::nullopt;
        return a->constant;
    };
    Node* operands[3] = {nullptr, nullptr, nullptr};
    const char* names[3] = {"query", "key", "value"};
    for (size_t i = 0; i < 3; ++i) {
        const Arg* a = inductor::lowering::findArg(node, i, names[i]);
        if (!a || a->kind != Arg::Kind::NodeRef || !remap.contains(a->node)) return nullptr;
        operands[i] = remap.at(a->node);
        if (!exampleTensor(*operands[i])) return nullptr;
        // Static shapes only: the logsumexp's sizes would need the operands' symbols.
        for (const std::string& symbol : operands[i]->dimSymbols)
            if (!symbol.empty()) return nullptr;
    }
    const auto mask = constantOr(3, "attn_mask", vm::Value()), dropout = constantOr(4, "dropout_p", vm::Value(0.0)),
               causal = constantOr(5, "is_causal", vm::Value(false)), scale = constantOr(6, "scale", vm::Value()),
               gqa = constantOr(7, "enable_gqa", vm::Value(false));
    if (!mask || !mask->isNone() || !dropout || !dropout->isNumber() || dropout->asFloat() != 0.0 || !causal || !causal->is(vm::Kind::Bool) ||
        !scale || !(scale->isNone() || scale->isNumber()) || !gqa || !gqa->is(vm::Kind::Bool) || gqa->asBool())
        return nullptr;
    if (!tensor::cudaops::flashAttentionBackwardSupported(*exampleTensor(*operands[0]), *exampleTensor(*operands[1]), *exampleTensor(*operands[2])))
        return nullptr;
    const double factor = scale->isNone() ? 1.0 / std::sqrt(static_cast<double>(exampleTensor(*operands[0])->sizes().back())) : scale->asFloat();
    Node* forward = b.torchFunction("_flash_attention_forward", {ref(operands[0]), ref(operands[1]), ref(operands[2]),
                                                                 GraphBuilder::constant(vm::Value(causal->asBool())), c(factor)});
    Node* out = b.getitem(forward, 0);
    Node* logsumexp = b.getitem(forward, 1);
    for (Node* n : {forward, out, logsumexp}) {
        n->file = node.file;
        n->line = node.line;
        n->function = node.function;
        n->code = node.code;
        added.push_back(n);
    }
    return out;
}

bool passesNoGradient(std::string_view op) {
    static const std::set<std::string, std::less<>> none = {
        "detach", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "new_zeros", "new_ones",
        "new_full", "new_empty", "argmax", "argmin", "size", "dim", "numel",
        "_set_grad_enabled", "requires_grad_", "detach_"};
    return none.contains(op);
}

}  // namespace eng::aot
