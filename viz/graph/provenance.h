// Inductor's provenance: which pre-grad graph nodes became which post-grad nodes, and which kernel calls of the
// generated code compute them, as three texts (pre-grad graph, post-grad graph, output code) whose lines link to
// each other. From the `inductor_provenance_tracking_node_mappings` artifact when the log has it, else from the
// fusion comments of each kernel. No ImGui.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace viz {

/// The artifact Inductor writes with `TORCH_COMPILE_DEBUG=1` or `config.trace.provenance_tracking_level`.
inline constexpr std::string_view kProvenanceMappingsArtifact = "inductor_provenance_tracking_node_mappings";

/// The artifact's four maps. Code keys are kernel calls: "triton_poi_fused_add_0:3" ("name:debug handle"), or a
/// kernel's bare name when the links were inferred from its comments.
struct ProvenanceMappings {
    std::map<std::string, std::vector<std::string>> preToPost;
    std::map<std::string, std::vector<std::string>> postToPre;
    std::map<std::string, std::vector<std::string>> codeToPost;
    std::map<std::string, std::vector<std::string>> postToCode;

    bool empty() const { return preToPost.empty() && codeToPost.empty(); }
};

/// Parses the artifact's JSON; empty maps for what is missing or malformed.
ProvenanceMappings parseProvenanceMappings(std::string_view json);

/// "triton_poi_fused_add_0:3" -> "triton_poi_fused_add_0"; a bare name stays as it is.
std::string_view kernelOfCodeKey(std::string_view key);

/// One text pane: its lines and what each line stands for ("" for none): a node name in the graph panes, a code
/// key or a kernel name in the code pane.
struct LinkedText {
    std::string title;     ///< "pre-grad graph", "post-grad graph (forward)", "output code"
    std::string text;
    std::vector<std::string> anchors;  ///< per line
};

/// What a click selects in all three panes.
struct ProvenanceSelection {
    std::set<std::string> pre;   ///< pre-grad node names
    std::set<std::string> post;  ///< post-grad node names
    std::set<std::string> code;  ///< code keys ("name:3") and kernel names

    bool empty() const { return pre.empty() && post.empty() && code.empty(); }
};

enum class ProvenancePane { Pre, Post, Code };

/// One generated module (forward, backward or inference) with its graphs, code and the links between them.
struct ProvenanceModule {
    std::string title;        ///< "forward", "backward", "inference", or the output file name
    bool fromArtifact = false;  ///< false: links inferred from the kernels' fusion comments
    ProvenanceMappings mappings;
    LinkedText pre;
    LinkedText post;
    LinkedText code;

    /// Everything linked to `anchor` (a line's anchor) of `pane`.
    ProvenanceSelection select(ProvenancePane pane, const std::string& anchor) const;
    /// Whether a line with `anchor` of `pane` belongs to `selection`.
    static bool lineSelected(const ProvenanceSelection& selection, ProvenancePane pane, const std::string& anchor);
    const LinkedText& text(ProvenancePane pane) const;
};

/// The modules of one compile (a compile id's attempts together), in the order Inductor wrote them: each output
/// code with the post-grad graph logged before it, the compile's pre-grad graph (else its Dynamo graph), and its
/// provenance artifact if the log has one. Empty when the compile generated no code.
std::vector<ProvenanceModule> provenanceModulesOf(const traces::TraceData& trace,
                                                  const std::vector<traces::RowId>& compileIds);

/// Node names on the lines of FX's readable text: "add: \"f32[4]\" = torch.ops.aten.add..." and "x = L_x_" name
/// their node; comments, signatures and blank lines name none.
std::vector<std::string> fxLineAnchors(std::string_view text);

/// Code keys on the lines of an Inductor wrapper: a kernel's definition (its comment block and its source) is
/// its name; a call is the "[Provenance debug handles]" key written above it, else the kernel's name.
std::vector<std::string> outputCodeLineAnchors(std::string_view source);

}  // namespace viz
