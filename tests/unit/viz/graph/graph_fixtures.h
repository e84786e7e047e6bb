// Small FX graphs and output code shaped like the real training_cuda log, shared by the viz/graph tests.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "model/trace_model.h"

namespace viz::testing {

inline traces::GraphNode node(std::string name, std::string op, std::string target,
                              std::vector<std::string> inputs = {}, std::string shape = "[16, 64]") {
    traces::GraphNode n;
    n.name = std::move(name);
    n.op = std::move(op);
    n.target = std::move(target);
    n.inputs = std::move(inputs);
    n.shape = std::move(shape);
    n.dtype = "f32";
    return n;
}

inline traces::Graph graphOf(traces::GraphKind kind, std::vector<traces::GraphNode> nodes, traces::RowId id = 1) {
    traces::Graph graph;
    graph.id = id;
    graph.kind = kind;
    for (size_t i = 0; i < nodes.size(); ++i) nodes[i].index = static_cast<int>(i);
    graph.nodes = std::move(nodes);
    return graph;
}

inline traces::Kernel kernel(traces::RowId id, std::string name, std::vector<std::string> sourceNodes,
                             std::vector<std::string> postGradNodes) {
    traces::Kernel k;
    k.id = id;
    k.name = std::move(name);
    k.language = "triton";
    k.sourceNodes = std::move(sourceNodes);
    k.postGradNodes = std::move(postGradNodes);
    return k;
}

inline traces::OutputCode module(traces::RowId id, std::string aotId, std::vector<traces::Kernel> kernels) {
    traces::OutputCode code;
    code.id = id;
    code.source = "# AOT ID: ['" + aotId + "']\nfrom ctypes import c_void_p\n";
    for (traces::Kernel& k : kernels) k.outputCodeId = id;
    code.kernels = std::move(kernels);
    return code;
}

/// The Dynamo graph of training_cuda's first compile: linear -> gelu.
inline traces::Graph dynamoMlp() {
    return graphOf(traces::GraphKind::Dynamo,
                   {node("l_self_modules_fc1_parameters_weight_", "placeholder", "L_self_modules_fc1_parameters_weight_"),
                    node("l_self_modules_fc1_parameters_bias_", "placeholder", "L_self_modules_fc1_parameters_bias_"),
                    node("l_x_", "placeholder", "L_x_"),
                    node("linear", "call_function", "torch._C._nn.linear",
                         {"l_x_", "l_self_modules_fc1_parameters_weight_", "l_self_modules_fc1_parameters_bias_"}),
                    node("h", "call_function", "torch._C._nn.gelu", {"linear"}),
                    node("output", "output", "output", {"h"}, "")});
}

/// Its post-grad forward graph: addmm (an extern kernel) then the five pointwise ops of GELU.
inline traces::Graph postGradForward() {
    return graphOf(traces::GraphKind::PostGrad,
                   {node("primals_1", "placeholder", "primals_1"), node("primals_2", "placeholder", "primals_2"),
                    node("primals_3", "placeholder", "primals_3"),
                    node("permute", "call_function", "torch.ops.aten.permute.default", {"primals_1"}),
                    node("addmm", "call_function", "torch.ops.aten.addmm.default", {"primals_2", "primals_3", "permute"}),
                    node("mul", "call_function", "torch.ops.aten.mul.Tensor", {"addmm"}),
                    node("mul_1", "call_function", "torch.ops.aten.mul.Tensor", {"addmm"}),
                    node("erf", "call_function", "torch.ops.aten.erf.default", {"mul_1"}),
                    node("add", "call_function", "torch.ops.aten.add.Tensor", {"erf"}),
                    node("mul_2", "call_function", "torch.ops.aten.mul.Tensor", {"mul", "add"}),
                    node("output", "output", "output", {"mul_2", "primals_3", "addmm"}, "")},
                   2);
}

/// Its backward post-grad graph recomputes part of GELU under the same names (mul_1, erf, add).
inline traces::Graph postGradBackward() {
    return graphOf(traces::GraphKind::PostGrad,
                   {node("addmm", "placeholder", "addmm"), node("tangents_1", "placeholder", "tangents_1"),
                    node("mul_1", "call_function", "torch.ops.aten.mul.Tensor", {"addmm"}),
                    node("erf", "call_function", "torch.ops.aten.erf.default", {"mul_1"}),
                    node("add", "call_function", "torch.ops.aten.add.Tensor", {"erf"}),
                    node("mul_4", "call_function", "torch.ops.aten.mul.Tensor", {"add"}),
                    node("mul_9", "call_function", "torch.ops.aten.mul.Tensor", {"tangents_1", "mul_4"}),
                    node("sum_1", "call_function", "torch.ops.aten.sum.dim_IntList", {"mul_9"}),
                    node("output", "output", "output", {"sum_1"}, "")},
                   3);
}

inline std::vector<traces::OutputCode> mlpModules() {
    return {module(10, "0_forward",
                   {kernel(100, "triton_poi_fused_gelu_0", {"h"}, {"mul", "mul_1", "erf", "add", "mul_2"})}),
            module(11, "0_backward",
                   {kernel(110, "triton_per_fused_gelu_gelu_backward_sum_0", {"h", "mul_4", "mul_9", "sum_1"},
                           {"mul_1", "erf", "add", "mul_4", "mul_9", "sum_1"})})};
}

inline std::vector<const traces::OutputCode*> pointers(const std::vector<traces::OutputCode>& codes) {
    std::vector<const traces::OutputCode*> out;
    for (const traces::OutputCode& code : codes) out.push_back(&code);
    return out;
}

}  // namespace viz::testing
