// The eager CUDA kernel memo: keys keep their fields apart, and a repeated launch of one op spec reaches neither
// the source generator nor the kernel compiler (the launch tests skip where no CUDA device is present).
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "cuda/nvrtc_compiler.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_attention.h"
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

// The flash kernels an sdpa names ahead are queued once each, and the launches that follow use them: no launch
// compiles a queued kernel a second time, and the results are the kernels' own (the same on a repeated launch).
TEST(EagerKernelPrefetch, QueuesEachKernelOnceAndLaunchesTakeIt) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
    if (cudaops::prefetchLevel() < 1) GTEST_SKIP() << "CWB_EAGER_PREFETCH=0";
    const Device cuda = Device::parse("cuda:0");
    const Tensor q = to(randn({1, 2, 48, 32}), DType::BFloat16, cuda);
    // The forward and the backward's two passes, less those an earlier test of this process launched already.
    const eng::cuda::DeviceContext& context = eng::cuda::DeviceContext::get(0);
    std::vector<cudaops::EagerKernel> kernels = cudaops::flashBackwardKernels(context, DType::BFloat16, 32, true);
    kernels.push_back(cudaops::flashForwardKernel(context, DType::BFloat16, 32, true));
    int64_t fresh = 0;
    for (const cudaops::EagerKernel& kernel : kernels) fresh += cudaops::findMemoized(kernel.key) == nullptr ? 1 : 0;
    const cudaops::EagerKernelStats before = cudaops::eagerKernelStats();
    cudaops::prefetchFlashAttention(q, true);
    const cudaops::EagerKernelStats queued = cudaops::eagerKernelStats();
    EXPECT_EQ(queued.prefetched - before.prefetched, fresh);
    cudaops::prefetchFlashAttention(q, true);
    EXPECT_EQ(cudaops::eagerKernelStats().prefetched, queued.prefetched) << "queued again";
    const Tensor out = cudaops::flashAttention(q, q, q, true, 0.125);
    const Tensor grads = cudaops::flashAttentionBackward(out, q, q, q, out, true, 0.125);
    const cudaops::EagerKernelStats launched = cudaops::eagerKernelStats();
    EXPECT_EQ((launched.compiled + launched.fromPrefetch) - (queued.compiled + queued.fromPrefetch), fresh) << "one first launch per kernel";
    EXPECT_EQ(toDoubles(to(cudaops::flashAttention(q, q, q, true, 0.125), std::nullopt, kCpu)), toDoubles(to(out, std::nullopt, kCpu)));
    EXPECT_EQ(toDoubles(to(cudaops::flashAttentionBackward(out, q, q, q, out, true, 0.125), std::nullopt, kCpu)),
              toDoubles(to(grads, std::nullopt, kCpu)));
}

}  // namespace
