// joinRuntime and its writers (see runtime_join.h).
#include "report/runtime_join.h"

#include "report/report_common.h"
#include "report/summary.h"
#include "report/trace_index.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace traces {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kRegionPrefix = "Torch-Compiled Region: ";

constexpr std::string_view kGraphCallPrefix = "## Call CompiledFxGraph";

/// A compiled region or a graph call ("## Call CompiledFxGraph ...": compileId empty).
struct Region {
    std::string compileId;
    double startUs = 0, durationUs = 0;
    double end() const { return startUs + durationUs; }
};

/// What one thread of the profile did that the join reads: compiled regions and graph calls by start time (an
/// enclosing event before those it encloses), and the disjoint spans it spent compiling, by start time.
struct ThreadEvents {
    std::vector<Region> regions;
    std::vector<std::pair<double, double>> compileSpans;  ///< [start, end) in microseconds

    /// Microseconds of [startUs, endUs) spent compiling.
    double compileWithin(double startUs, double endUs) const {
        double total = 0;
        auto first = std::lower_bound(compileSpans.begin(), compileSpans.end(), std::pair{startUs, startUs},
                                      [](const auto& span, const auto& key) { return span.second <= key.first; });
        for (auto it = first; it != compileSpans.end() && it->first < endUs; ++it)
            total += std::min(endUs, it->second) - std::max(startUs, it->first);
        return total;
    }
};

/// Dynamo and Inductor compile events (and the first call's autotuning) are profiled as "entire_frame_compile"
/// and "<phase> (dynamo_timed)" spans; a (re)compile runs inside the region of the frame whose eager code
/// called the recompiled function, so without them its seconds would read as that frame's eager time.
bool isCompileEvent(const std::string& name) {
    return name == "entire_frame_compile" || name.ends_with(" (dynamo_timed)");
}

Json readProfile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read the profile");
    Json profile = Json::parse(in, nullptr, false);
    if (profile.is_discarded()) throw std::runtime_error(path + ": not JSON (expected a torch.profiler chrome trace)");
    if (profile.is_object() && profile.contains("traceEvents")) return profile["traceEvents"];
    if (profile.is_array()) return profile;
    throw std::runtime_error(path + ": no traceEvents (expected a torch.profiler chrome trace)");
}

std::map<std::pair<int64_t, int64_t>, ThreadEvents> eventsByThread(const Json& events) {
    std::map<std::pair<int64_t, int64_t>, ThreadEvents> threads;
    for (const Json& e : events) {
        if (!e.is_object() || e.value("ph", "") != "X") continue;
        std::string name = e.value("name", "");
        bool region = name.starts_with(kRegionPrefix);
        bool compiling = !region && isCompileEvent(name);
        if (!region && !compiling && !name.starts_with(kGraphCallPrefix)) continue;
        auto id = [&](const char* key) { return e.contains(key) && e[key].is_number() ? e[key].get<int64_t>() : 0; };
        ThreadEvents& thread = threads[{id("pid"), id("tid")}];
        double start = e.value("ts", 0.0), duration = e.value("dur", 0.0);
        if (compiling) thread.compileSpans.emplace_back(start, start + duration);
        else thread.regions.push_back({region ? name.substr(kRegionPrefix.size()) : "", start, duration});
    }
    for (auto& [key, thread] : threads) {
        std::stable_sort(thread.regions.begin(), thread.regions.end(), [](const Region& a, const Region& b) {
            return a.startUs != b.startUs ? a.startUs < b.startUs : a.durationUs > b.durationUs;
        });
        // Compile events nest (phases inside entire_frame_compile): keep their union.
        std::sort(thread.compileSpans.begin(), thread.compileSpans.end());
        std::vector<std::pair<double, double>> merged;
        for (const auto& span : thread.compileSpans) {
            if (!merged.empty() && span.first <= merged.back().second) merged.back().second = std::max(merged.back().second, span.second);
            else merged.push_back(span);
        }
        thread.compileSpans = std::move(merged);
    }
    return threads;
}

std::string baseKey(const Compile& compile) {
    CompileKey key = compile.key;
    key.attempt = 0;
    return key.str();
}

double compileSeconds(const TraceIndex& index, const Compile& compile) {
    double seconds = 0;
    for (const Compile* attempt : index.attempts(*index.occurrenceHead(compile)))
        for (const PhaseTime& p : attempt->phases)
            if (p.phase == "entire_frame_compile") seconds += p.seconds;
    return seconds;
}

std::string joined(const std::set<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

std::string remedyForBreak(const std::string& breakType, const std::string& reason) {
    std::string all = breakType + "\n" + reason;
    if (contains(all, "graph_break()")) return "remove the explicit torch._dynamo.graph_break() call";
    if (contains(all, "print") || contains(all, "builtin operator"))
        return "move the print/logging out of the compiled region, or list the function in "
               "torch._dynamo.config.reorderable_logging_functions";
    if (contains(all, "item()") || contains(all, "Data-dependent") || contains(all, "data dependent"))
        return "set torch._dynamo.config.capture_scalar_outputs = True, or express the branch with torch.cond / "
               "torch.where";
    if (contains(all, "marked as skipped") || contains(all, "Unsupported method call") ||
        contains(all, "Unsupported function call"))
        return "wrap the call in a function decorated with @torch._dynamo.nonstrict_trace (or "
               "torch.compiler.allow_in_graph when it is graph-safe), or move it out of the compiled region";
    return "rewrite the construct Dynamo cannot trace, or decorate that helper with @torch._dynamo.nonstrict_trace";
}

std::string remedyForRecompile(const std::string& guardFailure) {
    if (contains(guardFailure, "size mismatch") || contains(guardFailure, ".size()"))
        return "mark the varying dimension dynamic before the first call: torch._dynamo.mark_dynamic(tensor, dim) "
               "(or torch.compile(dynamic=True))";
    if (contains(guardFailure, "dtype mismatch")) return "keep the input dtype the same on every call (cast before the call)";
    if (contains(guardFailure, "requires_grad mismatch"))
        return "call the compiled function with the same requires_grad every time (or under torch.no_grad())";
    if (contains(guardFailure, "stride mismatch")) return "make the input contiguous before the call";
    if (contains(guardFailure, " == ") || contains(guardFailure, "EQUALS_MATCH"))
        return "pass the changing Python value as a tensor, or let Dynamo treat ints as dynamic "
               "(torch._dynamo.config.specialize_int = False / automatic_dynamic_shapes)";
    return "make the guarded value the same on every call, or raise torch._dynamo.config.recompile_limit if each "
           "variant is intended";
}

RuntimeJoin joinRuntime(const TraceData& trace, const std::string& profilePath, RowId sessionId) {
    RuntimeJoin join;
    join.profilePath = profilePath;
    TraceIndex index(trace);
    auto found = std::find_if(trace.sessions.begin(), trace.sessions.end(),
                              [&](const Session& s) { return sessionId == 0 || s.id == sessionId; });
    if (found == trace.sessions.end()) return join;
    const Session& session = *found;
    join.session = report_detail::sessionTitle(session);
    join.rank = session.rank;
    std::map<std::string, std::string> functionOf;
    for (const Compile* c : index.session(session.id).compiles)
        if (!c->function.empty()) functionOf.try_emplace(baseKey(*c), c->function);

    std::map<std::string, CompiledFrameRuntime> frames;
    if (!profilePath.empty()) {
        std::map<std::pair<std::string, std::string>, EagerGap> gaps;
        for (const auto& [key, thread] : eventsByThread(readProfile(profilePath))) {
            std::vector<const Region*> open;  // enclosing regions, innermost last
            const Region* previousTop = nullptr;
            for (const Region& r : thread.regions) {
                while (!open.empty() && open.back()->end() <= r.startUs) open.pop_back();
                CompiledFrameRuntime* parent = open.empty() ? nullptr : &frames[open.back()->compileId];
                // Compiling inside a nested region or a graph call (first-call autotuning) is theirs, not the parent's.
                double compiling = thread.compileWithin(r.startUs, r.end());
                if (parent) {
                    parent->eagerUs -= r.durationUs;
                    parent->compileUs -= compiling;
                }
                if (r.compileId.empty()) continue;  // a graph call: the enclosing frame's own compiled work
                CompiledFrameRuntime& f = frames[r.compileId];
                f.compileId = r.compileId;
                ++f.hits;
                f.totalUs += r.durationUs;
                f.eagerUs += r.durationUs;
                f.compileUs += compiling;
                if (open.empty()) {
                    if (previousTop) {
                        EagerGap& g = gaps[{previousTop->compileId, r.compileId}];
                        g.after = previousTop->compileId;
                        g.before = r.compileId;
                        ++g.count;
                        double compilingBetween = thread.compileWithin(previousTop->end(), r.startUs);
                        g.totalUs += r.startUs - previousTop->end() - compilingBetween;
                        g.compileUs += compilingBetween;
                    }
                    previousTop = &r;
                }
                open.push_back(&r);
            }
        }
        for (auto& [id, f] : frames) {
            f.eagerUs -= f.compileUs;
            f.function = functionOf.contains(id) ? functionOf[id] : "";
            join.frames.push_back(f);
        }
        for (const auto& [key, g] : gaps) join.gaps.push_back(g);
        std::sort(join.frames.begin(), join.frames.end(), [](const auto& a, const auto& b) { return a.totalUs > b.totalUs; });
        std::sort(join.gaps.begin(), join.gaps.end(), [](const auto& a, const auto& b) { return a.totalUs > b.totalUs; });
    }

    SessionSummary summary = summarizeSession(index, session);
    for (const BreakReasonSummary& reason : summary.breakReasons) {
        std::set<std::string> ids;
        double compileUs = 0, runtimeUs = 0;
        for (const CompileRef& ref : reason.compiles)
            if (const Compile* c = index.compileById(ref.compileId)) {
                if (ids.insert(baseKey(*c)).second && frames.contains(baseKey(*c))) runtimeUs += frames[baseKey(*c)].eagerUs;
                compileUs += compileSeconds(index, *c) * 1e6;
            }
        bool profiled = !profilePath.empty();
        std::string where = reason.userFile.empty() ? "" : " at " + reason.userFile + ":" + std::to_string(reason.userLine);
        join.fixFirst.push_back({"graph_break", (reason.breakType.empty() ? "graph break" : reason.breakType) + where,
                                 joined(ids), profiled ? runtimeUs : compileUs,
                                 profiled ? "eager time in the breaking frames (profile)" : "compile time",
                                 remedyForBreak(reason.breakType, reason.reason)});
    }
    for (const FunctionRecompiles& function : summary.recompiledFunctions) {
        std::set<std::string> ids;
        double compileUs = 0;
        std::string failure;
        for (const RecompileEvent& event : function.recompiles) {
            ids.insert(event.compile.display);
            if (const Compile* c = index.compileById(event.compile.compileId)) compileUs += compileSeconds(index, *c) * 1e6;
            if (failure.empty() && !event.guardFailures.empty()) failure = event.guardFailures.front().reason;
        }
        std::string firstLine = failure.substr(0, failure.find('\n'));
        join.fixFirst.push_back({"recompile", function.function + " (" + std::to_string(function.compileCount) +
                                                  " compiles; " + firstLine + ")",
                                 joined(ids), compileUs, "compile time of the recompiles", remedyForRecompile(failure)});
    }
    std::stable_sort(join.fixFirst.begin(), join.fixFirst.end(),
                     [](const FixFirstItem& a, const FixFirstItem& b) { return a.costUs > b.costUs; });
    return join;
}

namespace {

Json joinJson(const RuntimeJoin& join) {
        Json frames = Json::array(), gaps = Json::array(), fixes = Json::array();
        for (const auto& f : join.frames)
            frames.push_back({{"compile_id", f.compileId}, {"function", f.function}, {"hits", f.hits},
                              {"total_us", f.totalUs}, {"eager_us", f.eagerUs}, {"compile_us", f.compileUs},
                              {"mean_us", f.hits ? f.totalUs / static_cast<double>(f.hits) : 0.0}});
        for (const auto& g : join.gaps)
            gaps.push_back({{"after", g.after}, {"before", g.before}, {"count", g.count}, {"total_us", g.totalUs},
                            {"compile_us", g.compileUs}});
        for (const auto& f : join.fixFirst)
            fixes.push_back({{"kind", f.kind}, {"what", f.what}, {"compile_ids", f.compileIds}, {"cost_us", f.costUs},
                             {"cost_basis", f.costBasis}, {"remedy", f.remedy}});
        return {{"session", join.session}, {"rank", join.rank ? Json(*join.rank) : Json(nullptr)},
                {"profile", join.profilePath}, {"compiled_frames", frames}, {"eager_gaps", gaps},
                {"fix_first", fixes}};
}

/// The Markdown of one join; `heading` is "##" alone, "###" under a session's heading.
void writeJoinMarkdown(const RuntimeJoin& join, const std::string& heading, std::ostream& out) {
    out << (join.profilePath.empty() ? "No profile: ranked by compile time.\n\n"
                                     : "Profile `" + join.profilePath + "`.\n\n");
    if (!join.profilePath.empty()) {
        out << heading << " Compiled frames\n\n| Compile id | Function | Hits | Total | Mean | Eager in it | Compiling in it |\n"
            << "|---|---|---:|---:|---:|---:|---:|\n";
        for (const auto& f : join.frames)
            out << fmt::format("| `{}` | `{}` | {} | {:.3f} ms | {:.3f} ms | {:.3f} ms | {:.3f} ms |\n", f.compileId,
                               f.function, f.hits, f.totalUs / 1e3,
                               f.hits ? f.totalUs / 1e3 / static_cast<double>(f.hits) : 0.0, f.eagerUs / 1e3,
                               f.compileUs / 1e3);
        out << "\n" << heading << " Eager time between top-level compiled calls\n\n| After | Before | Times | Eager | Compiling |\n|---|---|---:|---:|---:|\n";
        for (const auto& g : join.gaps)
            out << fmt::format("| `{}` | `{}` | {} | {:.3f} ms | {:.3f} ms |\n", g.after, g.before, g.count,
                               g.totalUs / 1e3, g.compileUs / 1e3);
        out << '\n';
    }
    out << heading << " Fix first\n\n| # | Kind | What | Compile ids | Cost | Basis | Remedy |\n|---:|---|---|---|---:|---|---|\n";
    int rank = 0;
    for (const auto& f : join.fixFirst) {
        std::string what = f.what;
        std::replace(what.begin(), what.end(), '|', '/');
        std::replace(what.begin(), what.end(), '\n', ' ');
        out << fmt::format("| {} | {} | {} | {} | {:.3f} ms | {} | {} |\n", ++rank, f.kind, what, f.compileIds,
                           f.costUs / 1e3, f.costBasis, f.remedy);
    }
    out << '\n';
}

}  // namespace

void writeRuntimeJoins(const std::vector<RuntimeJoin>& joins, ReportFormat format, const std::string& producedBy,
                       std::ostream& out) {
    if (format == ReportFormat::Json) {
        Json root = {{"format", "cwb-runtime"}, {"version", 1}, {"produced_by", producedBy}};
        Json sessions = Json::array();
        for (const RuntimeJoin& join : joins) sessions.push_back(joinJson(join));
        Json first = joins.empty() ? joinJson(RuntimeJoin{}) : sessions.front();
        for (const char* key : {"profile", "compiled_frames", "eager_gaps", "fix_first"}) root[key] = first[key];
        root["sessions"] = sessions;
        out << root.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
        return;
    }
    out << "# Runtime and what to fix first\n\nMade by `" << producedBy << "`.";
    if (joins.size() == 1) {
        out << ' ';
        writeJoinMarkdown(joins.front(), "##", out);
        return;
    }
    out << "\n\n";
    for (const RuntimeJoin& join : joins) {
        out << "## " << join.session << "\n\n";
        writeJoinMarkdown(join, "###", out);
    }
}

void writeRuntimeJoin(const RuntimeJoin& join, ReportFormat format, const std::string& producedBy, std::ostream& out) {
    writeRuntimeJoins({join}, format, producedBy, out);
}

}  // namespace traces
