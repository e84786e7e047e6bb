// Loads the bundled real TORCH_TRACE scenarios once per test binary and analyses them as the workbench does.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/trace_analysis.h"
#include "importers/import_path.h"

namespace viz::testing {

/// The analysis of tests/data/torch_traces/<scenario>, imported on first use and shared afterwards.
inline const TraceAnalysis& realTrace(const std::string& scenario) {
    static std::map<std::string, std::unique_ptr<TraceAnalysis>> cache;
    auto& slot = cache[scenario];
    if (!slot) {
        auto data = std::make_shared<const traces::TraceData>(
            traces::openAsTrace(std::string(CWB_TEST_DATA_DIR) + "/torch_traces/" + scenario));
        slot = std::make_unique<TraceAnalysis>(data);
    }
    return *slot;
}

inline const SessionAnalysis& onlySession(const TraceAnalysis& analysis) { return *analysis.sessions().front(); }

}  // namespace viz::testing
