// ChromiumSpanBuilder (see chromium_spans.h).
#include "importers/torch_trace/chromium_spans.h"

namespace traces {
namespace {

// Merges the end event's args into the begin event's: Dynamo puts most metrics on the closing `E`.
std::string mergeArgs(const std::string& begin, const std::string& end) {
    auto inner = [](const std::string& obj) {
        if (obj.size() < 2) return std::string();
        std::string body = obj.substr(1, obj.size() - 2);
        size_t first = body.find_first_not_of(" \n\t");
        return first == std::string::npos ? std::string() : body;
    };
    std::string a = inner(begin), b = inner(end);
    if (a.empty()) return end.empty() ? begin : end;
    if (b.empty()) return begin;
    return "{" + a + "," + b + "}";
}

Span makeSpan(const ChromiumEvent& e, RowId sessionId, std::optional<RowId> compileId) {
    Span s;
    s.sessionId = sessionId;
    s.compileId = compileId;
    s.compileKey = e.compileKey;
    s.name = e.name;
    s.category = e.category;
    s.startUs = e.timestampUs;
    s.threadId = e.threadId;
    s.args = e.argsJson;
    return s;
}

}  // namespace

void ChromiumSpanBuilder::add(ChromiumEvent event, RowId sessionId, std::optional<RowId> compileId) {
    switch (event.phase) {
    case 'B':
        open_[{event.threadId, event.name}].push_back(Open{std::move(event), sessionId, compileId});
        return;
    case 'E': {
        auto it = open_.find({event.threadId, event.name});
        if (it == open_.end() || it->second.empty()) {
            // An end without its begin (the log started mid-span): keep it as an instant.
            Span s = makeSpan(event, sessionId, compileId);
            s.durationUs = 0.0;
            emit_(std::move(s));
            return;
        }
        Open begin = std::move(it->second.back());
        it->second.pop_back();
        Span s = makeSpan(begin.event, begin.sessionId, begin.compileId ? begin.compileId : compileId);
        s.durationUs = event.timestampUs - begin.event.timestampUs;
        s.args = mergeArgs(begin.event.argsJson, event.argsJson);
        if (s.compileKey.empty()) s.compileKey = event.compileKey;
        emit_(std::move(s));
        return;
    }
    case 'X': {
        Span s = makeSpan(event, sessionId, compileId);
        s.durationUs = event.durationUs.value_or(0.0);
        emit_(std::move(s));
        return;
    }
    default: {
        Span s = makeSpan(event, sessionId, compileId);
        s.durationUs = 0.0;
        emit_(std::move(s));
        return;
    }
    }
}

void ChromiumSpanBuilder::finish() {
    for (auto& [key, stack] : open_) {
        for (Open& o : stack) emit_(makeSpan(o.event, o.sessionId, o.compileId));
    }
    open_.clear();
}

}  // namespace traces
