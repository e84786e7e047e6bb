// Which generated kernel each graph node ended up in: Inductor's own fusion comments when the log has them
// (source nodes for Dynamo graphs, post-grad nodes for AOT/post-grad graphs), else a guess from kernel names.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_model.h"
#include "model/trace_model.h"

namespace viz {

/// What an output code module computes, from its "# AOT ID: ['0_forward']" header.
enum class CodeRole { Unknown, Forward, Backward, Inference };
CodeRole codeRoleOf(const traces::OutputCode& code);
const char* toString(CodeRole role);

/// How the nodes were matched to kernels; the UI says "guessed" for KernelName.
enum class KernelMatch { None, SourceNodes, PostGradNodes, KernelName };

struct FusionKernel {
    traces::RowId kernelId = 0;
    traces::RowId outputCodeId = 0;
    std::string name;
    std::string language;
    CodeRole role = CodeRole::Unknown;
    std::vector<int> nodes;  ///< model nodes it computes, in graph order
    /// Inductor named no node for it (a kernel it added itself, such as the channels-last copy of a convolution's
    /// weight or image, "# Unsorted Source Nodes: []"): `nodes` are the graph inputs its calls read.
    bool copiesInputs = false;
};

struct FusionMap {
    KernelMatch match = KernelMatch::None;
    std::vector<FusionKernel> kernels;            ///< only kernels that computed at least one node
    std::vector<std::vector<int>> kernelsOfNode;  ///< per model node, indices into kernels, the primary one first

    /// The kernel a node is coloured and linked by (-1 for none: inputs, extern calls like mm, views).
    int kernelOf(int node) const;
    int findKernel(traces::RowId kernelId) const;
};

/// Inductor's provenance record of one generated module (the `inductor_provenance_tracking_node_mappings`
/// artifact's cppCodeToPost): per kernel name, the post-grad nodes of all its calls ("triton_poi_fused_add_0:3",
/// ":9", ...). A kernel's own comment names the nodes of its first call only, so a kernel that every layer of a
/// model calls would otherwise map to the first layer alone.
using KernelCallNodes = std::map<std::string, std::vector<std::string>>;

/// Parses an `inductor_provenance_tracking_node_mappings` payload; empty when it has no cppCodeToPost.
KernelCallNodes kernelCallNodesOf(std::string_view provenanceJson);

/// The provenance records among `artifacts` that belong to `compileId`.
std::vector<KernelCallNodes> kernelCallNodesOfCompile(const std::vector<traces::Artifact>& artifacts,
                                                      traces::RowId compileId);

/// A graph's title in the workbench: its kind ("post-grad"), a post-grad graph's role from the output code its
/// kernels are in ("post-grad forward", "post-grad backward"), "(before passes)" for `before_*` graphs.
std::string graphTitle(const traces::Graph& graph, const FusionMap& fusion);

/// Maps `model`'s nodes to the kernels of `outputCode` (all output code of the graph's compile id).
/// Dynamo and pre-grad graphs match kernels' source nodes over every module, forward before backward.
/// AOT, post-grad and other graphs match post-grad nodes in the one module that covers the most nodes, its role
/// (forward/backward/inference) deciding ties. When no kernel names a node, kernel names are used instead:
/// "cpp_fused_mul_sin_0" claims the first free mul and sin nodes and their free neighbours of those ops.
/// With `kernelCalls` (the compile's provenance records), post-grad graphs take every call's nodes from the record
/// that names the most of them.
FusionMap mapNodesToKernels(const GraphModel& model, const std::vector<const traces::OutputCode*>& outputCode,
                            const std::vector<KernelCallNodes>& kernelCalls = {});

/// The operators a fused kernel's name lists: "triton_poi_fused_add_cos_mul_sin_0" -> "_add_cos_mul_sin_"
/// (underscore-delimited so that "mul" matches but "mm" does not match "mmm"); "" for unfused names.
std::string fusedOpsOf(std::string_view kernelName);

}  // namespace viz
