// The model's artifact payloads (see model_payloads.h).
#include "store/model_payloads.h"

#include <array>
#include <nlohmann/json.hpp>

namespace traces {
namespace {

constexpr std::array<std::string_view, 3> kWholePayloads = {
    "dynamo_warning", "inductor_collective_schedule", "inductor_provenance_tracking_node_mappings"};
constexpr std::array<std::string_view, 3> kCacheDecisionSuffixes = {"_cache_hit", "_cache_miss", "_cache_bypass"};

bool isWhole(std::string_view name) {
    for (std::string_view whole : kWholePayloads)
        if (name == whole) return true;
    return false;
}

bool isCacheDecision(std::string_view name) {
    for (std::string_view suffix : kCacheDecisionSuffixes)
        if (name.size() > suffix.size() && name.ends_with(suffix)) return true;
    return false;
}

}  // namespace

bool modelKeepsPayload(std::string_view artifactName) { return isWhole(artifactName) || isCacheDecision(artifactName); }

std::string modelPayload(std::string_view artifactName, std::string payload) {
    if (isWhole(artifactName)) return payload;
    if (!isCacheDecision(artifactName)) return {};
    nlohmann::json decision = nlohmann::json::parse(payload, nullptr, false);
    if (decision.is_discarded()) return {};
    if (decision.is_object()) decision.erase("components");
    return decision.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string modelKeepsPayloadSql(std::string_view nameColumn) {
    std::string column(nameColumn), sql = column + " IN (";
    for (size_t i = 0; i < kWholePayloads.size(); ++i) sql += (i ? ", '" : "'") + std::string(kWholePayloads[i]) + "'";
    sql += ")";
    for (std::string_view suffix : kCacheDecisionSuffixes) sql += " OR " + column + " GLOB '?*" + std::string(suffix) + "'";
    return sql;
}

}  // namespace traces
