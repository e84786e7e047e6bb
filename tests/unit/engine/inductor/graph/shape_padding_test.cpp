// shape_padding's transformation (lowering_pad_mm.cpp) run on the CPU, with the padding devices widened to it for
// the test (the engine pads CUDA products only, as Inductor's can_pad): unaligned mm, bmm and addmm read zero-padded
// operands from an extern call over the padded sizes, and the result equals the unpadded product; aligned products,
// shape_padding=False and the default devices leave the product as it is. A value several nodes read, with wide
// unaligned rows, is stored with padded rows (comprehensive_padding) and read in place by kernels and products.
#include <gtest/gtest.h>

#include <sstream>

#include "inductor/compiled_graph.h"
#include "inductor/ir/kernel_launcher.h"
#include "inductor/scheduler.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"

namespace {

namespace fx = eng::fx;
namespace ev = eng::vm;
namespace ts = eng::tensor;
using eng::inductor::LoweringOptions;

/// A graph of one product, the method `op` of the first input (x.mm(y), bias.addmm(x, w)), with the eager result as
/// the node's example.
struct ProductGraph {
    fx::Graph graph;
    ev::ValueList inputs;
    ts::Tensor expected;
};

std::unique_ptr<ProductGraph> productGraph(const std::string& op, std::vector<ts::Tensor> operands, ts::Tensor expected) {
    auto g = std::make_unique<ProductGraph>();
    std::vector<fx::Arg> args;
    for (size_t i = 0; i < operands.size(); ++i) {
        g->inputs.push_back(ev::makeTensor(operands[i]));
        args.push_back(fx::Arg::ofNode(g->graph.addPlaceholder("L_x" + std::to_string(i) + "_", g->inputs.back(), "torch.Tensor")));
    }
    fx::Node* product = g->graph.addCall(fx::NodeOp::CallMethod, op, op, std::move(args), {});
    product->example = ev::makeTensor(expected);
    g->graph.setOutput({fx::Arg::ofNode(product)});
    g->expected = std::move(expected);
    return g;
}

LoweringOptions onTheCpu(bool force) {
    return {.shapePadding = true, .forceShapePad = force, .paddingDevices = {ts::DeviceType::CPU}};
}

/// Lowers, schedules and runs the graph with the reference interpreter; returns its output code notes.
std::string runAndCompare(const ProductGraph& g, const LoweringOptions& options) {
    eng::inductor::LoweredGraph lowered = eng::inductor::lowerGraph(g.graph, g.inputs, options);
    std::string notes;
    for (const std::string& note : lowered.passNotes) notes += note + "\n";
    eng::inductor::Schedule schedule = eng::inductor::scheduleGraph(lowered);
    std::vector<eng::inductor::Kernel> kernels;
    for (const auto& k : schedule.kernels) kernels.push_back(k.kernel);
    eng::inductor::CompiledGraph compiled(std::move(lowered), std::move(schedule), eng::inductor::makeInterpreterLauncher(kernels));
    std::ostringstream out;
    ev::Interpreter vm(out);
    const ev::ValueList result = compiled.run(vm, g.inputs);
    const ts::Tensor& got = result.at(0).as<ev::TensorObject>().value;
    EXPECT_EQ(got.sizes(), g.expected.sizes());
    EXPECT_TRUE(got.isContiguous()) << "the output keeps eager's layout, not the padded buffer's";
    const std::vector<double> a = ts::toDoubles(got), b = ts::toDoubles(g.expected);
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-4) << "element " << i;
    return notes;
}

TEST(ShapePadding, UnalignedMmReadsZeroPaddedOperandsAndEqualsTheProduct) {
    ts::manualSeed(1);
    const ts::Tensor a = ts::randn({5, 7}), b = ts::randn({7, 3});
    auto g = productGraph("mm", {a, b}, ts::mm(a, b));
    const std::string notes = runAndCompare(*g, onTheCpu(true));
    EXPECT_NE(notes.find("shape_padding: mm (mm) of [5, 7] @ [7, 3] padded to [8, 4] (force_shape_pad); the result is its [5, 3] slice"),
              std::string::npos)
        << notes;
    // Off, aligned, or on the engine's own devices (CUDA): the product is left alone.
    EXPECT_EQ(runAndCompare(*g, {.shapePadding = false, .forceShapePad = true, .paddingDevices = {ts::DeviceType::CPU}}), "");
    EXPECT_EQ(runAndCompare(*g, {.forceShapePad = true}), "");
    const ts::Tensor c = ts::randn({8, 4}), d = ts::randn({4, 12});
    EXPECT_EQ(runAndCompare(*productGraph("mm", {c, d}, ts::mm(c, d)), onTheCpu(true)), "");
}

TEST(ShapePadding, BmmMatmulAndAddmmPadTheirOwnDims) {
    ts::manualSeed(2);
    const ts::Tensor a = ts::randn({2, 3, 6}), b = ts::randn({2, 6, 5});
    std::string notes = runAndCompare(*productGraph("bmm", {a, b}, ts::bmm(a, b)), onTheCpu(true));
    EXPECT_NE(notes.find("bmm (bmm) of [2, 3, 6] @ [2, 6, 5] padded to [2, 4, 8]"), std::string::npos) << notes;
    notes = runAndCompare(*productGraph("matmul", {a, b}, ts::matmul(a, b)), onTheCpu(true));
    EXPECT_NE(notes.find("bmm (matmul) of"), std::string::npos) << notes;
    // An N-D input by a 2-D operand: mm of its rows, k and n padded (GPT-2's head input gradient).
    const ts::Tensor rows = ts::randn({2, 3, 6}), right = ts::randn({6, 5});
    notes = runAndCompare(*productGraph("matmul", {rows, right}, ts::matmul(rows, right)), onTheCpu(true));
    EXPECT_NE(notes.find("matmul (matmul) of [2, 3, 6] @ [6, 5] padded to [2, 3, 8]"), std::string::npos) << notes;
    const ts::Tensor x = ts::randn({3, 6}), w = ts::randn({6, 5}), bias = ts::randn({5});
    notes = runAndCompare(*productGraph("addmm", {bias, x, w}, ts::addmm(bias, x, w)), onTheCpu(true));
    EXPECT_NE(notes.find("addmm (addmm) of [3, 6] @ [6, 5] padded to [4, 8]"), std::string::npos) << notes;
}

TEST(ShapePadding, WithoutForceSmallProductsStayAndLargeOnesAreTimed) {
    ts::manualSeed(3);
    const ts::Tensor a = ts::randn({5, 7}), b = ts::randn({7, 3});
    std::string notes = runAndCompare(*productGraph("mm", {a, b}, ts::mm(a, b)), onTheCpu(false));
    EXPECT_NE(notes.find("shape_padding: mm (mm) left unpadded: not compute-bound (arithmetic intensity 1.5, below 10.0)"), std::string::npos)
        << notes;
    const ts::Tensor c = ts::randn({129, 257}), d = ts::randn({257, 65});
    notes = runAndCompare(*productGraph("mm", {c, d}, ts::mm(c, d)), onTheCpu(false));
    EXPECT_NE(notes.find("us plain, "), std::string::npos) << notes;
}

TEST(ShapePadding, AValueSeveralNodesReadIsStoredWithPaddedRows) {
    ts::manualSeed(4);
    const ts::Tensor x = ts::randn({4, 1030}), w = ts::randn({1030, 3});
    fx::Graph graph;
    const ev::ValueList inputs{ev::makeTensor(x), ev::makeTensor(w)};
    fx::Node* px = graph.addPlaceholder("L_x_", inputs[0], "torch.Tensor");
    fx::Node* pw = graph.addPlaceholder("L_w_", inputs[1], "torch.Tensor");
    const ts::Tensor squares = ts::mul(x, x);
    fx::Node* square = graph.addCall(fx::NodeOp::CallMethod, "mul", "mul", {fx::Arg::ofNode(px), fx::Arg::ofNode(px)}, {});
    square->example = ev::makeTensor(squares);
    fx::Node* product = graph.addCall(fx::NodeOp::CallMethod, "mm", "mm", {fx::Arg::ofNode(square), fx::Arg::ofNode(pw)}, {});
    product->example = ev::makeTensor(ts::mm(squares, w));
    fx::Node* fourth = graph.addCall(fx::NodeOp::CallMethod, "mul", "mul_1", {fx::Arg::ofNode(square), fx::Arg::ofNode(square)}, {});
    fourth->example = ev::makeTensor(ts::mul(squares, squares));
    graph.setOutput({fx::Arg::ofNode(product), fx::Arg::ofNode(fourth)});
    for (const bool onCpu : {true, false}) {
        eng::inductor::LoweredGraph lowered = eng::inductor::lowerGraph(graph, inputs, onCpu ? onTheCpu(false) : LoweringOptions{});
        std::string notes;
        for (const std::string& note : lowered.passNotes) notes += note + "\n";
        // float32 rows of 1030 padded to 128 bytes (1056); not on the default devices (CUDA only)
        EXPECT_EQ(notes.find("comprehensive_padding: buf0 (mul, read by several nodes) stored with rows of 1030 padded to 1056") != std::string::npos,
                  onCpu)
            << notes;
        eng::inductor::Schedule schedule = eng::inductor::scheduleGraph(lowered);
        std::vector<eng::inductor::Kernel> kernels;
        for (const auto& k : schedule.kernels) kernels.push_back(k.kernel);
        eng::inductor::CompiledGraph compiled(std::move(lowered), std::move(schedule), eng::inductor::makeInterpreterLauncher(kernels));
        std::ostringstream out;
        ev::Interpreter vm(out);
        const ev::ValueList result = compiled.run(vm, inputs);
        for (size_t i = 0; i < 2; ++i) {
            const ts::Tensor expected = (i == 0 ? product : fourth)->example.as<ev::TensorObject>().value;
            const std::vector<double> a = ts::toDoubles(result.at(i).as<ev::TensorObject>().value), b = ts::toDoubles(expected);
            ASSERT_EQ(a.size(), b.size());
            for (size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(a[k], b[k], 1e-3 * (1 + std::abs(b[k]))) << "output " << i << " element " << k;
        }
    }
}

}  // namespace
