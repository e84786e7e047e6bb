// How a selection in one view finds its counterparts in another: a compile's graphs, guards, code and breaks
// (over all attempts of its compile id), and kernel <-> graph node through the kernel's fused-node lists.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {
class TraceIndex;
}

namespace viz {

struct CompileLinks {
    std::vector<const traces::Compile*> attempts;  ///< head first
    std::vector<const traces::Graph*> graphs;
    std::vector<const traces::Guard*> guards;       ///< of the last attempt that has guards
    std::vector<const traces::OutputCode*> outputCode;
    std::vector<const traces::GraphBreak*> graphBreaks;
};

CompileLinks linksOfCompile(const traces::TraceIndex& index, const traces::Compile& compile);

/// The graph a compile is best shown by: its Dynamo graph (of the last attempt), else its first graph.
const traces::Graph* primaryGraph(const CompileLinks& links);

struct NodeRef {
    traces::RowId graphId = 0;
    std::string node;
};

/// The graph nodes a kernel computes: its source nodes in the compile's Dynamo graph(s) and its post-grad
/// nodes in the post-grad graph(s); only nodes that exist in those graphs.
std::vector<NodeRef> nodesOfKernel(const traces::TraceIndex& index, const traces::OutputCode& code,
                                   const traces::Kernel& kernel);

struct KernelRef {
    const traces::OutputCode* code = nullptr;
    const traces::Kernel* kernel = nullptr;
};

/// The kernels of `graph`'s compile id that computed `node` (post-grad graphs match post-grad node lists,
/// every other graph kind the source-node lists).
std::vector<KernelRef> kernelsOfNode(const traces::TraceIndex& index, const traces::Graph& graph, std::string_view node);

}  // namespace viz
