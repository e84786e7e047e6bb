// Reads recompile_reasons payloads (JSON list or bare string) and splits "compile id: reason" lines.
#include "parse/recompile_reasons.h"

#include <nlohmann/json.hpp>

#include "model/trace_model.h"
#include "parse/text_scan.h"

namespace traces {
namespace {

std::string jsonText(const nlohmann::json& value) {
    if (value.is_string()) return value.get<std::string>();
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::vector<std::string> parseRecompileReasonsPayload(std::string_view payload) {
    std::vector<std::string> reasons;
    std::string_view body = scan::trim(payload);
    if (body.empty()) return reasons;

    if (body.front() == '[' || body.front() == '"') {
        nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
        if (!doc.is_discarded()) {
            if (doc.is_array()) {
                for (const nlohmann::json& item : doc) reasons.push_back(jsonText(item));
            } else {
                reasons.push_back(jsonText(doc));
            }
            return reasons;
        }
        if (body.front() == '[') {
            // PyTorch writes one list element per line, so a damaged list is still readable line by line.
            scan::LineReader reader(body);
            std::string_view line;
            while (reader.next(line)) {
                line = scan::trim(line);
                if (line.ends_with(',')) line.remove_suffix(1);
                if (!line.starts_with('"')) continue;
                nlohmann::json item = nlohmann::json::parse(line, nullptr, false);
                // A line cut short keeps its text: the compile id and most of the reason are still there.
                reasons.push_back(item.is_string() ? item.get<std::string>() : std::string(line.substr(1)));
            }
            return reasons;
        }
    }
    reasons.emplace_back(scan::trimRight(payload.substr(static_cast<size_t>(body.data() - payload.data()))));
    return reasons;
}

ParsedGuardFailure splitGuardFailure(std::string_view line) {
    ParsedGuardFailure out;
    line = scan::trimRight(scan::trimLeft(line));
    if (line.starts_with("- ")) line = scan::trimLeft(line.substr(2));
    size_t colon = line.find(": ");
    if (colon != std::string_view::npos && parseCompileKey(line.substr(0, colon))) {
        out.failedCompile = std::string(line.substr(0, colon));
        out.reason = std::string(line.substr(colon + 2));
    } else {
        out.reason = std::string(line);
    }
    return out;
}

}  // namespace traces
