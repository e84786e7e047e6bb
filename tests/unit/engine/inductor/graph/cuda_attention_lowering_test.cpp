// scaled_dot_product_attention under the inductor on a GPU: 16-bit sdpa without mask becomes one extern call
// to the eager op (the fused flash kernel) and equals eager; float32 keeps the matmul/softmax/matmul lowering.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

namespace ev = eng::vm;

const char* kAttention = R"(import torch
import torch.nn.functional as F


def heads(x, b, s, h, d):
    return x.view(b, s, h, d).transpose(1, 2)


def attn(qkv, causal: bool):
    b, s, _ = qkv.shape
    q, k, v = qkv.chunk(3, dim=-1)
    y = F.scaled_dot_product_attention(heads(q, b, s, 4, 64), heads(k, b, s, 4, 64), heads(v, b, s, 4, 64), is_causal=causal)
    return y.transpose(1, 2).reshape(b, s, 256)


def projected(x, w):
    # The projection is computed inside the graph: q, k and v are strided views of its buffer, read in place.
    b, s, _ = x.shape
    qkv = F.linear(x, w).view(b, s, 3, 4, 64).permute(2, 0, 3, 1, 4)
    y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    return y.transpose(1, 2).reshape(b, s, 256)


def scaled(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, scale=0.25) * 2


def main(device, name):
    dtype = torch.bfloat16 if name == "bfloat16" else torch.float32
    torch.manual_seed(0)
    qkv = torch.randn(2, 77, 3 * 256, device=device, dtype=dtype)
    worst = 0.0
    for causal in (False, True):
        compiled = torch.compile(attn)(qkv, causal)
        eager = attn(qkv, causal)
        worst = max(worst, (compiled.float() - eager.float()).abs().max().item())
    q, k, v = (torch.randn(2, 3, 40, 32, device=device, dtype=dtype) for _ in range(3))
    worst = max(worst, (torch.compile(scaled)(q, k, v).float() - scaled(q, k, v).float()).abs().max().item())
    reference = attn(qkv.float(), True)
    error = (torch.compile(attn)(qkv, True).float() - reference).abs().max().item()
    x = torch.randn(2, 77, 256, device=device, dtype=dtype)
    w = torch.randn(3 * 256, 256, device=device, dtype=dtype) * 0.0625
    in_place = (torch.compile(projected)(x, w).float() - projected(x, w).float()).abs().max().item()
    return [worst, error, in_place]
)";

std::string allCode(const inductortest::InductorRun& run) {
    std::string all;
    for (const auto& c : run.events.code) all += c.source + "\n----\n";
    return all;
}

TEST(CudaAttentionLowering, BFloat16SdpaIsOneExternCallAndEqualsEager) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kAttention, "main", {ev::makeStr("cuda"), ev::makeStr("bfloat16")});
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_EQ(items.at(0).asFloat(), 0.0) << "compiled and eager run the same kernel on the same operands";
    EXPECT_LT(items.at(1).asFloat(), 3e-2) << "against float32";
    EXPECT_LT(items.at(2).asFloat(), 3e-2) << "q, k, v read in place from the projection's buffer";
    const std::string all = allCode(run);
    EXPECT_NE(all.find("extern_kernels.F.scaled_dot_product_attention("), std::string::npos) << all;
    EXPECT_EQ(all.find("cwb_red_fused"), std::string::npos) << "no softmax reduction around the fused call:\n" << all;
    // projected(): q, k and v reach the kernel as views of the projection's buffer, with no copy kernel.
    EXPECT_NE(all.find("F.scaled_dot_product_attention(reinterpret_tensor(buf0, (2, 4, 77, 64), (59136, 64, 768, 1), 0)"), std::string::npos) << all;
    EXPECT_EQ(all.find("Source Nodes: [getitem"), std::string::npos) << all;
}

TEST(CudaAttentionLowering, Float32KeepsTheMatmulSoftmaxLowering) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    inductortest::useInterpreter(false);
    auto run = inductortest::runInductor(kAttention, "main", {ev::makeStr("cuda"), ev::makeStr("float32")});
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<ev::ListObject>().items;
    EXPECT_LT(items.at(0).asFloat(), 1e-4);
    EXPECT_LT(items.at(2).asFloat(), 1e-3);
    const std::string all = allCode(run);
    EXPECT_EQ(all.find("extern_kernels.F.scaled_dot_product_attention("), std::string::npos) << all;
    EXPECT_NE(all.find("cwb_red_fused"), std::string::npos) << all;
}

}  // namespace
