// Tests for the provenance panes' links: which lines of the pre-grad graph, post-grad graph and output code a
// click connects, from Inductor's node mappings (text shaped like the real GPT-2 log's) or from kernel comments;
// and on the real 12-layer GPT-2 training log when it is there (CWB_REAL_LOGS_DIR).
#include "graph/provenance.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "importers/import_path.h"

namespace viz {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

constexpr const char* kPostGrad = R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "i64[4, 256][256, 1]cuda:0"):
        # File: modeling_gpt2.py:573 in forward, code: position_ids = torch.arange(...)
        iota: "i64[256][1]cuda:0" = torch.ops.prims.iota.default(256, start = 0)
        add: "i64[256][1]cuda:0" = torch.ops.aten.add.Tensor(iota, 0);  iota = None
        return (add,))";

constexpr const char* kOutputCode = R"(# AOT ID: ['0_forward']

# kernel path: /tmp/c5ll.py
# Topologically Sorted Source Nodes: [arange, position_ids], Original ATen: [aten.arange, aten.add]
triton_poi_fused_add_arange_0 = async_compile.triton('triton_poi_fused_add_arange_0', '''
import triton
def triton_poi_fused_add_arange_0(out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
''', device_str='cuda')

class Runner:
    def call(self, args):
            # Topologically Sorted Source Nodes: [arange, position_ids], Original ATen: [aten.arange, aten.add]
            # [Provenance debug handles] triton_poi_fused_add_arange_0:1
            stream0 = get_raw_stream(0)
            triton_poi_fused_add_arange_0.run(buf0, 256, stream=stream0)
            # [Provenance debug handles] extern_kernels.addmm:6
            extern_kernels.addmm(buf11, buf9, buf10, alpha=1, beta=1, out=buf12)
            triton_poi_fused_add_arange_0.run(buf1, 256, stream=stream0))";

constexpr const char* kMappings = R"({"preToPost": {"arange": ["iota"], "position_ids": ["add"], "linear": ["addmm"]},
  "postToPre": {"iota": ["arange"], "add": ["position_ids"], "addmm": ["linear"]},
  "cppCodeToPost": {"triton_poi_fused_add_arange_0:1": ["add", "iota"], "extern_kernels.addmm:6": ["addmm"]},
  "postToCppCode": {"add": ["triton_poi_fused_add_arange_0:1"], "iota": ["triton_poi_fused_add_arange_0:1"],
                    "addmm": ["extern_kernels.addmm:6"]}, "version": 2.0})";

TEST(Provenance, FxLinesNameTheirNodes) {
    EXPECT_THAT(fxLineAnchors(kPostGrad), ElementsAre("", "", "", "iota", "add", ""));
    EXPECT_THAT(fxLineAnchors("        l_x_ = L_x_\n        return (mul,)"), ElementsAre("l_x_", ""));
}

TEST(Provenance, OutputCodeLinesNameKernelsAndCalls) {
    std::vector<std::string> anchors = outputCodeLineAnchors(kOutputCode);
    ASSERT_EQ(anchors.size(), 19u);
    EXPECT_EQ(anchors[0], "");  // the AOT id header is the module's, no kernel's
    for (size_t line = 2; line <= 8; ++line) EXPECT_EQ(anchors[line], "triton_poi_fused_add_arange_0") << line;
    EXPECT_EQ(anchors[9], "");
    EXPECT_EQ(anchors[13], "triton_poi_fused_add_arange_0:1");
    EXPECT_EQ(anchors[14], "");  // stream set-up
    EXPECT_EQ(anchors[15], "triton_poi_fused_add_arange_0:1");
    EXPECT_EQ(anchors[17], "extern_kernels.addmm:6");
    EXPECT_EQ(anchors[18], "triton_poi_fused_add_arange_0");  // a call without a handle names its kernel
}

ProvenanceModule moduleWithMappings() {
    ProvenanceModule module;
    module.mappings = parseProvenanceMappings(kMappings);
    module.fromArtifact = true;
    return module;
}

TEST(Provenance, ClickingAPreGradNodeSelectsItsPostGradNodesAndKernelCalls) {
    ProvenanceModule module = moduleWithMappings();
    ProvenanceSelection selection = module.select(ProvenancePane::Pre, "arange");
    EXPECT_THAT(selection.pre, UnorderedElementsAre("arange"));
    EXPECT_THAT(selection.post, UnorderedElementsAre("iota"));
    EXPECT_THAT(selection.code, UnorderedElementsAre("triton_poi_fused_add_arange_0:1"));
    // The call and the kernel's definition light up; the other kernel's call does not.
    EXPECT_TRUE(ProvenanceModule::lineSelected(selection, ProvenancePane::Code, "triton_poi_fused_add_arange_0:1"));
    EXPECT_TRUE(ProvenanceModule::lineSelected(selection, ProvenancePane::Code, "triton_poi_fused_add_arange_0"));
    EXPECT_FALSE(ProvenanceModule::lineSelected(selection, ProvenancePane::Code, "extern_kernels.addmm:6"));
    EXPECT_FALSE(ProvenanceModule::lineSelected(selection, ProvenancePane::Post, "add"));
}

TEST(Provenance, ClickingAKernelDefinitionSelectsEveryCallAndBack) {
    ProvenanceModule module = moduleWithMappings();
    ProvenanceSelection selection = module.select(ProvenancePane::Code, "triton_poi_fused_add_arange_0");
    EXPECT_THAT(selection.post, UnorderedElementsAre("add", "iota"));
    EXPECT_THAT(selection.pre, UnorderedElementsAre("arange", "position_ids"));
    ProvenanceSelection extern_ = module.select(ProvenancePane::Code, "extern_kernels.addmm:6");
    EXPECT_THAT(extern_.pre, UnorderedElementsAre("linear"));
    ProvenanceSelection post = module.select(ProvenancePane::Post, "add");
    EXPECT_THAT(post.pre, UnorderedElementsAre("position_ids"));
    EXPECT_THAT(post.code, UnorderedElementsAre("triton_poi_fused_add_arange_0:1"));
    EXPECT_TRUE(module.select(ProvenancePane::Pre, "").empty());
}

TEST(Provenance, MalformedMappingsAreEmpty) {
    EXPECT_TRUE(parseProvenanceMappings("{not json").empty());
    EXPECT_TRUE(parseProvenanceMappings(R"({"preToPost": 3})").empty());
    EXPECT_EQ(kernelOfCodeKey("triton_poi_fused_add_0:12"), "triton_poi_fused_add_0");
    EXPECT_EQ(kernelOfCodeKey("cpp_fused_mul_0"), "cpp_fused_mul_0");
}

TEST(Provenance, WithoutTheArtifactKernelCommentsLinkTheLines) {
    traces::TraceData trace;
    traces::Graph dynamo;
    dynamo.compileId = 7;
    dynamo.seq = 1;
    dynamo.kind = traces::GraphKind::Dynamo;
    dynamo.text = "        sin = torch.sin(l_x_)";
    traces::Graph post;
    post.compileId = 7;
    post.seq = 2;
    post.kind = traces::GraphKind::PostGrad;
    post.name = "inductor_post_grad_graph";
    post.text = "        sin: \"f32[8]\" = torch.ops.aten.sin.default(arg0_1)";
    traces::OutputCode code;
    code.compileId = 7;
    code.seq = 3;
    code.source = "cpp_fused_sin_0 = async_compile.cpp_pybinding(['float*'], '''\nvoid kernel() {}\n''')\n    cpp_fused_sin_0(buf0)";
    traces::Kernel kernel;
    kernel.name = "cpp_fused_sin_0";
    kernel.sourceNodes = {"sin"};
    kernel.postGradNodes = {"sin"};
    code.kernels.push_back(kernel);
    trace.graphs = {dynamo, post};
    trace.outputCode.push_back(code);
    std::vector<ProvenanceModule> modules = provenanceModulesOf(trace, {7});
    ASSERT_EQ(modules.size(), 1u);
    const ProvenanceModule& module = modules[0];
    EXPECT_FALSE(module.fromArtifact);
    EXPECT_EQ(module.pre.title, "Dynamo graph");
    EXPECT_THAT(module.code.anchors, ElementsAre("cpp_fused_sin_0", "cpp_fused_sin_0", "cpp_fused_sin_0", ""));
    ProvenanceSelection selection = module.select(ProvenancePane::Pre, "sin");
    EXPECT_THAT(selection.code, UnorderedElementsAre("cpp_fused_sin_0"));
    EXPECT_TRUE(ProvenanceModule::lineSelected(selection, ProvenancePane::Code, "cpp_fused_sin_0"));
    EXPECT_TRUE(provenanceModulesOf(trace, {8}).empty());
}

TEST(Provenance, RealGpt2TrainingStepHasForwardAndBackwardModulesFromItsArtifacts) {
    std::string dir = std::string(CWB_REAL_LOGS_DIR) + "/gpt2_train_cuda/log";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no real logs at " CWB_REAL_LOGS_DIR;
    traces::TraceData trace = traces::openAsTrace(dir);
    std::optional<traces::RowId> biggest;
    size_t most = 0;
    for (const traces::Graph& graph : trace.graphs)
        if (graph.kind == traces::GraphKind::Dynamo && graph.nodes.size() > most) {
            most = graph.nodes.size();
            biggest = graph.compileId;
        }
    ASSERT_TRUE(biggest);
    std::vector<ProvenanceModule> modules = provenanceModulesOf(trace, {*biggest});
    ASSERT_EQ(modules.size(), 2u);
    EXPECT_EQ(modules[0].title, "forward");
    EXPECT_EQ(modules[1].title, "backward");
    // torch 2.11 writes the backward's record with no mappings in it: its links come from the kernels' comments.
    EXPECT_TRUE(modules[0].fromArtifact);
    EXPECT_FALSE(modules[1].fromArtifact);
    EXPECT_FALSE(modules[1].mappings.codeToPost.empty());
    for (const ProvenanceModule& module : modules) {
        EXPECT_EQ(module.pre.title, "pre-grad graph");
        EXPECT_FALSE(module.post.text.empty());
    }
    // The forward's position ids: pre-grad `arange` is post-grad `iota`, computed by the first Triton kernel,
    // whose call and definition both light up.
    ProvenanceSelection selection = modules[0].select(ProvenancePane::Pre, "arange");
    EXPECT_TRUE(selection.post.count("iota"));
    EXPECT_TRUE(selection.code.count("triton_poi_fused_add_arange_0:1"));
    size_t lit = 0;
    for (const std::string& anchor : modules[0].code.anchors)
        lit += ProvenanceModule::lineSelected(selection, ProvenancePane::Code, anchor);
    EXPECT_GT(lit, 10u);
}

}  // namespace
}  // namespace viz
