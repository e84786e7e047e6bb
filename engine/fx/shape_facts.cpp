// Which dimensions of a call's tensor result are known exactly from its arguments: a static size or one symbol of
// the shape environment. Dynamo's ShapeEnv carries every size as an expression; cwb knows the sizes that an op
// passes through unchanged (pointwise ops, views with explicit sizes, transposes, linear, matmul, reductions),
// and reads the others in the graph, so a size read by the code is never a stale number.
#include <algorithm>
#include <set>

#include "fx/graph_ir.h"
#include "ops/in_place.h"

namespace eng::fx {

namespace {

struct DimFact {
    bool exact = false;
    std::string symbol;  // "" for a static size
    int64_t size = 0;
};

DimFact unknown() { return DimFact{}; }

bool isTensorNode(const Node* n) { return n && n->example.is(vm::Kind::Tensor); }

int64_t rankOf(const Node* n) { return static_cast<int64_t>(n->example.tensor().dim()); }

DimFact dimOf(const Node* n, int64_t d) {
    const int64_t size = n->example.tensor().size(d);
    const auto index = static_cast<size_t>(d);
    const std::string symbol = index < n->dimSymbols.size() ? n->dimSymbols[index] : "";
    // Inputs and constants are guarded by TENSOR_MATCH: their dimensions are static or their own symbol.
    if (n->op == NodeOp::Placeholder || n->op == NodeOp::GetAttr) return DimFact{true, symbol, size};
    if (index < n->dimsExact.size() && n->dimsExact[index]) return DimFact{true, symbol, size};
    return unknown();
}

/// An int argument as a size: a constant, or a symbol's own placeholder (an int argument or a size of an input).
DimFact intArg(const Arg& a) {
    if (a.kind == Arg::Kind::Constant && a.constant.is(vm::Kind::Int)) return DimFact{true, "", a.constant.asInt()};
    if (a.kind == Arg::Kind::NodeRef && a.node->op == NodeOp::Placeholder && a.node->typeName == "torch.SymInt" && a.node->example.is(vm::Kind::Int))
        return DimFact{true, a.node->target, a.node->example.asInt()};
    return unknown();
}

const Arg* argument(const Node& node, size_t position, const std::string& keyword) {
    if (position < node.args.size()) return &node.args[position];
    for (const auto& [key, value] : node.kwargs)
        if (key == keyword) return &value;
    return nullptr;
}

/// Broadcasting: an output dimension is the symbol of a right-aligned input dimension of its size, or static when
/// every aligned input dimension is static. Exact only when every aligned input dimension is.
std::vector<DimFact> broadcastFacts(const std::vector<std::vector<DimFact>>& inputs, const std::vector<int64_t>& sizes) {
    const size_t rank = sizes.size();
    std::vector<DimFact> out(rank);
    for (size_t d = 0; d < rank; ++d) {
        DimFact fact{true, "", sizes[d]};
        for (const auto& in : inputs) {
            if (in.size() + d < rank) continue;
            const DimFact& f = in[d + in.size() - rank];
            if (!f.exact) {
                fact = unknown();
                break;
            }
            if (!f.symbol.empty() && f.size == sizes[d] && fact.symbol.empty()) fact.symbol = f.symbol;
        }
        out[d] = fact;
    }
    return out;
}

std::vector<DimFact> factsOf(const Node* n) {
    std::vector<DimFact> facts;
    for (int64_t d = 0; d < rankOf(n); ++d) facts.push_back(dimOf(n, d));
    return facts;
}

std::string opName(const Node& node) {
    std::string name = node.target;
    for (const char* prefix : {"torch.nn.functional.", "torch._C._nn.", "torch._C._VariableFunctions.", "torch.", "operator."})
        if (name.rfind(prefix, 0) == 0) {
            name = name.substr(std::string(prefix).size());
            break;
        }
    if (ops::hasInPlaceSuffix(name)) name.pop_back();
    if (name.rfind("__", 0) == 0 && name.size() > 4) name = name.substr(2, name.size() - 4);     // __add__
    return name;
}

/// Same-shape ops whose other tensor arguments do not broadcast into the result (`x.to(y)`, `x.type_as(y)`,
/// `layer_norm(x, shape, weight)`): the result has self's sizes.
bool selfShapeOp(const std::string& name) {
    static const std::set<std::string> names = {"to", "type", "type_as", "clone", "contiguous", "detach", "dropout", "softmax",
                                                "log_softmax", "layer_norm", "rms_norm", "zeros_like", "ones_like", "empty_like",
                                                "full_like", "rand_like", "randn_like", "copy", "fill", "zero", "normal", "uniform",
                                                "requires_grad", "float", "double", "half", "bfloat16", "long", "int", "bool", "short"};
    return names.contains(name);
}

bool sameShapeOp(const std::string& name) {
    // The ops that keep self's shape are same-shape ops too: they are listed once, in selfShapeOp.
    static const std::set<std::string> names = {
#define CWB_UNARY_MATH(Name, function, integers, llvm) #function,
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, ...) #function,
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#define CWB_ELEMENTWISE_ALIAS(alias, function, spelling) #alias,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_ALIAS
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
        "relu6", "tanh", "hardtanh", "leaky_relu", "elu", "selu", "hardswish", "hardsigmoid", "logsigmoid", "sgn",
        "clamp", "clip", "clamp_min", "clamp_max", "where", "masked_fill", "not_", "pos", "lerp", "addcmul",
        "addcdiv", "nan_to_num", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "hypot"};
    return names.contains(name) || selfShapeOp(name);
}

bool reductionOp(const std::string& name) {
    static const std::set<std::string> names = {"sum", "mean", "amax", "amin", "prod", "var", "std", "logsumexp", "norm", "all", "any",
                                                "argmax", "argmin", "count_nonzero", "nansum", "nanmean"};
    return names.contains(name);
}

/// Ops whose result size depends on the data: never static, whatever their inputs.
bool dataDependentOp(const std::string& name) {
    static const std::set<std::string> names = {"nonzero", "masked_select", "unique", "unique_consecutive", "repeat_interleave",
                                                "bincount", "argwhere", "nonzero_static", "item", "tolist"};
    return names.contains(name);
}

std::vector<const Node*> tensorInputs(const Node& node) {
    std::vector<const Node*> out;
    std::vector<const Arg*> pending;
    for (const Arg& a : node.args) pending.push_back(&a);
    for (const auto& kw : node.kwargs) pending.push_back(&kw.second);
    while (!pending.empty()) {
        const Arg* a = pending.back();
        pending.pop_back();
        if (a->kind == Arg::Kind::NodeRef) {
            out.push_back(a->node);
            continue;
        }
        for (const Arg& item : a->items) pending.push_back(&item);
    }
    return out;
}

/// view/reshape/expand sizes: the arguments after self, or one list of them.
std::vector<const Arg*> sizeArgs(const Node& node, size_t first) {
    std::vector<const Arg*> out;
    if (node.args.size() == first + 1 && (node.args[first].kind == Arg::Kind::List || node.args[first].kind == Arg::Kind::Tuple)) {
        for (const Arg& a : node.args[first].items) out.push_back(&a);
        return out;
    }
    for (size_t i = first; i < node.args.size(); ++i) out.push_back(&node.args[i]);
    return out;
}

int64_t normalizedDim(const Arg* a, int64_t rank) {
    if (!a || a->kind != Arg::Kind::Constant || !a->constant.is(vm::Kind::Int)) return -1;
    int64_t d = a->constant.asInt();
    if (d < 0) d += rank;
    return d >= 0 && d < rank ? d : -1;
}

std::optional<std::vector<DimFact>> opFacts(const Node& node, const std::string& name, const std::vector<int64_t>& sizes) {
    const size_t rank = sizes.size();
    const Node* self = !node.args.empty() && node.args[0].kind == Arg::Kind::NodeRef && isTensorNode(node.args[0].node) ? node.args[0].node : nullptr;
    const bool matmul = name == "matmul" || name == "imatmul" || name == "mm" || name == "bmm";
    if (self && selfShapeOp(name) && rankOf(self) == static_cast<int64_t>(rank)) return factsOf(self);
    if (!matmul && (node.callKind == CallKind::Binary || node.callKind == CallKind::Compare || node.callKind == CallKind::Unary || sameShapeOp(name))) {
        std::vector<std::vector<DimFact>> inputs;
        for (const Node* in : tensorInputs(node))
            if (isTensorNode(in)) inputs.push_back(factsOf(in));
        return broadcastFacts(inputs, sizes);
    }
    if (!self) return std::nullopt;
    const std::vector<DimFact> in = factsOf(self);
    if (matmul) {
        const Node* other = node.args.size() > 1 && node.args[1].kind == Arg::Kind::NodeRef && isTensorNode(node.args[1].node) ? node.args[1].node : nullptr;
        if (!other || in.size() < 2 || rankOf(other) < 2 || rank < 2) return std::nullopt;
        std::vector<DimFact> b = factsOf(other);
        std::vector<int64_t> batchSizes(sizes.begin(), sizes.end() - 2);
        std::vector<DimFact> out = broadcastFacts({std::vector<DimFact>(in.begin(), in.end() - 2), std::vector<DimFact>(b.begin(), b.end() - 2)}, batchSizes);
        out.push_back(in[in.size() - 2]);
        out.push_back(b.back());
        return out;
    }
    if (name == "linear") {
        const Node* weight = node.args.size() > 1 && node.args[1].kind == Arg::Kind::NodeRef ? node.args[1].node : nullptr;
        if (!weight || !isTensorNode(weight) || rankOf(weight) != 2 || in.empty()) return std::nullopt;
        std::vector<DimFact> out(in.begin(), in.end() - 1);
        out.push_back(dimOf(weight, 0));
        return out;
    }
    if (name == "embedding") {
        const Node* weight = node.args.size() > 1 && node.args[1].kind == Arg::Kind::NodeRef ? node.args[1].node : nullptr;
        if (!weight || !isTensorNode(weight) || rankOf(weight) != 2) return std::nullopt;
        std::vector<DimFact> out = in;
        out.push_back(dimOf(weight, 1));
        return out;
    }
    if (name == "view" || name == "reshape") {
        std::vector<const Arg*> args = sizeArgs(node, 1);
        if (args.size() != rank) return std::nullopt;
        std::vector<DimFact> out;
        bool allStatic = std::all_of(in.begin(), in.end(), [](const DimFact& f) { return f.exact && f.symbol.empty(); });
        for (size_t d = 0; d < rank; ++d) {
            DimFact f = intArg(*args[d]);
            if (f.exact && f.symbol.empty() && f.size == -1) f = allStatic ? DimFact{true, "", sizes[d]} : unknown();
            out.push_back(f);
        }
        // -1 among symbolic sizes is an expression of them; the others are exact.
        return out;
    }
    if (name == "expand") {
        std::vector<const Arg*> args = sizeArgs(node, 1);
        if (args.size() != rank || rank < in.size()) return std::nullopt;
        std::vector<DimFact> out;
        for (size_t d = 0; d < rank; ++d) {
            DimFact f = intArg(*args[d]);
            if (f.exact && f.symbol.empty() && f.size == -1) f = d + in.size() >= rank ? in[d + in.size() - rank] : unknown();
            out.push_back(f);
        }
        return out;
    }
    if (name == "transpose" || name == "swapaxes" || name == "swapdims") {
        int64_t a = normalizedDim(argument(node, 1, "dim0"), static_cast<int64_t>(in.size()));
        int64_t b = normalizedDim(argument(node, 2, "dim1"), static_cast<int64_t>(in.size()));
        if (a < 0 || b < 0) return std::nullopt;
        std::vector<DimFact> out = in;
        std::swap(out[a], out[b]);
        return out;
    }
    if ((name == "t" || name == "mT") && in.size() >= 2) {
        std::vector<DimFact> out = in;
        std::swap(out[in.size() - 1], out[in.size() - 2]);
        return out;
    }
    if (name == "permute") {
        std::vector<const Arg*> args = sizeArgs(node, 1);
        if (args.size() != in.size() || rank != in.size()) return std::nullopt;
        std::vector<DimFact> out;
        for (const Arg* a : args) {
            int64_t d = normalizedDim(a, static_cast<int64_t>(in.size()));
            if (d < 0) return std::nullopt;
            out.push_back(in[d]);
        }
        return out;
    }
    if (name == "unsqueeze" && rank == in.size() + 1) {
        int64_t d = normalizedDim(argument(node, 1, "dim"), static_cast<int64_t>(rank));
        if (d < 0) return std::nullopt;
        std::vector<DimFact> out = in;
        out.insert(out.begin() + d, DimFact{true, "", 1});
        return out;
    }
    if (reductionOp(name)) {
        const Arg* dimArg = argument(node, 1, "dim");
        if (!dimArg || (dimArg->kind == Arg::Kind::Constant && dimArg->constant.isNone())) return rank == 0 ? std::optional(std::vector<DimFact>{}) : std::nullopt;
        std::vector<const Arg*> dims;
        if (dimArg->kind == Arg::Kind::List || dimArg->kind == Arg::Kind::Tuple)
            for (const Arg& a : dimArg->items) dims.push_back(&a);
        else dims.push_back(dimArg);
        std::set<int64_t> reduced;
        for (const Arg* a : dims) {
            int64_t d = normalizedDim(a, static_cast<int64_t>(in.size()));
            if (d < 0) return std::nullopt;
            reduced.insert(d);
        }
        std::vector<DimFact> out;
        const bool keepdim = rank == in.size();
        for (size_t d = 0; d < in.size(); ++d) {
            if (!reduced.contains(static_cast<int64_t>(d))) out.push_back(in[d]);
            else if (keepdim) out.push_back(DimFact{true, "", 1});
        }
        if (out.size() != rank) return std::nullopt;
        return out;
    }
    return std::nullopt;
}

}  // namespace

void inferExactDims(Node& node) {
    node.dimsExact.clear();
    if (!node.example.is(vm::Kind::Tensor)) return;
    const auto& tensorSizes = node.example.tensor().sizes();
    std::vector<int64_t> sizes(tensorSizes.begin(), tensorSizes.end());
    const std::string name = opName(node);
    std::optional<std::vector<DimFact>> facts;
    if (!dataDependentOp(name)) facts = opFacts(node, name, sizes);
    if (!facts && !dataDependentOp(name)) {
        // Any other op of static inputs and constant arguments has a static result (the inputs are guarded).
        bool allStatic = true;
        for (const Node* in : tensorInputs(node)) {
            if (!isTensorNode(in)) {
                allStatic = false;
                break;
            }
            for (int64_t d = 0; d < rankOf(in) && allStatic; ++d) {
                DimFact f = dimOf(in, d);
                allStatic = f.exact && f.symbol.empty();
            }
        }
        if (allStatic) facts = std::vector<DimFact>(sizes.size(), DimFact{true, "", 0});
    }
    node.dimsExact.assign(sizes.size(), false);
    if (!facts || facts->size() != sizes.size()) return;
    for (size_t d = 0; d < sizes.size(); ++d) {
        const DimFact& f = (*facts)[d];
        if (!f.exact) continue;
        // A symbol is the size only where the sizes agree (an exact fact from an argument always does).
        if (!f.symbol.empty() && f.size != sizes[d]) continue;
        node.dimsExact[d] = true;
        if (d < node.dimSymbols.size()) node.dimSymbols[d] = f.symbol;
    }
}

}  // namespace eng::fx
