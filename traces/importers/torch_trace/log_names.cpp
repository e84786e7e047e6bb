// What the names in a TORCH_TRACE log stand for (see log_names.h).
#include "importers/torch_trace/log_names.h"

#include <cctype>
#include <unordered_map>

namespace traces {

std::optional<GraphKind> graphKindOfEvent(std::string_view event) {
    static const std::unordered_map<std::string_view, GraphKind> kinds = {
        {"dynamo_output_graph", GraphKind::Dynamo},
        {"aot_joint_graph", GraphKind::AotJoint},
        {"aot_forward_graph", GraphKind::AotForward},
        {"aot_backward_graph", GraphKind::AotBackward},
        {"aot_inference_graph", GraphKind::AotInference},
        {"inductor_pre_grad_graph", GraphKind::PreGrad},
        {"inductor_post_grad_graph", GraphKind::PostGrad},
        {"compiled_autograd_graph", GraphKind::CompiledAutograd},
        {"optimize_ddp_split_graph", GraphKind::DdpSplit},
        {"optimize_ddp_split_child", GraphKind::DdpSplit},
    };
    auto it = kinds.find(event);
    return it == kinds.end() ? std::nullopt : std::optional(it->second);
}

std::optional<GraphKind> graphKindOfArtifact(std::string_view name) {
    static const std::unordered_map<std::string_view, GraphKind> kinds = {
        {"before_pre_grad_graph", GraphKind::PreGrad},     {"after_pre_grad_graph", GraphKind::PreGrad},
        {"before_recompile_pre_grad", GraphKind::PreGrad}, {"after_recompile_pre_grad", GraphKind::PreGrad},
        {"before_joint_graph", GraphKind::JointPass},      {"after_joint_graph", GraphKind::JointPass},
        {"before_post_grad_graph", GraphKind::PostGrad},   {"after_post_grad_graph", GraphKind::PostGrad},
        {"inductor_post_grad_graph", GraphKind::PostGrad}, {"before_recompile_post_grad", GraphKind::PostGrad},
        {"after_recompile_post_grad", GraphKind::PostGrad},
    };
    auto it = kinds.find(name);
    return it == kinds.end() ? std::nullopt : std::optional(it->second);
}

// "rank_3" in dedicated_log_torch_trace_rank_3_abc.log names the rank when no record carries one.
std::optional<int> rankFromFileName(const std::string& name) {
    size_t at = name.find("rank_");
    if (at == std::string::npos) return std::nullopt;
    size_t i = at + 5, start = i;
    int rank = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) rank = rank * 10 + (name[i++] - '0');
    if (i == start || (i < name.size() && name[i] != '_' && name[i] != '.')) return std::nullopt;
    return rank;
}

}  // namespace traces
