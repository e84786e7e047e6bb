// The eager CUDA kernel memo: keys keep their fields apart, and a repeated launch of one op spec reaches neither
// the source generator nor the kernel compiler (the launch tests skip where no CUDA device is present).
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "cuda/nvrtc_compiler.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/reduction.h"

namespace {

using namespace eng::tensor;
using cudaops::KernelKey;

TEST(EagerKernelKey, FieldsStayApart) {
    EXPECT_NE(KernelKey(0, "ab").add("c").text(), KernelKey(0, "a").add("bc").text());
    EXPECT_NE(KernelKey(0, "pow").add(int64_t{1}).add(int64_t{2}).text(), KernelKey(0, "pow").add(int64_t{12}).text());
    EXPECT_NE(KernelKey(0, "binary").add(DType::Float32).add(DType::Int64).text(),
              KernelKey(0, "binary").add(DType::Int64).add(DType::Float32).text());
    EXPECT_NE(KernelKey(1, "copy").add(DType::Float32).text(), KernelKey(11, "copy").add(DType::Float32).text());
    EXPECT_NE(KernelKey(0, "copy").add(DType::Float32).text(), KernelKey(0, "copy").add(DType::Float16).text());
    EXPECT_EQ(KernelKey(0, "copy").add(DType::Float32).text(), KernelKey(0, "copy").add(DType::Float32).text());
}

TEST(EagerKernelMemo, RepeatedLaunchesSkipTheCompiler) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
    const Device cuda = Device::parse("cuda:0");
    const Tensor x = to(randn({8, 64}), std::nullopt, cuda);
    auto ops = [&] {
        const Tensor y = add(mul(x, Scalar(2.0)), x);
        return sum(softmax(unary(UnaryOp::Tanh, y), -1));
    };
    const Tensor first = to(ops(), std::nullopt, kCpu);
    const eng::cuda::KernelCacheStats before = eng::cuda::KernelCompiler::instance().stats();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(toDoubles(to(ops(), std::nullopt, kCpu)), toDoubles(first));
    const eng::cuda::KernelCacheStats after = eng::cuda::KernelCompiler::instance().stats();
    EXPECT_EQ(after.memoryHits, before.memoryHits);
    EXPECT_EQ(after.compiles, before.compiles);
}

}  // namespace
