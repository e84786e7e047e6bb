// What the names in a TORCH_TRACE log stand for: the graph kind of a graph event or artifact name, the rank in
// a rank log's file name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/trace_model.h"

namespace traces {

/// The kind of graph a record of this event key holds ("aot_forward_graph"), if it holds one.
std::optional<GraphKind> graphKindOfEvent(std::string_view event);
/// The kind of graph an artifact of this name holds ("before_post_grad_graph"), if it holds one.
std::optional<GraphKind> graphKindOfArtifact(std::string_view name);
/// The rank that "rank_3" in dedicated_log_torch_trace_rank_3_abc.log names, when no record carries one.
std::optional<int> rankFromFileName(const std::string& name);

}  // namespace traces
