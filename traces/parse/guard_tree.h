// Parsers for Dynamo's guard dumps: the C++ guard tree (dynamo_cpp_guards_str) and the 2024-era JSON list
// (dynamo_guards), plus the plain-words description of each guard that the reports show.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {

/// Kind given to every manager line of a guard tree (RootGuardManager, GuardManager, DictGuardManager,
/// KeyValueManager pairs, KeyManager/ValueManager); the printed manager class stays in Guard::text.
inline constexpr std::string_view kGuardManagerKind = "GuardManager";

/// One Guard per line of the tree below `TREE_GUARD_MANAGER:`, in print order (index = position):
/// manager lines get kind "GuardManager", text = the line after "+- ", source = its `source=`;
/// leaf lines (`TENSOR_MATCH: check_tensor(...)  # user code  # file:line in fn`) get kind = the word before
/// the first ':', text = the expression without the trailing comments, userCode = the comment text,
/// source = the nearest enclosing manager's source (else the first L[...]/G[...] in the expression).
/// depth = number of "| " before "+- " (the root manager is 0). `checks` is filled by describeGuard.
/// Lines that are not tree lines continue the previous guard's text; the latency trailer is ignored.
/// Malformed input gives what could be read; never throws.
std::vector<Guard> parseCppGuardTree(std::string_view text);

/// The "Guard latency = 38.34 us" trailer of a guard tree dump, in microseconds.
std::optional<double> guardLatencyUs(std::string_view text);

/// The 2024-era `dynamo_guards` payload: a JSON list of {"code", "stack", "user_stack"} objects.
/// kind is derived from the code (check_tensor -> TENSOR_MATCH, ___check_obj_id -> ID_MATCH, ...; code that
/// matches nothing known is a LAMBDA_GUARD, which is what Dynamo compiled such code into); depth is 0;
/// userCode is the innermost user frame's `loc` (or "line N in fn" when the log has no loc).
/// A truncated or partly invalid list gives the items that still parse; never throws.
std::vector<Guard> parseGuardListJson(std::string_view payload);

/// Plain words for what a guard checks, e.g. "x is a Tensor with dtype torch.float32, size [8, 16],
/// stride [16, 1], requires_grad=False". Local sources are shown without their scope (L['x'] -> x).
std::string describeGuard(const Guard& guard);

/// True for the kinds that name a guard manager rather than a check.
bool isGuardManagerKind(std::string_view kind);

}  // namespace traces
