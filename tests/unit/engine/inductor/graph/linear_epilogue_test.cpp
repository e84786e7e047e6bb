// Which cuBLASLt epilogue (CUDA) or oneDNN post-op (CPU) a linear takes from its sole reader (the programs that compile linears and replay CUDA
// graphs against eager are in tests/scripts/inductor/).
#include <gtest/gtest.h>

#include "inductor/lowering_context.h"
#include "inductor_support.h"

namespace {

using eng::fx::Arg;
using eng::fx::Node;
using eng::cuda::Epilogue;
using eng::tensor::DType;
using Activation = eng::tensor::LinearActivation;
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

// What cuBLASLt runs (the CUDA lowering's mapping of the one choice).
Epilogue choose(const Node& linear, bool bias, const Node* user, const Node** absorbed, DType dtype = DType::Float32) {
    const Activation chosen = eng::inductor::lowering::chooseLinearEpilogue(linear, dtype, eng::tensor::DeviceType::CUDA, user, absorbed);
    switch (chosen) {
        case Activation::Relu: return bias ? Epilogue::ReluBias : Epilogue::Relu;
        case Activation::GeluTanh: return bias ? Epilogue::GeluTanhBias : Epilogue::GeluTanh;
        default: EXPECT_EQ(chosen, Activation::None); return bias ? Epilogue::Bias : Epilogue::None;
    }
}

// What oneDNN's post-op applies on the CPU.
Activation chooseCpu(const Node& linear, const Node* user, const Node** absorbed, DType dtype = DType::Float32) {
    return eng::inductor::lowering::chooseLinearEpilogue(linear, dtype, eng::tensor::DeviceType::CPU, user, absorbed);
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

TEST(LinearEpilogue, OnTheCpuBothGeluFormsAndReluJoinTheOneDnnProductInEveryDtype) {
    Node linear = call("torch._C._nn.linear", {});
    Arg in = Arg::ofNode(&linear);
    const Node* absorbed = nullptr;
    Node exact = call("torch._C._nn.gelu", {in}, {{"approximate", Arg::ofConstant(ev::makeStr("none"))}});
    Node plainGelu = call("torch.nn.functional.gelu", {in});
    Node positional = call("torch._C._nn.gelu", {in, Arg::ofConstant(ev::makeStr("tanh"))});
    Node tanhGelu = call("torch._C._nn.gelu", {in}, {{"approximate", Arg::ofConstant(ev::makeStr("tanh"))}});
    Node relu = call("torch.relu", {in});
    for (DType dtype : {DType::Float32, DType::BFloat16}) {
        EXPECT_EQ(chooseCpu(linear, &exact, &absorbed, dtype), Activation::GeluErf);
        EXPECT_EQ(absorbed, &exact);
        EXPECT_EQ(chooseCpu(linear, &plainGelu, &absorbed, dtype), Activation::GeluErf) << "the default is the erf form";
        EXPECT_EQ(chooseCpu(linear, &tanhGelu, &absorbed, dtype), Activation::GeluTanh);
        EXPECT_EQ(chooseCpu(linear, &positional, &absorbed, dtype), Activation::GeluTanh);
        EXPECT_EQ(chooseCpu(linear, &relu, &absorbed, dtype), Activation::Relu);
    }
    EXPECT_EQ(eng::inductor::lowering::linearActivationName(Activation::GeluErf), "gelu");
    EXPECT_EQ(eng::inductor::lowering::linearActivationName(Activation::GeluTanh), "gelu(approximate='tanh')");
    // What is not an activation oneDNN applies, or mutates the output, or reads another value, keeps its kernel.
    Node unknown = call("torch._C._nn.gelu", {in}, {{"approximate", Arg::ofConstant(ev::makeStr("sigmoid"))}});
    Node inplace = call("torch.nn.functional.relu", {in}, {{"inplace", Arg::ofConstant(ev::Value(true))}});
    Node sigmoid = call("torch.sigmoid", {in});
    Node other = call("torch._C._nn.linear", {});
    Node geluOfOther = call("torch._C._nn.gelu", {Arg::ofNode(&other)});
    for (const Node* user : std::initializer_list<const Node*>{&unknown, &inplace, &sigmoid, &geluOfOther, nullptr}) {
        EXPECT_EQ(chooseCpu(linear, user, &absorbed), Activation::None) << (user ? user->target : "none");
        EXPECT_EQ(absorbed, nullptr);
    }
}

}  // namespace
