// Partitioning the joint graph. Forward values are vertices split in two (in -> out, capacity = bytes); primals
// and ops that must not be recomputed (matmuls, extern ops, reductions that shrink their input more than 4x, as
// Inductor's ban_recomputation) hang off the source, values the backward reads go to the sink. The cut edges are
// the saved values; everything between them and the backward's reads is recomputed in the backward graph.
#include "aot/partition.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "aot/min_cut.h"
#include "inductor/lowering_context.h"
#include "inductor/lowering_registry.h"
#include "tensor/conversion.h"

namespace eng::aot {

using fx::Arg;
using fx::Node;

namespace {

void forEachNodeArg(const Node& node, const std::function<void(Node*)>& visit) {
    std::function<void(const Arg&)> walk = [&](const Arg& a) {
        if (a.kind == Arg::Kind::NodeRef) visit(a.node);
        for (const Arg& item : a.items) walk(item);
    };
    for (const Arg& a : node.args) walk(a);
    for (const auto& kw : node.kwargs) walk(kw.second);
}

int64_t bytesOf(const Node& node) {
    const tensor::Tensor* t = exampleTensor(node);
    if (t) return std::max<int64_t>(1, t->numel() * static_cast<int64_t>(tensor::itemSize(t->dtype())));
    return node.example.isNumber() ? 1 : FlowNetwork::kInfinite;
}

/// Why `node` may not be recomputed in the backward (empty when it may).
std::string recomputeBan(const Node& node) {
    if (node.op == fx::NodeOp::Placeholder) return "a graph input";
    if (node.op == fx::NodeOp::GetAttr) return "";
    const std::string op = inductor::lowering::nodeOpName(node);
    static const std::set<std::string, std::less<>> computeIntensive = {"matmul", "mm", "bmm", "linear", "addmm", "baddbmm",
                                                                        "scaled_dot_product_attention", "_flash_attention_forward",
                                                                        "__matmul__"};
    if (computeIntensive.contains(op)) return op + " is compute-intensive";
    // Its statistics are row reductions (Inductor bans recomputing var_mean): the backward reads them saved.
    if (op == "native_layer_norm") return op + " reduces its rows to their statistics";
    const auto* lowering = inductor::lowering::LoweringRegistry::instance().find(op);
    if (!lowering) return op + " runs as an extern kernel";
    if (lowering->family == inductor::lowering::OpFamily::Reduction) {
        int64_t inputBytes = 0;
        forEachNodeArg(node, [&](Node* input) {
            if (exampleTensor(*input)) inputBytes += bytesOf(*input);
        });
        if (bytesOf(node) * 4 < inputBytes) return op + " reduces its input more than 4x";
    }
    return "";
}

/// Whether an op's result can fuse into the kernel that reads it (Inductor's op_types.is_fusible): it lowers to
/// generated code, pointwise, a reduction or a view; matmuls and extern kernels read a buffer.
bool fusible(const Node& node) {
    if (node.op != fx::NodeOp::CallFunction && node.op != fx::NodeOp::CallMethod) return false;
    const auto* lowering = inductor::lowering::LoweringRegistry::instance().find(inductor::lowering::nodeOpName(node));
    return lowering && lowering->family != inductor::lowering::OpFamily::MatrixProduct;
}

bool isView(const Node& node) {
    if (node.op != fx::NodeOp::CallFunction && node.op != fx::NodeOp::CallMethod) return false;
    const auto* lowering = inductor::lowering::LoweringRegistry::instance().find(inductor::lowering::nodeOpName(node));
    return lowering && lowering->family == inductor::lowering::OpFamily::View;
}

/// Whether an op returned one of its inputs (`contiguous` of a contiguous tensor, `to` its own dtype): it computed
/// nothing, so it is a view of that input here.
bool returnsItsInput(const Node& node) {
    const tensor::Tensor* self = exampleTensor(node);
    if (!self) return false;
    bool aliases = false;
    forEachNodeArg(node, [&](Node* input) {
        const tensor::Tensor* t = exampleTensor(*input);
        aliases = aliases || (t && t->storage() && t->sharesStorageWith(*self));
    });
    return aliases;
}

/// Inductor's is_materialized_backwards: a forward value that a backward node reads as a whole buffer (a matmul's
/// or an extern kernel's operand, directly or through views) would be computed into memory in the backward anyway,
/// so recomputing it is never free: it is saved instead (GPT-2's GELU output, which c_proj's weight gradient reads,
/// was recomputed by a kernel of its own in every layer's backward). The backward node named, or empty.
std::string materializedInBackward(const Node& node, const std::map<const Node*, std::vector<const Node*>>& users,
                                   const std::set<const Node*>& backwardNodes) {
    // An alias computes nothing to save, and a saved alias would make the forward's outputs share a buffer: the walk
    // below passes through aliases to the value they read, which is saved instead.
    if (isView(node) || !exampleTensor(node) || returnsItsInput(node)) return "";
    std::vector<const Node*> current{&node};
    std::set<const Node*> seen{&node};
    while (!current.empty()) {
        const Node* cur = current.back();
        current.pop_back();
        auto found = users.find(cur);
        if (found == users.end()) continue;
        for (const Node* user : found->second) {
            const bool intoCat = inductor::lowering::nodeOpName(*user) == "cat";
            if (backwardNodes.contains(user) && !intoCat && !(fusible(*cur) && fusible(*user))) return user->name;
            if ((isView(*user) || returnsItsInput(*user)) && seen.insert(user).second) current.push_back(user);
        }
    }
    return "";
}

}  // namespace

std::string Partition::report() const {
    std::string text = fmt::format("# AOT partition: {} saved values, {} bytes (saving every value the backward reads: {} bytes)\n",
                                   saved.size(), savedBytes, naiveSavedBytes);
    for (const SavedValue& s : saved) text += fmt::format("#   saved {} ({} bytes): {}\n", s.name, s.bytes, s.reason);
    if (!recomputed.empty()) text += fmt::format("#   recomputed in the backward: {}\n", fmt::join(recomputed, ", "));
    return text;
}

Partition partitionJointGraph(vm::Interpreter& vm, const JointGraph& joint) {
    const fx::Graph& g = *joint.graph;
    // The forward side: primals and the functionalised captured calls.
    std::vector<Node*> forwardSide(joint.primals.begin(), joint.primals.end());
    forwardSide.insert(forwardSide.end(), joint.forwardNodes.begin(), joint.forwardNodes.end());
    std::map<const Node*, int> vertex;
    for (size_t i = 0; i < forwardSide.size(); ++i) vertex[forwardSide[i]] = static_cast<int>(i);
    const std::set<const Node*> tangents(joint.tangents.begin(), joint.tangents.end());

    // Backward calls that reach a gradient, and the forward values they read.
    std::set<const Node*> backwardNeeded;
    std::vector<const Node*> stack;
    for (const Arg& a : joint.gradients)
        if (a.kind == Arg::Kind::NodeRef) stack.push_back(a.node);
    std::map<const Node*, std::vector<std::string>> readers;  // forward value -> backward nodes that read it
    while (!stack.empty()) {
        const Node* n = stack.back();
        stack.pop_back();
        if (vertex.contains(n) || tangents.contains(n) || !backwardNeeded.insert(n).second) continue;
        forEachNodeArg(*n, [&](Node* input) {
            if (vertex.contains(input)) readers[input].push_back(n->name);
            stack.push_back(input);
        });
    }

    // Every node's users, to follow views from a forward value to the backward nodes that read it.
    std::map<const Node*, std::vector<const Node*>> nodeUsers;
    for (const auto& owned : g.nodes())
        forEachNodeArg(*owned, [&](Node* input) { nodeUsers[input].push_back(owned.get()); });
    // CWB_PARTITION_SAVE_MATERIALIZED=0 recomputes such values as before (to compare the two in one run).
    static const bool saveMaterialized = [] {
        const char* value = std::getenv("CWB_PARTITION_SAVE_MATERIALIZED");
        return value == nullptr || std::string_view(value) != "0";
    }();

    const int source = static_cast<int>(2 * forwardSide.size());
    const int sink = source + 1;
    FlowNetwork network(sink + 1);
    std::map<const Node*, std::string> bans;
    for (size_t i = 0; i < forwardSide.size(); ++i) {
        const Node& node = *forwardSide[i];
        const int in = static_cast<int>(2 * i), out = in + 1;
        network.addEdge(in, out, bytesOf(node));
        std::string ban = recomputeBan(node);
        if (ban.empty() && saveMaterialized)
            if (std::string reader = materializedInBackward(node, nodeUsers, backwardNeeded); !reader.empty())
                ban = fmt::format("the backward's {} reads it as a buffer", reader);
        if (!ban.empty()) {
            network.addEdge(source, in, FlowNetwork::kInfinite);
            bans[&node] = std::move(ban);
        }
        forEachNodeArg(node, [&](Node* input) {
            if (auto found = vertex.find(input); found != vertex.end()) network.addEdge(2 * found->second + 1, in, FlowNetwork::kInfinite);
        });
        if (readers.contains(&node)) network.addEdge(out, sink, FlowNetwork::kInfinite);
    }
    const std::vector<bool> sourceSide = network.minCut(source, sink);

    Partition p;
    std::set<const Node*> saved;
    for (size_t i = 0; i < forwardSide.size(); ++i) {
        const Node& node = *forwardSide[i];
        if (readers.contains(&node)) p.naiveSavedBytes += exampleTensor(node) ? bytesOf(node) : 0;
        if (!sourceSide[2 * i] || sourceSide[2 * i + 1]) continue;
        if (bytesOf(node) >= FlowNetwork::kInfinite) throw AotUnsupported(fmt::format("the backward needs {}, which cannot be saved", node.name));
        saved.insert(&node);
    }
    for (const auto& [index, value] : joint.inputMutations)
        if (saved.contains(joint.primals[static_cast<size_t>(index)]))
            throw AotUnsupported(fmt::format("the input {} is mutated by the graph and read by the backward", joint.primals[static_cast<size_t>(index)]->name));
    // Recomputed: forward values between the saved ones and the backward's reads.
    std::set<const Node*> recompute;
    for (const auto& [value, users] : readers) stack.push_back(value);
    while (!stack.empty()) {
        const Node* n = stack.back();
        stack.pop_back();
        if (saved.contains(n) || !recompute.insert(n).second) continue;
        if (n->op == fx::NodeOp::Placeholder) throw AotUnsupported("partition: the backward would recompute the input " + n->name);
        forEachNodeArg(*n, [&](Node* input) { stack.push_back(input); });
    }

    // The forward graph: primals -> user outputs, mutated inputs' final values, saved values.
    p.forward = std::make_shared<fx::Graph>();
    p.forward->symbols = g.symbols;
    GraphBuilder fb(vm, *p.forward);
    std::map<const Node*, Node*> fmap;
    for (Node* primal : joint.primals) fmap[primal] = fb.placeholder(primal->name, *primal, primal->example);
    for (Node* node : joint.forwardNodes) fmap[node] = fb.copy(*node, fmap);
    std::function<Arg(const Arg&, const std::map<const Node*, Node*>&)> mapArg = [&](const Arg& a, const std::map<const Node*, Node*>& m) {
        Arg mapped = a;
        if (a.kind == Arg::Kind::NodeRef) mapped.node = m.at(a.node);
        for (Arg& item : mapped.items) item = mapArg(item, m);
        return mapped;
    };
    std::vector<Arg> forwardOutputs;
    for (const Arg& a : joint.forwardOutputs) forwardOutputs.push_back(mapArg(a, fmap));
    p.userOutputs = forwardOutputs.size();
    for (const auto& [index, value] : joint.inputMutations) forwardOutputs.push_back(GraphBuilder::ref(fmap.at(value)));
    p.mutationOutputs = joint.inputMutations.size();
    std::vector<const Node*> savedInOrder;
    for (const Node* n : forwardSide)
        if (saved.contains(n)) savedInOrder.push_back(n);
    for (const Node* n : savedInOrder) {
        forwardOutputs.push_back(GraphBuilder::ref(fmap.at(n)));
        SavedValue s;
        s.name = n->name;
        s.bytes = exampleTensor(*n) ? bytesOf(*n) : 0;
        p.savedBytes += s.bytes;
        if (auto users = readers.find(n); users != readers.end())
            s.reason = fmt::format("read by the backward's {}", fmt::join(users->second.begin(), users->second.begin() + std::min<size_t>(3, users->second.size()), ", "));
        else
            s.reason = "input of values the backward recomputes";
        if (auto ban = bans.find(n); ban != bans.end()) s.reason += fmt::format(" (not recomputed: {})", ban->second);
        p.saved.push_back(std::move(s));
    }
    fb.output(std::move(forwardOutputs));

    // The backward graph: saved values and tangents -> gradients.
    p.backward = std::make_shared<fx::Graph>();
    p.backward->symbols = g.symbols;
    GraphBuilder bb(vm, *p.backward);
    std::map<const Node*, Node*> bmap;
    // The backward takes its tensors contiguous (the run time makes them so), whatever layout tracing saw.
    auto contiguousExample = [](const Node& n) {
        const tensor::Tensor* t = exampleTensor(n);
        return t ? vm::makeTensor(tensor::contiguous(tensor::clone(*t))) : n.example;
    };
    for (const Node* n : savedInOrder) {
        bmap[n] = bb.placeholder(n->name, *n, contiguousExample(*n));
        if (exampleTensor(*n)) bmap[n]->typeName = "torch.Tensor";
    }
    for (const Node* t : joint.tangents) bmap[t] = bb.placeholder(t->name, *t, contiguousExample(*t));
    for (const auto& owned : g.nodes()) {
        const Node* n = owned.get();
        if (n->op == fx::NodeOp::Placeholder || n->op == fx::NodeOp::Output || saved.contains(n)) continue;
        if (!recompute.contains(n) && !backwardNeeded.contains(n)) continue;
        bmap[n] = bb.copy(*n, bmap);
        if (recompute.contains(n)) p.recomputed.push_back(n->name);
    }
    std::vector<Arg> gradients;
    for (const Arg& a : joint.gradients) gradients.push_back(mapArg(a, bmap));
    bb.output(std::move(gradients));
    for (auto* graph : {p.forward.get(), p.backward.get()})
        for (auto it = graph->symbols.begin(); it != graph->symbols.end();) {
            bool own = false;
            for (const auto& node : graph->nodes()) own = own || node.get() == it->second;
            it = own ? std::next(it) : graph->symbols.erase(it);
        }
    return p;
}

}  // namespace eng::aot
