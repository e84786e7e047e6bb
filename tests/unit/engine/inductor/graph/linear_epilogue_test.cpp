// Which cuBLASLt epilogue a linear takes from its sole reader (the programs that compile linears and replay CUDA
// graphs against eager are in tests/scripts/inductor/).
#include <gtest/gtest.h>

#include "inductor/lowering_context.h"
#include "inductor_support.h"

namespace {

using eng::fx::Arg;
using eng::fx::Node;
using eng::cuda::Epilogue;
using eng::tensor::DType;
namespace ev = eng::vm;

Node call(const std::string& target, std::vector<Arg> args, std::vector<eng::fx::KwArg> kwargs = {},
          eng::fx::NodeOp op = eng::fx::NodeOp::CallFunction) {
    Node n;
    n.op = op;
    n.name = target;
    n.target = target;
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    return n;
}

Epilogue choose(const Node& linear, bool bias, const Node* user, const Node** absorbed, DType dtype = DType::Float32) {
    return eng::inductor::lowering::chooseLinearEpilogue(linear, bias, dtype, user, absorbed);
}

TEST(LinearEpilogue, ReluAndTanhGeluReadersJoinTheBiasEpilogue) {
    Node linear = call("torch._C._nn.linear", {});
    Arg in = Arg::ofNode(&linear);
    const Node* absorbed = nullptr;
    Node relu = call("torch.relu", {in});
    EXPECT_EQ(choose(linear, true, &relu, &absorbed), Epilogue::ReluBias);
    EXPECT_EQ(absorbed, &relu);
    EXPECT_EQ(choose(linear, false, &relu, &absorbed), Epilogue::Relu);
    Node method = call("relu", {in}, {}, eng::fx::NodeOp::CallMethod);
    EXPECT_EQ(choose(linear, true, &method, &absorbed), Epilogue::ReluBias);
    Node tanhGelu = call("torch._C._nn.gelu", {in}, {{"approximate", Arg::ofConstant(ev::makeStr("tanh"))}});
    EXPECT_EQ(choose(linear, true, &tanhGelu, &absorbed), Epilogue::GeluTanhBias);
    EXPECT_EQ(absorbed, &tanhGelu);
    // A 16-bit linear: eager rounds its result before the GELU, so the GELU keeps its kernel; relu commutes with it.
    EXPECT_EQ(choose(linear, true, &tanhGelu, &absorbed, DType::BFloat16), Epilogue::Bias);
    EXPECT_EQ(absorbed, nullptr);
    EXPECT_EQ(choose(linear, true, &relu, &absorbed, DType::BFloat16), Epilogue::ReluBias);
}

TEST(LinearEpilogue, ExactGeluInPlaceReluAndOtherReadersKeepTheirKernels) {
    Node linear = call("torch._C._nn.linear", {});
    Arg in = Arg::ofNode(&linear);
    const Node* absorbed = nullptr;
    Node exact = call("torch._C._nn.gelu", {in}, {{"approximate", Arg::ofConstant(ev::makeStr("none"))}});
    EXPECT_EQ(choose(linear, true, &exact, &absorbed), Epilogue::Bias);
    EXPECT_EQ(absorbed, nullptr) << "cuBLASLt's GELU is the tanh form; exact GELU stays a pointwise kernel";
    Node plainGelu = call("torch._C._nn.gelu", {in});
    EXPECT_EQ(choose(linear, true, &plainGelu, &absorbed), Epilogue::Bias);
    Node inplace = call("torch.nn.functional.relu", {in}, {{"inplace", Arg::ofConstant(ev::Value(true))}});
    EXPECT_EQ(choose(linear, true, &inplace, &absorbed), Epilogue::Bias);
    Node relu_ = call("relu_", {in}, {}, eng::fx::NodeOp::CallMethod);
    EXPECT_EQ(choose(linear, true, &relu_, &absorbed), Epilogue::Bias);
    Node sigmoid = call("torch.sigmoid", {in});
    EXPECT_EQ(choose(linear, true, &sigmoid, &absorbed), Epilogue::Bias);
    EXPECT_EQ(choose(linear, false, nullptr, &absorbed), Epilogue::None) << "several readers: nothing to absorb";
    Node other = call("torch._C._nn.linear", {});
    Node reluOfOther = call("torch.relu", {Arg::ofNode(&other)});
    EXPECT_EQ(choose(linear, true, &reluOfOther, &absorbed), Epilogue::Bias);
}

}  // namespace
