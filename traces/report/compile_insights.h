// What tlparse shows beyond the explain summary, derived from rows the importer keeps verbatim: cache decisions,
// symbolic shapes and fast guards per compile, one table of failed and restarted compiles, and rank divergence.
#pragma once

#include "model/trace_model.h"
#include "report/summary.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace traces {

class TraceIndex;

/// One cache lookup of a compile: `cache` is PyTorch's prefix ("fx_graph", "aotautograd") from a
/// `<cache>_cache_<result>` artifact, or "inductor" from the `inductor_compile` event's `cache_state`.
struct CacheOutcome {
    std::string cache;
    std::string result;  ///< "hit", "miss" or "bypass" (any other logged state verbatim)
    std::string reason;  ///< bypass reason, or the detailed status ("full_miss"); "" when none was logged
    int64_t line = 0;
};

/// A symbol ShapeEnv created (`create_symbol`, or `create_unbacked_symbol` for data-dependent sizes).
struct ShapeSymbol {
    std::string event;   ///< "create_symbol" or "create_unbacked_symbol"
    std::string symbol;  ///< "s0", "u0"
    std::string source;  ///< "L['x'].size()[0]"; "" for unbacked symbols
    std::string value;   ///< the hint it was created with; "" for unbacked symbols
    std::string range;   ///< value range, "[2, int_oo]"
    Stack userStack;
    int64_t line = 0;
};

/// A symbol ShapeEnv replaced by a constant (`symbolic_shape_specialization`).
struct ShapeSpecialization {
    std::string symbol;
    std::vector<std::string> sources;
    std::string value;
    std::string reason;
    Stack userStack;
    int64_t line = 0;
};

/// A guard on symbolic shapes added by the fast path (`guard_added_fast`).
struct FastGuard {
    std::string expr;
    Stack userStack;
    int64_t line = 0;
};

/// Custom ops (OpOverloads outside aten/prim/prims) the compile's graph called, from `compilation_metrics`.
/// Dynamo's check_pt2_compliant_op sorts them by `torch.Tag.pt2_compliant_tag`; a non-compliant op breaks the graph
/// only under `torch._dynamo.config.only_allow_pt2_compliant_ops`. Names are qualified, `ns::op`, sorted.
struct CustomOps {
    std::vector<std::string> compliant;     ///< `compliant_custom_ops`
    std::vector<std::string> nonCompliant;  ///< `non_compliant_ops`
    bool empty() const { return compliant.empty() && nonCompliant.empty(); }
};

struct CompileInsights {
    std::vector<CacheOutcome> caches;
    std::vector<ShapeSymbol> symbols;
    std::vector<ShapeSpecialization> specializations;
    std::vector<FastGuard> guardsAddedFast;
    CustomOps customOps;
};

/// The records of a session whose envelope named no compile id (see RecordWithoutCompileId), and their counts.
struct RecordsWithoutCompileId {
    std::vector<const RecordWithoutCompileId*> records;          ///< input order
    std::vector<std::pair<std::string, int64_t>> countsByName;  ///< "chromium_event: name" / "artifact: name"
    int64_t joinedByPayload = 0;  ///< records whose payload named a compile (chromium args.compile_id)
    int64_t withStack = 0;        ///< records that carried a context stack (tlparse's "unknown stacks")
};

/// One failed or restarted compile attempt.
struct CompileFailure {
    CompileRef compile;
    std::string kind;  ///< "failed" or "restarted"
    std::string type;  ///< the exception class of a failure ("Unsupported"), the break type of a restart
    std::string reason;
    std::string userFile;
    int userLine = 0;
};

/// One way the ranks of a trace disagree.
struct RankDivergence {
    std::string what;  ///< "compile_ids", "cache_outcomes", "graph_breaks" or "collective_schedules"
    std::vector<int> ranks;
    std::string detail;
};

/// Insights of every compile of a trace, built in one pass over its artifacts and spans.
class InsightIndex {
public:
    explicit InsightIndex(const TraceData& trace);
    const CompileInsights& compile(RowId compileId) const;

private:
    std::unordered_map<RowId, CompileInsights> byCompile_;
    CompileInsights empty_;
};

/// "non-compliant test::baz; compliant _c10d_functional::all_reduce"; "" when the compile called no custom op.
std::string customOpsText(const CustomOps& ops);

/// "fx_graph miss, aotautograd hit" (with bypass reasons); "" when the compile logged no cache decision.
std::string cacheSummaryText(const CompileInsights& insights);

/// Failed and restarted attempts of a session, in input order.
std::vector<CompileFailure> sessionFailures(const TraceIndex& index, const Session& session);

RecordsWithoutCompileId recordsWithoutCompileId(const TraceData& trace, RowId sessionId);

/// Differences between the ranks of a trace (sessions with a rank); empty for fewer than two ranks.
std::vector<RankDivergence> rankDivergence(const TraceIndex& index, const InsightIndex& insights);

}  // namespace traces
