// TORCH_LOGS for the stages after Dynamo: the inductor's buffers before fusion and its kernels after it, and the
// output code, each line under the compile id and the artifact's name as PyTorch prints them.
#include <gtest/gtest.h>

#include <cstdlib>

#include "inductor_support.h"

namespace {

const char* kProgram =
    "import torch\n\ndef f(x):\n    return torch.sin(x) * 2 + 1\n\ng = torch.compile(f)\n\n"
    "def main():\n    x = torch.arange(8.0)\n    return [g(x), f(x)]\n";

/// The capture engine's log of one run of kProgram under TORCH_LOGS=`artifacts`.
std::string logsWith(const char* artifacts) {
    setenv("TORCH_LOGS", artifacts, 1);
    inductortest::InductorRun run = inductortest::runInductor(kProgram, "main", {});
    unsetenv("TORCH_LOGS");
    EXPECT_TRUE(run.ok) << run.error;
    return run.logs;
}

TEST(InductorTorchLogs, BuffersBeforeFusionAndKernelsAfterIt) {
    const std::string logs = logsWith("ir_pre_fusion,+ir_post_fusion");
    EXPECT_NE(logs.find("[0/0] [__ir_pre_fusion] arg0_1: Input float32[8] input 0 (l_x_)\n"
                        "[0/0] [__ir_pre_fusion] buf0: Pointwise float32[8] reads arg0_1 (sin, mul, add)\n"
                        "[0/0] [__ir_post_fusion] "),
              std::string::npos)
        << logs;
    EXPECT_NE(logs.find("[0/0] [__ir_post_fusion] # fused: sin, mul, add\n"), std::string::npos) << logs;
    EXPECT_NE(logs.find("[0/0] [__ir_post_fusion] kernel cwb_poi_fused_add_mul_sin_0("), std::string::npos) << logs;
    EXPECT_NE(logs.find("[0/0] [__ir_post_fusion]     buf0[x0] = add(mul(sin(arg0_1[x0]), 2), 1)\n"), std::string::npos) << logs;
    EXPECT_EQ(logs.find("[__output_code]"), std::string::npos) << logs;
}

TEST(InductorTorchLogs, OutputCodeOnlyWhenAsked) {
    const std::string logs = logsWith("output_code");
    EXPECT_NE(logs.find("[0/0] [__output_code] Output code: \n"), std::string::npos) << logs;
    EXPECT_EQ(logs.find("[__ir_pre_fusion]"), std::string::npos) << logs;
    EXPECT_EQ(logsWith("graph_breaks").find("[__output_code]"), std::string::npos);
}

}  // namespace
