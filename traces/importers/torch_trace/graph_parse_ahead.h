// Parses the FX graph texts of a log on a thread of their own while the importer goes on with the next records:
// FX graphs are about half of the importer's work on real training logs. Graphs come back in the order given.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/trace_model.h"

namespace traces {

class GraphParseAhead {
public:
    /// Graphs of more than `maxNodes` nodes keep their text and list no nodes (see parseFxGraphText). With
    /// `encodeNodes`, each graph's nodes are encoded as JSON (graphNodesToJson) and freed on the parsing thread.
    GraphParseAhead(size_t maxNodes, bool encodeNodes);
    ~GraphParseAhead();
    GraphParseAhead(const GraphParseAhead&) = delete;
    GraphParseAhead& operator=(const GraphParseAhead&) = delete;

    /// Called with each parsed graph, in the order the graphs were pushed; `tooLarge` as parseFxGraphText says.
    /// With `encodeNodes`, `graph.nodes` is empty and `nodesJson` holds them; else `nodesJson` is empty.
    using Done = std::function<void(Graph&& graph, std::string&& nodesJson, bool tooLarge)>;

    /// Queues `graph`, whose nodes are parsed from its text; hands back parsed graphs that are ready to `done`,
    /// waiting for the oldest while too much text is queued, so that memory stays flat.
    void push(Graph&& graph, const Done& done);
    /// Hands every queued graph to `done`, waiting for their parses; rethrows what a parse threw.
    void drain(const Done& done);
    bool encodesNodes() const;

private:
    struct State;
    std::unique_ptr<State> state_;
    void handBack(bool waitForAll, size_t maxQueuedBytes, const Done& done);
};

}  // namespace traces
