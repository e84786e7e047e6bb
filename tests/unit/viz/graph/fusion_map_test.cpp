// Tests for node -> kernel matching: Inductor's fusion comments, module choice by role, kernel-name guesses.
#include "graph/fusion_map.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph_fixtures.h"
#include "parse/output_code.h"

namespace viz {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string kernelNameOf(const FusionMap& map, const GraphModel& model, std::string_view node) {
    int kernel = map.kernelOf(model.findNode(node));
    return kernel < 0 ? std::string() : map.kernels[static_cast<size_t>(kernel)].name;
}

TEST(FusionMap, RolesFromTheAotIdHeader) {
    EXPECT_EQ(codeRoleOf(testing::module(1, "0_forward", {})), CodeRole::Forward);
    EXPECT_EQ(codeRoleOf(testing::module(1, "3_backward", {})), CodeRole::Backward);
    EXPECT_EQ(codeRoleOf(testing::module(1, "0_inference", {})), CodeRole::Inference);
    traces::OutputCode aoti;
    aoti.source = "#include <torch/csrc/inductor/aoti_runtime/interface.h>\n";
    EXPECT_EQ(codeRoleOf(aoti), CodeRole::Unknown);
}

TEST(FusionMap, DynamoGraphsMatchSourceNodesForwardFirst) {
    GraphModel model = buildGraphModel(testing::dynamoMlp());
    std::vector<traces::OutputCode> codes = testing::mlpModules();
    std::reverse(codes.begin(), codes.end());  // backward first in the trace: the forward kernel still wins
    FusionMap map = mapNodesToKernels(model, testing::pointers(codes));
    EXPECT_EQ(map.match, KernelMatch::SourceNodes);
    EXPECT_EQ(kernelNameOf(map, model, "h"), "triton_poi_fused_gelu_0");
    // h is also recomputed by the backward kernel; that one is listed second.
    ASSERT_EQ(map.kernelsOfNode[4].size(), 2u);
    EXPECT_EQ(map.kernels[static_cast<size_t>(map.kernelsOfNode[4][1])].role, CodeRole::Backward);
    EXPECT_EQ(map.kernelOf(model.findNode("linear")), -1);  // addmm is an extern kernel: no fused kernel
    EXPECT_EQ(map.findKernel(100), map.kernelOf(4));
    EXPECT_EQ(map.findKernel(999), -1);
}

TEST(FusionMap, PostGradGraphsPickTheModuleThatComputesThem) {
    std::vector<traces::OutputCode> codes = testing::mlpModules();
    GraphModel forward = buildGraphModel(testing::postGradForward());
    FusionMap forwardMap = mapNodesToKernels(forward, testing::pointers(codes));
    EXPECT_EQ(forwardMap.match, KernelMatch::PostGradNodes);
    ASSERT_EQ(forwardMap.kernels.size(), 1u);
    EXPECT_EQ(forwardMap.kernels[0].name, "triton_poi_fused_gelu_0");
    EXPECT_EQ(forwardMap.kernels[0].outputCodeId, 10);
    EXPECT_THAT(forwardMap.kernels[0].nodes, ElementsAre(5, 6, 7, 8, 9));
    EXPECT_EQ(forwardMap.kernelOf(forward.findNode("addmm")), -1);

    // The backward graph shares mul_1/erf/add with the forward one, but the backward module names more of it.
    GraphModel backward = buildGraphModel(testing::postGradBackward());
    FusionMap backwardMap = mapNodesToKernels(backward, testing::pointers(codes));
    ASSERT_EQ(backwardMap.kernels.size(), 1u);
    EXPECT_EQ(backwardMap.kernels[0].name, "triton_per_fused_gelu_gelu_backward_sum_0");
    EXPECT_EQ(backwardMap.kernels[0].role, CodeRole::Backward);
    EXPECT_EQ(kernelNameOf(backwardMap, backward, "erf"), "triton_per_fused_gelu_gelu_backward_sum_0");
}

TEST(FusionMap, AotBackwardPrefersTheBackwardModuleOnATie) {
    traces::Graph graph = testing::graphOf(traces::GraphKind::AotBackward,
                                           {testing::node("x", "placeholder", "x"),
                                            testing::node("mul_1", "call_function", "torch.ops.aten.mul.Tensor", {"x"})});
    std::vector<traces::OutputCode> codes{
        testing::module(1, "0_forward", {testing::kernel(1, "triton_poi_fused_mul_0", {}, {"mul_1"})}),
        testing::module(2, "0_backward", {testing::kernel(2, "triton_poi_fused_mul_1", {}, {"mul_1"})})};
    GraphModel model = buildGraphModel(graph);
    EXPECT_EQ(kernelNameOf(mapNodesToKernels(model, testing::pointers(codes)), model, "mul_1"), "triton_poi_fused_mul_1");
}

// The call() body of a 12-layer GPT-2 training log's forward wrapper (torch 2.11, H100), cut to the causal-mask
// kernel and the attention it feeds. The mask kernel's Source Nodes end with attn_output, the sdpa node, because
// the mask's expand comes from sdpa's decomposition; the attention itself is the extern cudnn call after it.
constexpr const char* kGpt2AttentionCalls = R"(    def call(self, args):
            buf15 = empty_strided_cuda((4, 1, 256, 256), (65536, 65536, 256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [arange, position_ids, position_ids_1, q_indices, kv_indices, attention_mask, attention_mask_1, attn_output], Original ATen: [aten.arange, aten.add, aten.unsqueeze, aten.le, aten.expand, aten.scalar_tensor, aten.where]
            # [Provenance debug handles] triton_poi_fused_add_arange_expand_le_scalar_tensor_unsqueeze_where_6:9
            stream0 = get_raw_stream(0)
            triton_poi_fused_add_arange_expand_le_scalar_tensor_unsqueeze_where_6.run(buf0, buf15, 262144, stream=stream0)
            # Topologically Sorted Source Nodes: [x_1, split, view_5, query_states_1, attn_output], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] torch.ops.aten._scaled_dot_product_cudnn_attention.default:10
            buf16 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(reinterpret_tensor(buf12, (4, 12, 256, 64), (589824, 64, 2304, 1), 0), buf13, buf14, buf15, True, 0.1, scale=0.125)
)";

TEST(FusionMap, ANodeAnExternCallComputesIsNotInTheKernelThatPreparedItsInput) {
    const std::string mask = "triton_poi_fused_add_arange_expand_le_scalar_tensor_unsqueeze_where_6";
    traces::OutputCode code = testing::module(
        1, "0_forward",
        {testing::kernel(7, mask,
                         {"arange", "position_ids", "position_ids_1", "q_indices", "kv_indices", "attention_mask",
                          "attention_mask_1", "attn_output"},
                         {})});
    code.source += kGpt2AttentionCalls;
    std::vector<traces::AnnotatedCall> calls = traces::annotatedCalls(code.source, code.kernels);
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].callee, mask);
    EXPECT_TRUE(calls[0].generatedKernel);
    EXPECT_EQ(calls[1].callee, "torch.ops.aten._scaled_dot_product_cudnn_attention.default");
    EXPECT_FALSE(calls[1].generatedKernel);
    EXPECT_EQ(calls[1].sourceNodes.back(), "attn_output");

    traces::Graph graph = testing::graphOf(
        traces::GraphKind::Dynamo,
        {testing::node("attention_mask_1", "call_function", "torch.where"),
         testing::node("query_states_1", "placeholder", "query_states_1"),
         testing::node("attn_output", "call_function", "torch._C._nn.scaled_dot_product_attention",
                       {"query_states_1", "attention_mask_1"})});
    GraphModel model = buildGraphModel(graph);
    FusionMap map = mapNodesToKernels(model, {&code});
    EXPECT_EQ(kernelNameOf(map, model, "attention_mask_1"), mask);
    EXPECT_EQ(map.kernelOf(model.findNode("attn_output")), -1);  // the cudnn attention computes it
}

TEST(FusionMap, FusedOpsFromKernelNames) {
    EXPECT_EQ(fusedOpsOf("cpp_fused_mul_sin_0"), "_mul_sin_");
    EXPECT_EQ(fusedOpsOf("triton_per_fused_native_layer_norm_12"), "_native_layer_norm_");
    EXPECT_EQ(fusedOpsOf("cpp_fused__softmax_1"), "__softmax_");
    EXPECT_EQ(fusedOpsOf("kernel"), "");
    EXPECT_EQ(fusedOpsOf("cpp_fused_0"), "");
}

TEST(FusionMap, CppKernelsWithoutCommentsAreGuessedFromTheirNames) {
    // breaks_cpu: y = sin(x) * 2 and later z = cos(x) + 1, each its own cpp kernel, no fusion comments.
    traces::Graph graph = testing::graphOf(
        traces::GraphKind::Dynamo,
        {testing::node("l_x_", "placeholder", "L_x_"), testing::node("sin", "call_function", "torch.sin", {"l_x_"}),
         testing::node("mul", "call_function", "operator.mul", {"sin"}),
         testing::node("mul_1", "call_function", "operator.mul", {"mul"}),
         testing::node("cos", "call_function", "torch.cos", {"mul_1"}),
         testing::node("add", "call_function", "operator.add", {"cos"}),
         testing::node("output", "output", "output", {"add"}, "")});
    traces::OutputCode code = testing::module(
        5, "0_inference",
        {testing::kernel(50, "cpp_fused_mul_sin_0", {}, {}), testing::kernel(51, "cpp_fused_add_cos_1", {}, {})});
    GraphModel model = buildGraphModel(graph);
    FusionMap map = mapNodesToKernels(model, {&code});
    EXPECT_EQ(map.match, KernelMatch::KernelName);
    EXPECT_EQ(kernelNameOf(map, model, "sin"), "cpp_fused_mul_sin_0");
    EXPECT_EQ(kernelNameOf(map, model, "mul"), "cpp_fused_mul_sin_0");
    EXPECT_EQ(kernelNameOf(map, model, "mul_1"), "cpp_fused_mul_sin_0");  // grown along the chain of muls
    EXPECT_EQ(kernelNameOf(map, model, "cos"), "cpp_fused_add_cos_1");
    EXPECT_EQ(kernelNameOf(map, model, "add"), "cpp_fused_add_cos_1");
    EXPECT_EQ(map.kernelOf(model.findNode("l_x_")), -1);
}

TEST(FusionMap, NothingToMatch) {
    GraphModel model = buildGraphModel(testing::dynamoMlp());
    FusionMap map = mapNodesToKernels(model, {});
    EXPECT_EQ(map.match, KernelMatch::None);
    EXPECT_THAT(map.kernels, IsEmpty());
    EXPECT_EQ(map.kernelsOfNode.size(), model.nodes.size());
    EXPECT_EQ(map.kernelOf(-1), -1);
    EXPECT_EQ(map.kernelOf(100), -1);
}

TEST(FusionMap, ProvenanceRecordsMapEveryCallOfAKernel) {
    // Two layers call one kernel; its comment names the first call's nodes only, the provenance record both.
    traces::Graph graph = testing::graphOf(
        traces::GraphKind::PostGrad,
        {testing::node("primals_1", "placeholder", "primals_1"),
         testing::node("mul", "call_function", "torch.ops.aten.mul.Tensor", {"primals_1"}),
         testing::node("mul_1", "call_function", "torch.ops.aten.mul.Tensor", {"mul"}),
         testing::node("output", "output", "output", {"mul_1"}, "")});
    GraphModel model = buildGraphModel(graph);
    std::vector<traces::OutputCode> codes{testing::module(10, "0_forward", {testing::kernel(100, "triton_poi_fused_mul_0", {}, {"mul"})})};
    EXPECT_EQ(mapNodesToKernels(model, testing::pointers(codes)).kernelOf(model.findNode("mul_1")), -1);
    KernelCallNodes calls = kernelCallNodesOf(
        R"({"preToPost": {}, "cppCodeToPost": {"triton_poi_fused_mul_0:1": ["mul"], "triton_poi_fused_mul_0:2": ["mul_1"],
            "extern_kernels.mm:3": ["mm"]}, "version": 2.0})");
    EXPECT_THAT(calls["triton_poi_fused_mul_0"], ElementsAre("mul", "mul_1"));
    FusionMap map = mapNodesToKernels(model, testing::pointers(codes), {calls});
    EXPECT_EQ(map.kernelOf(model.findNode("mul")), 0);
    EXPECT_EQ(map.kernelOf(model.findNode("mul_1")), 0);
    EXPECT_TRUE(kernelCallNodesOf("not json").empty());
    EXPECT_TRUE(kernelCallNodesOf(R"({"version": 2.0})").empty());
}

// torchvision ResNet-18's training forward (torch 2.11, H100): Inductor copies each convolution weight and the
// image to channels-last in kernels of its own, whose comments name no node ("# Unsorted Source Nodes: []").
// They map to the graph inputs their calls read, not to nothing.
TEST(FusionMap, LayoutCopyKernelsMapToTheInputsTheirCallsRead) {
    traces::Graph graph = testing::graphOf(
        traces::GraphKind::PostGrad,
        {testing::node("primals_1", "placeholder", "primals_1"), testing::node("primals_2", "placeholder", "primals_2"),
         testing::node("primals_8", "placeholder", "primals_8"), testing::node("primals_14", "placeholder", "primals_14"),
         testing::node("convolution", "call_function", "torch.ops.aten.convolution.default", {"primals_2", "primals_1"}),
         testing::node("relu", "call_function", "torch.ops.aten.relu.default", {"convolution"}),
         testing::node("output", "output", "output", {"relu"}, "")});
    graph.name = "inductor_post_grad_graph";
    GraphModel model = buildGraphModel(graph);
    traces::OutputCode code = testing::module(
        10, "0_forward",
        {testing::kernel(100, "triton_poi_fused_0", {}, {}), testing::kernel(101, "triton_poi_fused_2", {}, {}),
         testing::kernel(102, "triton_poi_fused_relu_3", {"relu"}, {"relu"})});
    code.source += R"(    def call(self, args):
        with torch.cuda._DeviceGuard(0):
            buf0 = empty_strided_cuda((64, 3, 7, 7), (147, 1, 21, 3), torch.float32)
            # Unsorted Source Nodes: [], Original ATen: []
            stream0 = get_raw_stream(0)
            triton_poi_fused_0.run(primals_1, buf0, 192, 49, stream=stream0)
            del primals_1
            # Unsorted Source Nodes: [], Original ATen: []
            triton_poi_fused_2.run(primals_8, buf2, 4096, 9, stream=stream0)
            # Unsorted Source Nodes: [], Original ATen: []
            triton_poi_fused_2.run(primals_14, buf3, 4096, 9, stream=stream0)
            buf4 = extern_kernels.convolution(buf1, buf0, stride=(2, 2), padding=(3, 3))
            # Topologically Sorted Source Nodes: [relu], Original ATen: [aten.relu]
            triton_poi_fused_relu_3.run(buf4, 802816, stream=stream0)
)";
    FusionMap map = mapNodesToKernels(model, {&code});
    ASSERT_EQ(map.kernels.size(), 3u);
    EXPECT_EQ(kernelNameOf(map, model, "primals_1"), "triton_poi_fused_0");
    EXPECT_EQ(kernelNameOf(map, model, "primals_14"), "triton_poi_fused_2");
    EXPECT_EQ(kernelNameOf(map, model, "relu"), "triton_poi_fused_relu_3");
    EXPECT_EQ(map.kernelOf(model.findNode("primals_2")), -1);  // no call reads it
    const FusionKernel& copies = map.kernels[static_cast<size_t>(map.findKernel(101))];
    EXPECT_TRUE(copies.copiesInputs);
    EXPECT_THAT(copies.nodes, ElementsAre(model.findNode("primals_8"), model.findNode("primals_14")));
    EXPECT_FALSE(map.kernels[static_cast<size_t>(map.findKernel(102))].copiesInputs);
}

}  // namespace
}  // namespace viz
