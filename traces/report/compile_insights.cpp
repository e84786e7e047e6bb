// Compile insights (see compile_insights.h): read from the verbatim artifact envelopes and the compile spans.
#include "report/compile_insights.h"

#include "report/trace_index.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace traces {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kCacheResults[] = {"hit", "miss", "bypass"};
constexpr size_t kDetailValueChars = 80;

std::string textOf(const Json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_null()) return "";
    return value.dump();
}

std::string stringField(const Json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() ? std::string() : textOf(*it);
}

/// A TORCH_TRACE stack: frames name their file by an index into the session's `str` table.
Stack stackFromJson(const Json& frames, const std::vector<std::string>& strings) {
    Stack stack;
    if (!frames.is_array()) return stack;
    for (const Json& f : frames) {
        if (!f.is_object()) continue;
        Frame frame;
        auto file = f.find("filename");
        if (file != f.end() && file->is_number_integer()) {
            auto index = file->get<int64_t>();
            frame.file = index >= 0 && static_cast<size_t>(index) < strings.size() ? strings[static_cast<size_t>(index)]
                                                                                      : "(unknown)";
        } else if (file != f.end()) {
            frame.file = textOf(*file);
        }
        frame.line = f.value("line", 0);
        frame.function = stringField(f, "name");
        frame.source = stringField(f, "loc");
        stack.push_back(std::move(frame));
    }
    return stack;
}

/// ("fx_graph", "miss") from "fx_graph_cache_miss"; nullopt for other names.
std::optional<std::pair<std::string, std::string>> splitCacheArtifactName(const std::string& name) {
    for (std::string_view result : kCacheResults) {
        std::string suffix = "_cache_" + std::string(result);
        if (name.size() > suffix.size() && name.ends_with(suffix))
            return std::pair(name.substr(0, name.size() - suffix.size()), std::string(result));
    }
    return std::nullopt;
}

CacheOutcome cacheFromArtifact(const Artifact& artifact, std::string cache, std::string result) {
    CacheOutcome outcome{std::move(cache), std::move(result), "", artifact.line};
    Json payload = Json::parse(artifact.payload, nullptr, false);
    if (!payload.is_object()) return outcome;
    for (const char* key : {"cache_bypass_reason", "reason", "cache_status_detailed"}) {
        std::string reason = stringField(payload, key);
        if (!reason.empty() && reason != outcome.result && reason != "None") {
            outcome.reason = reason;
            break;
        }
    }
    return outcome;
}

/// Inductor's own record of its lookup, on the closing args of `inductor_compile`.
std::optional<CacheOutcome> cacheFromSpan(const Span& span) {
    if (span.name != "inductor_compile" || span.args.find("cache_state") == std::string::npos) return std::nullopt;
    Json args = Json::parse(span.args, nullptr, false);
    if (!args.is_object()) return std::nullopt;
    std::string state = stringField(args, "cache_state");
    if (state.empty()) return std::nullopt;
    std::string reason = stringField(args, "cache_bypass_reason");
    if (reason == "None") reason.clear();
    return CacheOutcome{"inductor", state, reason, 0};
}

void addShapeRecord(CompileInsights& insights, const Artifact& artifact, const std::vector<std::string>& strings) {
    Json envelope = Json::parse(artifact.metadata, nullptr, false);
    if (!envelope.is_object() || !envelope.contains(artifact.event)) return;
    const Json& body = envelope[artifact.event];
    if (!body.is_object()) return;
    Stack userStack = stackFromJson(body.value("user_stack", Json()), strings);
    if (artifact.event == "create_symbol" || artifact.event == "create_unbacked_symbol") {
        insights.symbols.push_back({artifact.event, stringField(body, "symbol"), stringField(body, "source"),
                                    stringField(body, "val"), stringField(body, "vr"), std::move(userStack),
                                    artifact.line});
    } else if (artifact.event == "symbolic_shape_specialization") {
        ShapeSpecialization s{stringField(body, "symbol"), {}, stringField(body, "value"),
                              stringField(body, "reason"), std::move(userStack), artifact.line};
        if (auto sources = body.find("sources"); sources != body.end() && sources->is_array())
            for (const Json& source : *sources) s.sources.push_back(textOf(source));
        insights.specializations.push_back(std::move(s));
    } else if (artifact.event == "guard_added_fast") {
        insights.guardsAddedFast.push_back({stringField(body, "expr"), std::move(userStack), artifact.line});
    }
}

std::string clipped(const std::string& text) {
    std::string flat = text;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    return flat.size() <= kDetailValueChars ? flat : flat.substr(0, kDetailValueChars) + "...";
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
}

/// Item -> value per rank; presence-only items have an empty value.
using RankFacts = std::map<std::string, std::string>;

/// One entry per group of ranks whose facts equal each other but not the lowest rank's, saying how.
void compareRanks(const std::string& what, const std::map<int, RankFacts>& byRank,
                  std::vector<RankDivergence>& out) {
    if (byRank.size() < 2) return;
    const auto& [referenceRank, reference] = *byRank.begin();
    std::map<RankFacts, std::vector<int>> groups;
    for (const auto& [rank, facts] : byRank)
        if (rank != referenceRank && facts != reference) groups[facts].push_back(rank);
    for (const auto& [facts, ranks] : groups) {
        std::vector<std::string> onlyHere, missing, differing;
        for (const auto& [item, value] : facts) {
            auto it = reference.find(item);
            if (it == reference.end()) onlyHere.push_back(item);
            else if (it->second != value)
                differing.push_back(item + " (" + clipped(value) + " vs " + clipped(it->second) + ")");
        }
        for (const auto& [item, value] : reference)
            if (!facts.contains(item)) missing.push_back(item);
        std::string who = ranks.size() == 1 ? "rank " + std::to_string(ranks[0]) : "these ranks";
        std::string ref = "rank " + std::to_string(referenceRank);
        std::string detail;
        auto add = [&detail](const std::string& part) { detail += (detail.empty() ? "" : "; ") + part; };
        if (!onlyHere.empty()) add("only on " + who + ": " + joined(onlyHere));
        if (!missing.empty()) add("only on " + ref + ": " + joined(missing));
        if (!differing.empty()) add("differ (" + who + " vs " + ref + "): " + joined(differing));
        std::vector<int> involved = ranks;
        involved.insert(involved.begin(), referenceRank);
        out.push_back({what, std::move(involved), std::move(detail)});
    }
}

std::vector<std::string> sortedNames(const Json& list) {
    std::vector<std::string> names;
    if (list.is_array())
        for (const Json& name : list) names.push_back(textOf(name));
    std::sort(names.begin(), names.end());
    return names;
}

CustomOps customOpsFromMetrics(const std::string& metricsJson) {
    // Most compiles call no custom op: both lists are logged empty, and the metrics text need not be parsed.
    if (metricsJson.find("_ops\": [\"") == std::string::npos) return {};
    Json metrics = Json::parse(metricsJson, nullptr, false);
    if (!metrics.is_object()) return {};
    if (metrics.contains("compilation_metrics")) metrics = metrics["compilation_metrics"];
    if (!metrics.is_object()) return {};
    return {sortedNames(metrics.value("compliant_custom_ops", Json())),
            sortedNames(metrics.value("non_compliant_ops", Json()))};
}

std::string baseKey(const Compile& compile) {
    CompileKey key = compile.key;
    key.attempt = 0;
    return key.str();
}

}  // namespace

InsightIndex::InsightIndex(const TraceData& trace) {
    static const std::vector<std::string> kNoStrings;
    for (const Artifact& artifact : trace.artifacts) {
        if (!artifact.compileId) continue;
        if (artifact.event == "artifact") {
            if (auto cache = splitCacheArtifactName(artifact.name))
                byCompile_[*artifact.compileId].caches.push_back(
                    cacheFromArtifact(artifact, cache->first, cache->second));
            continue;
        }
        if (artifact.event != "create_symbol" && artifact.event != "create_unbacked_symbol" &&
            artifact.event != "symbolic_shape_specialization" && artifact.event != "guard_added_fast")
            continue;
        auto strings = trace.internedStrings.find(artifact.sessionId);
        addShapeRecord(byCompile_[*artifact.compileId], artifact,
                       strings == trace.internedStrings.end() ? kNoStrings : strings->second);
    }
    for (const Span& span : trace.spans) {
        if (!span.compileId) continue;
        if (auto outcome = cacheFromSpan(span)) byCompile_[*span.compileId].caches.push_back(std::move(*outcome));
    }
    for (const Compile& compile : trace.compiles) {
        CustomOps ops = customOpsFromMetrics(compile.metricsJson);
        if (!ops.empty()) byCompile_[compile.id].customOps = std::move(ops);
    }
}

const CompileInsights& InsightIndex::compile(RowId compileId) const {
    auto it = byCompile_.find(compileId);
    return it == byCompile_.end() ? empty_ : it->second;
}

std::string cacheSummaryText(const CompileInsights& insights) {
    std::vector<std::string> parts;
    for (const CacheOutcome& c : insights.caches)
        parts.push_back(c.cache + " " + c.result + (c.result == "bypass" && !c.reason.empty() ? " (" + c.reason + ")" : ""));
    return joined(parts);
}

std::string customOpsText(const CustomOps& ops) {
    std::string text;
    if (!ops.nonCompliant.empty()) text = "non-compliant " + joined(ops.nonCompliant);
    if (!ops.compliant.empty()) text += (text.empty() ? "" : "; ") + std::string("compliant ") + joined(ops.compliant);
    return text;
}

std::vector<CompileFailure> sessionFailures(const TraceIndex& index, const Session& session) {
    std::vector<CompileFailure> failures;
    for (const Compile* compile : index.session(session.id).compiles) {
        CompileRef ref{compile->id, compile->key.display()};
        if (compile->status == CompileStatus::Failed) {
            failures.push_back({ref, "failed", compile->failType, compile->failReason, compile->failUserFile,
                                compile->failUserLine});
            continue;
        }
        if (compile->status != CompileStatus::Restarted) continue;
        CompileFailure failure{ref, "restarted", "", "", "", 0};
        const GraphBreak* cause = nullptr;
        for (const GraphBreak* b : index.compile(compile->id).graphBreaks)
            if (b->origin == "artifact") { cause = b; break; }
        if (!cause) {
            // Older logs: the reason is on the next attempt, as its restart_reasons (one row per reason).
            for (const Compile* attempt : index.attempts(*index.occurrenceHead(*compile))) {
                if (attempt->key.attempt != compile->key.attempt + 1) continue;
                std::vector<const GraphBreak*> restarts;
                for (const GraphBreak* b : index.compile(attempt->id).graphBreaks)
                    if (b->origin == "restart") restarts.push_back(b);
                if (!restarts.empty())
                    cause = restarts[std::min(static_cast<size_t>(compile->key.attempt), restarts.size() - 1)];
            }
        }
        if (cause) {
            failure.type = cause->breakType;
            failure.reason = cause->reason;
            failure.userFile = cause->userFile;
            failure.userLine = cause->userLine;
        }
        failures.push_back(std::move(failure));
    }
    return failures;
}

RecordsWithoutCompileId recordsWithoutCompileId(const TraceData& trace, RowId sessionId) {
    RecordsWithoutCompileId out;
    std::map<std::string, size_t> positions;
    for (const RecordWithoutCompileId& record : trace.recordsWithoutCompileId) {
        if (record.sessionId != sessionId) continue;
        out.records.push_back(&record);
        if (record.compileId) ++out.joinedByPayload;
        if (!record.stack.empty()) ++out.withStack;
        std::string name = record.event == record.name ? record.event : record.event + ": " + record.name;
        auto [it, added] = positions.try_emplace(name, out.countsByName.size());
        if (added) out.countsByName.emplace_back(name, 0);
        ++out.countsByName[it->second].second;
    }
    return out;
}

std::vector<RankDivergence> rankDivergence(const TraceIndex& index, const InsightIndex& insights) {
    std::map<int, RankFacts> compileIds, caches, breaks, schedules;
    std::map<RowId, int> rankOfSession;
    for (const Session& session : index.trace().sessions) {
        if (!session.rank || compileIds.contains(*session.rank)) continue;
        int rank = *session.rank;
        rankOfSession[session.id] = rank;
        RankFacts& ids = compileIds[rank];
        RankFacts& cacheFacts = caches[rank];
        for (const Compile* compile : index.session(session.id).compiles) {
            ids[baseKey(*compile)];
            std::string text = cacheSummaryText(insights.compile(compile->id));
            if (!text.empty()) cacheFacts[compile->key.str()] = text;
        }
        std::map<std::string, int> breakCounts;
        for (const GraphBreak* b : index.session(session.id).graphBreaks) {
            if (b->origin != "artifact") continue;
            std::string where = b->userFile.empty() ? "" : " at " + b->userFile + ":" + std::to_string(b->userLine);
            ++breakCounts[(b->breakType.empty() ? "graph break" : b->breakType) + where];
        }
        RankFacts& breakFacts = breaks[rank];
        for (const auto& [item, count] : breakCounts) breakFacts[item] = std::to_string(count) + "x";
        schedules[rank];
    }
    if (compileIds.size() < 2) return {};
    for (const Artifact& artifact : index.trace().artifacts) {
        if (artifact.name != "inductor_collective_schedule" || !artifact.compileId) continue;
        auto rank = rankOfSession.find(artifact.sessionId);
        const Compile* compile = index.compileById(*artifact.compileId);
        if (rank == rankOfSession.end() || !compile) continue;
        std::string& schedule = schedules[rank->second][compile->key.str()];
        schedule += (schedule.empty() ? "" : " | ") + artifact.payload;
    }
    std::vector<RankDivergence> out;
    compareRanks("compile_ids", compileIds, out);
    compareRanks("cache_outcomes", caches, out);
    compareRanks("graph_breaks", breaks, out);
    compareRanks("collective_schedules", schedules, out);
    return out;
}

}  // namespace traces
