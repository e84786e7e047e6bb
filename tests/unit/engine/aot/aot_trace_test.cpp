// A compiled training step recorded as `cwb run --trace` records it, read back with the trace reader and analysed
// as the workbench does: the Dynamo graph, AOT Autograd's joint/forward/backward graphs, two post-grad graphs and
// two output codes per compile (TORCH_TRACE's aot_* and inductor_* records), kernels linked to post-grad nodes.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "../../traces/test_support.h"
#include "../test_programs.h"
#include "aot/aot_backend.h"
#include "capture/capture_engine.h"
#include "core/selection_links.h"
#include "core/trace_analysis.h"
#include "graph/fusion_map.h"
#include "inductor/inductor_backend.h"
#include "record/trace_recorder.h"
#include "store/trace_reader.h"

namespace {

/// Runs `script`'s main() as `cwb run --trace` does and reads the trace back (null when the script raised).
std::shared_ptr<const traces::TraceData> recordRun(const std::string& path, const std::string& script) {
    {
        std::ostringstream out;
        eng::vm::Interpreter vm(out);
        eng::capture::CaptureEngine engine(vm);
        engine.install();
        eng::inductor::installInductorBackend();
        eng::aot::installAotAutograd();
        eng::record::TraceRecorder recorder(path, {"train.py", "cwb test"});
        engine.setEventSink(&recorder);
        eng::vm::RunResult result = vm.runScript("train.py", script);
        EXPECT_TRUE(result.ok) << result.error;
        if (!result.ok) return nullptr;
        vm.call(*vm.global("main"), {});
        recorder.close();
    }
    return std::make_shared<const traces::TraceData>(traces::loadTrace(path));
}

TEST(AotTrace, TrainingStepRecordsAotGraphsAndBothPassesKernels) {
    testsupport::TempDir dir;
    auto trace = recordRun(dir.file("run.db"), enginetest::testProgram("aot/training_step_of_a_small_net.py"));
    ASSERT_TRUE(trace);
    viz::TraceAnalysis analysis(trace);
    ASSERT_EQ(trace->compiles.size(), 1u);
    const viz::CompileLinks links = viz::linksOfCompile(analysis.index(), trace->compiles.front());

    std::vector<std::string> names;
    for (const traces::Graph* graph : links.graphs) names.push_back(graph->name);
    EXPECT_EQ(names, (std::vector<std::string>{"dynamo_output_graph", "aot_joint_graph", "aot_forward_graph", "aot_backward_graph",
                                               "inductor_post_grad_graph", "inductor_post_grad_graph"}));
    const traces::Graph* forward = links.graphs.at(2);
    const traces::Graph* backward = links.graphs.at(3);
    EXPECT_EQ(forward->kind, traces::GraphKind::AotForward);
    EXPECT_EQ(backward->kind, traces::GraphKind::AotBackward);
    EXPECT_NE(forward->text.find("# AOT partition:"), std::string::npos) << forward->text;
    EXPECT_NE(forward->text.find("primals_1"), std::string::npos);
    bool tangentInput = false;
    for (const traces::GraphNode& node : backward->nodes) tangentInput = tangentInput || (node.op == "placeholder" && node.name == "tangents_1");
    EXPECT_TRUE(tangentInput);

    ASSERT_EQ(links.outputCode.size(), 2u);  // the forward's code, then the backward's
    EXPECT_NE(links.outputCode[1]->source.find("backward graph"), std::string::npos);
    for (const traces::OutputCode* code : links.outputCode) {
        ASSERT_FALSE(code->kernels.empty()) << code->source;
        for (const traces::Kernel& kernel : code->kernels) {
            // The Fusion and Code views link each kernel to the post-grad nodes it computes.
            const std::vector<viz::NodeRef> nodes = viz::nodesOfKernel(analysis.index(), *code, kernel);
            EXPECT_FALSE(nodes.empty()) << kernel.name;
        }
    }

    // Inductor's first line names each module's pass, so the two post-grad graphs are told apart as in a real log.
    EXPECT_TRUE(links.outputCode[0]->source.starts_with("# AOT ID: ['")) << links.outputCode[0]->source.substr(0, 80);
    EXPECT_NE(links.outputCode[0]->source.find("_forward']\n"), std::string::npos);
    EXPECT_TRUE(links.outputCode[1]->source.starts_with("# AOT ID: ['")) << links.outputCode[1]->source.substr(0, 80);
    EXPECT_NE(links.outputCode[1]->source.find("_backward']\n"), std::string::npos);
    EXPECT_EQ(viz::codeRoleOf(*links.outputCode[0]), viz::CodeRole::Forward);
    EXPECT_EQ(viz::codeRoleOf(*links.outputCode[1]), viz::CodeRole::Backward);
    std::vector<std::string> postGradTitles;
    for (const traces::Graph* graph : {links.graphs.at(4), links.graphs.at(5)}) {
        const viz::GraphModel model = viz::buildGraphModel(*graph);
        postGradTitles.push_back(viz::graphTitle(*graph, viz::mapNodesToKernels(model, links.outputCode)));
    }
    EXPECT_EQ(postGradTitles, (std::vector<std::string>{"post-grad forward", "post-grad backward"}));
}

TEST(AotTrace, CompiledAutogradPassIsACompileOfItsOwn) {
    testsupport::TempDir dir;
    auto trace = recordRun(dir.file("run.db"), enginetest::testProgram("aot/compiled_autograd_step.py"));
    ASSERT_TRUE(trace);
    viz::TraceAnalysis analysis(trace);
    const traces::Compile* capture = nullptr;
    const traces::Compile* compiled = nullptr;
    for (const traces::Compile& compile : trace->compiles) {
        if (compile.key.str() == "!0") capture = &compile;
        if (compile.key.str().starts_with("!0/")) compiled = &compile;
    }
    // `!0` holds the captured pass (compiled_autograd_graph), `!0/<frame>/0` Dynamo's compile of it, as in a real log.
    ASSERT_NE(capture, nullptr);
    ASSERT_NE(compiled, nullptr);
    const viz::CompileLinks captureLinks = viz::linksOfCompile(analysis.index(), *capture);
    ASSERT_EQ(captureLinks.graphs.size(), 1u);
    EXPECT_EQ(captureLinks.graphs[0]->kind, traces::GraphKind::CompiledAutograd);
    EXPECT_NE(captureLinks.graphs[0]->text.find("aot0_"), std::string::npos);
    EXPECT_EQ(compiled->status, traces::CompileStatus::Ok);
    const viz::CompileLinks links = viz::linksOfCompile(analysis.index(), *compiled);
    ASSERT_FALSE(links.graphs.empty());
    EXPECT_EQ(links.graphs[0]->name, "dynamo_output_graph");
    ASSERT_EQ(links.outputCode.size(), 1u);
    EXPECT_NE(links.outputCode[0]->source.find("_inference']"), std::string::npos);
    EXPECT_FALSE(links.outputCode[0]->kernels.empty());
}

}  // namespace
