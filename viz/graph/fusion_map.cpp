// Node -> kernel matching for the graph and fusion views (see fusion_map.h).
#include "graph/fusion_map.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "graph/provenance.h"
#include "parse/output_code.h"
#include "parse/text_scan.h"

namespace viz {
namespace {

bool usesSourceNodes(traces::GraphKind kind) {
    return kind == traces::GraphKind::Dynamo || kind == traces::GraphKind::PreGrad;
}

/// Roles whose module computes this graph's nodes, best first.
std::vector<CodeRole> preferredRoles(traces::GraphKind kind) {
    switch (kind) {
        case traces::GraphKind::AotBackward: return {CodeRole::Backward};
        case traces::GraphKind::AotInference: return {CodeRole::Inference};
        case traces::GraphKind::AotForward: return {CodeRole::Forward, CodeRole::Inference};
        default: return {CodeRole::Forward, CodeRole::Inference};
    }
}

int roleRank(traces::GraphKind kind, CodeRole role) {
    std::vector<CodeRole> roles = preferredRoles(kind);
    auto it = std::find(roles.begin(), roles.end(), role);
    return it == roles.end() ? static_cast<int>(roles.size()) : static_cast<int>(it - roles.begin());
}

class FusionBuilder {
public:
    FusionBuilder(const GraphModel& model, FusionMap& map) : map_(map) {
        map_.kernelsOfNode.assign(model.nodes.size(), {});
    }

    /// Adds `node` to the kernel (creating the kernel entry on first use).
    void assign(const traces::OutputCode& code, const traces::Kernel& kernel, int node) {
        auto [it, added] = indexOfKernel_.try_emplace(&kernel, static_cast<int>(map_.kernels.size()));
        if (added) {
            FusionKernel entry;
            entry.kernelId = kernel.id;
            entry.outputCodeId = code.id;
            entry.name = kernel.name;
            entry.language = kernel.language;
            entry.role = codeRoleOf(code);
            map_.kernels.push_back(std::move(entry));
        }
        std::vector<int>& kernelsOfNode = map_.kernelsOfNode[static_cast<size_t>(node)];
        if (std::find(kernelsOfNode.begin(), kernelsOfNode.end(), it->second) != kernelsOfNode.end()) return;
        kernelsOfNode.push_back(it->second);
        map_.kernels[static_cast<size_t>(it->second)].nodes.push_back(node);
    }

    bool any() const { return !map_.kernels.empty(); }
    bool has(const traces::Kernel& kernel) const { return indexOfKernel_.contains(&kernel); }
    void markCopiesInputs(const traces::Kernel& kernel) {
        if (auto it = indexOfKernel_.find(&kernel); it != indexOfKernel_.end())
            map_.kernels[static_cast<size_t>(it->second)].copiesInputs = true;
    }

    void sortNodes() {
        for (FusionKernel& kernel : map_.kernels) std::sort(kernel.nodes.begin(), kernel.nodes.end());
    }

private:
    FusionMap& map_;
    std::unordered_map<const traces::Kernel*, int> indexOfKernel_;
};

std::vector<const traces::OutputCode*> byRole(const GraphModel& model, std::vector<const traces::OutputCode*> codes) {
    std::stable_sort(codes.begin(), codes.end(), [&](const traces::OutputCode* a, const traces::OutputCode* b) {
        return roleRank(model.kind, codeRoleOf(*a)) < roleRank(model.kind, codeRoleOf(*b));
    });
    return codes;
}

int namedNodeCount(const GraphModel& model, const traces::OutputCode& code) {
    int count = 0;
    for (const traces::Kernel& kernel : code.kernels)
        for (const std::string& name : kernel.postGradNodes) count += model.findNode(name) >= 0 ? 1 : 0;
    return count;
}

/// The module whose kernels name the most of this graph's nodes; among equals, the one whose role fits.
const traces::OutputCode* bestModule(const GraphModel& model, const std::vector<const traces::OutputCode*>& codes,
                                     int (*score)(const GraphModel&, const traces::OutputCode&)) {
    const traces::OutputCode* best = nullptr;
    int bestScore = 0;
    for (const traces::OutputCode* code : byRole(model, codes)) {
        int value = score(model, *code);
        if (value > bestScore) {
            best = code;
            bestScore = value;
        }
    }
    return best;
}

bool opListed(std::string_view fusedOps, const std::string& opName) {
    if (opName.empty() || fusedOps.empty()) return false;
    std::string needle = "_" + opName + "_";
    return fusedOps.find(needle) != std::string_view::npos;
}

/// Kernel-name guess: each kernel, in launch order, takes the first unclaimed node of each op its name lists,
/// then grows over unclaimed neighbours whose op it also lists (a chain of muls fused into one kernel).
void guessFromKernelNames(const GraphModel& model, const traces::OutputCode& code, FusionBuilder& builder,
                          std::vector<bool>& claimed) {
    std::vector<std::vector<int>> users = model.usersOfNodes();
    std::vector<std::vector<int>> inputs(model.nodes.size());
    for (const GraphModelEdge& edge : model.edges) inputs[static_cast<size_t>(edge.to)].push_back(edge.from);
    for (const traces::Kernel& kernel : code.kernels) {
        std::string ops = fusedOpsOf(kernel.name);
        if (ops.empty()) continue;
        std::vector<int> members;
        for (const GraphModelNode& node : model.nodes) {
            if (claimed[static_cast<size_t>(node.index)] || !opListed(ops, node.opName)) continue;
            bool opAlreadyTaken = std::any_of(members.begin(), members.end(), [&](int member) {
                return model.nodes[static_cast<size_t>(member)].opName == node.opName;
            });
            if (opAlreadyTaken) continue;
            members.push_back(node.index);
            claimed[static_cast<size_t>(node.index)] = true;
        }
        for (size_t next = 0; next < members.size(); ++next) {
            size_t member = static_cast<size_t>(members[next]);
            for (const std::vector<int>* neighbours : {&users[member], &inputs[member]}) {
                for (int neighbour : *neighbours) {
                    const GraphModelNode& node = model.nodes[static_cast<size_t>(neighbour)];
                    if (claimed[static_cast<size_t>(neighbour)] || !opListed(ops, node.opName)) continue;
                    claimed[static_cast<size_t>(neighbour)] = true;
                    members.push_back(neighbour);
                }
            }
        }
        for (int member : members) builder.assign(code, kernel, member);
    }
}

/// Dynamo nodes whose value an extern call (an aten op such as attention or mm, not a generated kernel) produces:
/// the last node its Source Nodes list (they are topologically sorted), when no later call lists that node again.
/// A generated kernel that lists such a node before it only prepared one of its inputs: GPT-2's causal-mask
/// kernel lists the attention node, because the mask's expand comes from sdpa's decomposition, while the
/// attention itself runs in `aten._scaled_dot_product_cudnn_attention`.
std::unordered_set<std::string> externComputedNodes(const traces::OutputCode& code) {
    std::unordered_map<std::string, const traces::AnnotatedCall*> lastCall;
    std::vector<traces::AnnotatedCall> calls = traces::annotatedCalls(code.source, code.kernels);
    for (const traces::AnnotatedCall& call : calls)
        for (const std::string& node : call.sourceNodes) lastCall[node] = &call;
    std::unordered_set<std::string> nodes;
    for (const auto& [node, call] : lastCall)
        if (!call->generatedKernel && call->sourceNodes.back() == node) nodes.insert(node);
    return nodes;
}

/// The graph inputs that the calls of `kernel` in the wrapper read: `triton_poi_fused_0.run(primals_1, buf0, 192, 49,
/// stream=stream0)` reads primals_1 (buffers, sizes and keywords name no node).
std::vector<int> inputsReadByCalls(const GraphModel& model, std::string_view source, const std::string& kernel) {
    std::vector<int> inputs;
    std::string call = kernel + ".run(";
    for (size_t pos = source.find(call); pos != std::string_view::npos; pos = source.find(call, pos + call.size())) {
        if (pos > 0 && traces::scan::isIdentChar(source[pos - 1])) continue;
        size_t open = pos + call.size() - 1;
        size_t close = traces::scan::findClosingBracket(source, open);
        if (close == std::string_view::npos) break;
        traces::scan::forEachTopLevelPiece(source.substr(open + 1, close - open - 1), ',', [&](std::string_view arg) {
            int node = traces::scan::isIdentifier(arg) ? model.findNode(arg) : -1;
            if (node >= 0 && model.nodes[static_cast<size_t>(node)].kind == NodeKind::Input &&
                std::find(inputs.begin(), inputs.end(), node) == inputs.end())
                inputs.push_back(node);
        });
    }
    return inputs;
}

int guessedNodeCount(const GraphModel& model, const traces::OutputCode& code) {
    int count = 0;
    for (const traces::Kernel& kernel : code.kernels) {
        std::string ops = fusedOpsOf(kernel.name);
        for (const GraphModelNode& node : model.nodes) count += opListed(ops, node.opName) ? 1 : 0;
    }
    return count;
}

}  // namespace

CodeRole codeRoleOf(const traces::OutputCode& code) {
    std::string_view head = std::string_view(code.source).substr(0, code.source.find('\n'));
    if (!head.starts_with("# AOT ID:")) return CodeRole::Unknown;
    if (head.find("_forward'") != std::string_view::npos) return CodeRole::Forward;
    if (head.find("_backward'") != std::string_view::npos) return CodeRole::Backward;
    if (head.find("_inference'") != std::string_view::npos) return CodeRole::Inference;
    return CodeRole::Unknown;
}

const char* toString(CodeRole role) {
    switch (role) {
        case CodeRole::Unknown: return "module";
        case CodeRole::Forward: return "forward";
        case CodeRole::Backward: return "backward";
        case CodeRole::Inference: return "inference";
    }
    return "module";
}

std::string graphTitle(const traces::Graph& graph, const FusionMap& fusion) {
    std::string title = graphBaseTitle(graph);
    if (graph.kind == traces::GraphKind::PostGrad && !fusion.kernels.empty() && fusion.kernels.front().role != CodeRole::Unknown)
        title += std::string(" ") + toString(fusion.kernels.front().role);
    if (graph.name.starts_with("before_")) title += " (before passes)";
    return title;
}

std::string fusedOpsOf(std::string_view kernelName) {
    constexpr std::string_view kFused = "fused_";
    size_t start = kernelName.find(kFused);
    if (start == std::string_view::npos) return {};
    std::string_view ops = kernelName.substr(start + kFused.size());
    auto isOrdinal = [](std::string_view s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    size_t underscore = ops.rfind('_');  // the kernel's ordinal: "..._sin_0"
    if (underscore != std::string_view::npos && isOrdinal(ops.substr(underscore + 1))) ops = ops.substr(0, underscore);
    if (ops.empty() || isOrdinal(ops)) return {};
    return "_" + std::string(ops) + "_";
}

int FusionMap::kernelOf(int node) const {
    if (node < 0 || static_cast<size_t>(node) >= kernelsOfNode.size()) return -1;
    const std::vector<int>& ofNode = kernelsOfNode[static_cast<size_t>(node)];
    return ofNode.empty() ? -1 : ofNode.front();
}

int FusionMap::findKernel(traces::RowId kernelId) const {
    for (size_t i = 0; i < kernels.size(); ++i)
        if (kernels[i].kernelId == kernelId) return static_cast<int>(i);
    return -1;
}

KernelCallNodes kernelCallNodesOf(std::string_view provenanceJson) {
    KernelCallNodes calls;
    for (auto& [call, nodes] : parseProvenanceMappings(provenanceJson).codeToPost) {
        std::vector<std::string>& names = calls[std::string(kernelOfCodeKey(call))];
        names.insert(names.end(), nodes.begin(), nodes.end());
    }
    return calls;
}

std::vector<KernelCallNodes> kernelCallNodesOfCompile(const std::vector<traces::Artifact>& artifacts,
                                                      traces::RowId compileId) {
    std::vector<KernelCallNodes> records;
    for (const traces::Artifact& artifact : artifacts)
        if (artifact.compileId == compileId && artifact.name == kProvenanceMappingsArtifact &&
            !artifact.payload.empty())
            if (KernelCallNodes calls = kernelCallNodesOf(artifact.payload); !calls.empty()) records.push_back(std::move(calls));
    return records;
}

namespace {

/// The record of `code`'s calls: the one whose entries for `code`'s kernels name the most of `model`'s nodes.
const KernelCallNodes* recordOf(const GraphModel& model, const traces::OutputCode& code,
                                const std::vector<KernelCallNodes>& records) {
    const KernelCallNodes* best = nullptr;
    int bestCount = 0;
    for (const KernelCallNodes& record : records) {
        int count = 0;
        for (const traces::Kernel& kernel : code.kernels)
            if (auto it = record.find(kernel.name); it != record.end())
                for (const std::string& name : it->second) count += model.findNode(name) >= 0 ? 1 : 0;
        if (count > bestCount) {
            best = &record;
            bestCount = count;
        }
    }
    return best;
}

}  // namespace

FusionMap mapNodesToKernels(const GraphModel& model, const std::vector<const traces::OutputCode*>& outputCode,
                            const std::vector<KernelCallNodes>& kernelCalls) {
    FusionMap map;
    FusionBuilder builder(model, map);
    if (usesSourceNodes(model.kind)) {
        for (const traces::OutputCode* code : byRole(model, outputCode)) {
            std::unordered_set<std::string> external = externComputedNodes(*code);
            for (const traces::Kernel& kernel : code->kernels)
                for (const std::string& name : kernel.sourceNodes)
                    if (int node = model.findNode(name); node >= 0 && !external.contains(name))
                        builder.assign(*code, kernel, node);
        }
        if (builder.any()) map.match = KernelMatch::SourceNodes;
    } else if (const traces::OutputCode* code = bestModule(model, outputCode, namedNodeCount)) {
        const KernelCallNodes* calls = recordOf(model, *code, kernelCalls);
        for (const traces::Kernel& kernel : code->kernels) {
            auto called = calls ? calls->find(kernel.name) : KernelCallNodes::const_iterator();
            const std::vector<std::string>& names = calls && called != calls->end() ? called->second : kernel.postGradNodes;
            for (const std::string& name : names)
                if (int node = model.findNode(name); node >= 0) builder.assign(*code, kernel, node);
        }
        for (const traces::Kernel& kernel : code->kernels) {
            if (builder.has(kernel) || !kernel.postGradNodes.empty()) continue;
            for (int node : inputsReadByCalls(model, code->source, kernel.name)) builder.assign(*code, kernel, node);
            builder.markCopiesInputs(kernel);
        }
        map.match = KernelMatch::PostGradNodes;
    }
    if (!builder.any()) {
        if (const traces::OutputCode* code = bestModule(model, outputCode, guessedNodeCount)) {
            std::vector<bool> claimed(model.nodes.size(), false);
            guessFromKernelNames(model, *code, builder, claimed);
            if (builder.any()) map.match = KernelMatch::KernelName;
        }
    }
    builder.sortNodes();
    return map;
}

}  // namespace viz
