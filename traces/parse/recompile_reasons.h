// Parsers for recompile reasons: the recompile_reasons artifact payload and its "0/0: reason" lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace traces {

/// The reasons of a `recompile_reasons` payload, one per guard failure, in logged order. The payload is
/// usually a JSON list of strings, but PyTorch writes a lone reason as the bare string (no JSON quoting),
/// possibly over several lines ("...\nUser stack trace:\n  File ..."): that becomes one reason.
/// A truncated JSON list gives the entries that still parse. Never throws.
std::vector<std::string> parseRecompileReasonsPayload(std::string_view payload);

struct ParsedGuardFailure {
    std::string failedCompile;  ///< "0/0", "0/1_2", "!0/1/0"; empty when the line has no compile id
    std::string reason;         ///< the rest, as logged (a "\nUser stack trace:..." tail included)
};

/// "0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16" -> {"0/0", "tensor 'x' size ..."}.
/// A leading "- " (the recompiles log's list form) and trailing blanks are dropped.
ParsedGuardFailure splitGuardFailure(std::string_view line);

}  // namespace traces
