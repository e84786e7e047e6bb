// The recompile stepper's model: for one function (a session's code object), its compile ids [0/0], [0/1], ...
// in order, each with why it happened in Dynamo's wording, its guards, the diff against the previous entry's
// guards, and its Dynamo graph. Built once per trace; the stepper only moves a cursor over it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/compile_state.h"
#include "core/guard_diff.h"
#include "report/summary.h"

namespace traces {
class TraceIndex;
}

namespace viz {

struct RecompileStep {
    traces::RowId compileId = 0;  ///< the occurrence head's Compile row
    std::vector<traces::RowId> attemptIds;  ///< every attempt's Compile row ([4/1_0], [4/1_1], ...), head first
    std::string display;          ///< "[4/1]"
    CompileState state = CompileState::Unknown;
    /// Dynamo's "Recompiling function ..." block for a recompile; for the first compile a sentence saying so.
    std::string reason;
    std::vector<traces::GuardFailureText> guardFailures;  ///< newest cache entry first, as Dynamo logs them
    std::string limitWarning;     ///< Dynamo's recompile-limit warning when this compile was refused by it
    std::vector<const traces::Guard*> guards;  ///< of the attempt that produced the cache entry
    std::vector<GuardChange> guardDiff;        ///< against the previous step's guards; empty for the first step
    GuardDiffCounts diffCounts;
    std::optional<traces::RowId> dynamoGraphId;
    std::vector<traces::RowId> graphIds;       ///< every graph of the compile id, in input order
};

/// Every compile of one function, i.e. one (session, compiled-autograd id, frame id).
struct FunctionHistory {
    traces::RowId sessionId = 0;
    std::optional<int> autogradId;
    std::optional<int> frameId;
    std::string function;
    std::string file;
    int firstLine = 0;
    std::vector<RecompileStep> steps;
    int recompiles = 0;  ///< steps after the first
    std::optional<traces::RecompileLimitStatus> recompileLimit;

    /// "by_const  programs/recompiles_cpu.py:33" for pickers.
    std::string label() const;
};

/// All functions of a session in order of their first compile; `summary` supplies Dynamo's messages.
std::vector<FunctionHistory> buildFunctionHistories(const traces::TraceIndex& index, const traces::SessionSummary& summary,
                                                    traces::RowId sessionId);

/// A cursor over the histories: which function, which step; Prev/Next stay within the function.
class RecompileStepper {
public:
    explicit RecompileStepper(const std::vector<FunctionHistory>* histories = nullptr) : histories_(histories) {}

    void reset(const std::vector<FunctionHistory>* histories);
    /// Points at the function and step of `compileId` (any attempt of it); false if it is not in any history.
    bool selectCompile(traces::RowId compileId);
    void selectFunction(size_t function);
    void selectStep(size_t step);
    bool next();
    bool previous();

    const FunctionHistory* function() const;
    const RecompileStep* step() const;
    size_t functionIndex() const { return function_; }
    size_t stepIndex() const { return step_; }
    bool hasNext() const;
    bool hasPrevious() const { return step_ > 0; }

private:
    const std::vector<FunctionHistory>* histories_ = nullptr;
    size_t function_ = 0;
    size_t step_ = 0;
};

}  // namespace viz
