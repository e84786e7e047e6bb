// Turns `chromium_event` payloads (Chrome trace events: B/E pairs, instants, complete events) into Spans.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/trace_model.h"

namespace traces {

/// One decoded Chrome trace event.
struct ChromiumEvent {
    std::string name;
    std::string category;
    char phase = 'i';           ///< B, E, X, i/I
    double timestampUs = 0;
    std::optional<double> durationUs;  ///< for X events
    int64_t threadId = 0;
    std::string argsJson;       ///< "{...}" or empty
    std::string compileKey;     ///< args.compile_id when present
};

/// Pairs B/E events per (thread, name) with proper nesting and emits finished spans through `emit`.
class ChromiumSpanBuilder {
public:
    using Emit = std::function<void(Span)>;
    explicit ChromiumSpanBuilder(Emit emit) : emit_(std::move(emit)) {}

    void add(ChromiumEvent event, RowId sessionId, std::optional<RowId> compileId);
    /// Emits every begin event that never ended, with no duration (a crash or a cut log).
    void finish();

private:
    struct Open {
        ChromiumEvent event;
        RowId sessionId;
        std::optional<RowId> compileId;
    };
    Emit emit_;
    std::map<std::pair<int64_t, std::string>, std::vector<Open>> open_;
};

}  // namespace traces
