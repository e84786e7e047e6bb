// Lookups between compiles, graphs, code and kernels for the views' links (see selection_links.h).
#include "core/selection_links.h"

#include <algorithm>

#include "report/trace_index.h"

namespace viz {
namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool hasNode(const traces::Graph& graph, std::string_view name) {
    return std::any_of(graph.nodes.begin(), graph.nodes.end(),
                       [&](const traces::GraphNode& node) { return node.name == name; });
}

const traces::Compile* compileOf(const traces::TraceIndex& index, std::optional<traces::RowId> compileId) {
    return compileId ? index.compileById(*compileId) : nullptr;
}

}  // namespace

CompileLinks linksOfCompile(const traces::TraceIndex& index, const traces::Compile& compile) {
    CompileLinks links;
    const traces::Compile* head = index.occurrenceHead(compile);
    links.attempts = index.attempts(*head);
    if (links.attempts.empty()) links.attempts.push_back(head);
    for (const traces::Compile* attempt : links.attempts) {
        const traces::CompileRows& rows = index.compile(attempt->id);
        links.graphs.insert(links.graphs.end(), rows.graphs.begin(), rows.graphs.end());
        if (!rows.guards.empty()) links.guards = rows.guards;
        links.outputCode.insert(links.outputCode.end(), rows.outputCode.begin(), rows.outputCode.end());
        links.graphBreaks.insert(links.graphBreaks.end(), rows.graphBreaks.begin(), rows.graphBreaks.end());
    }
    return links;
}

const traces::Graph* primaryGraph(const CompileLinks& links) {
    const traces::Graph* dynamo = nullptr;
    for (const traces::Graph* graph : links.graphs)
        if (graph->kind == traces::GraphKind::Dynamo) dynamo = graph;
    if (dynamo) return dynamo;
    return links.graphs.empty() ? nullptr : links.graphs.front();
}

std::vector<NodeRef> nodesOfKernel(const traces::TraceIndex& index, const traces::OutputCode& code,
                                   const traces::Kernel& kernel) {
    std::vector<NodeRef> nodes;
    const traces::Compile* compile = compileOf(index, kernel.compileId ? kernel.compileId : code.compileId);
    if (!compile) return nodes;
    for (const traces::Graph* graph : linksOfCompile(index, *compile).graphs) {
        bool postGrad = graph->kind == traces::GraphKind::PostGrad;
        if (!postGrad && graph->kind != traces::GraphKind::Dynamo) continue;
        for (const std::string& name : postGrad ? kernel.postGradNodes : kernel.sourceNodes)
            if (hasNode(*graph, name)) nodes.push_back({graph->id, name});
    }
    return nodes;
}

std::vector<KernelRef> kernelsOfNode(const traces::TraceIndex& index, const traces::Graph& graph, std::string_view node) {
    std::vector<KernelRef> kernels;
    const traces::Compile* compile = compileOf(index, graph.compileId);
    if (!compile) return kernels;
    bool postGrad = graph.kind == traces::GraphKind::PostGrad;
    for (const traces::OutputCode* code : linksOfCompile(index, *compile).outputCode)
        for (const traces::Kernel& kernel : code->kernels)
            if (listed(postGrad ? kernel.postGradNodes : kernel.sourceNodes, node)) kernels.push_back({code, &kernel});
    return kernels;
}

}  // namespace viz
