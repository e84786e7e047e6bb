// Micro-benchmark (not a test) of the eager tensor runtime's CPU kernels and of one registry call, the
// per-op overhead the VM pays. Build: cmake --build build-tensor --target engine_tensor_bench
// Run: build-tensor/engine/engine_tensor_bench --benchmark_min_time=0.2 (CWB_CPU_SIMD=baseline|avx2: the loops on a
// lower instruction set than the host's best)
#include <benchmark/benchmark.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_codegen.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/linalg.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/reduction.h"
#include "tensor/registry.h"
#include "tensor/shape.h"

namespace {

using namespace eng::tensor;  // NOLINT: benchmark file, brevity over qualification

Tensor square(int64_t n) { return randn({n, n}); }

void BM_AddContiguous(benchmark::State& state) {
    const Tensor a = square(state.range(0)), b = square(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
    state.SetBytesProcessed(state.iterations() * a.numel() * 12);
}
BENCHMARK(BM_AddContiguous)->Arg(64)->Arg(1024);

void BM_MulScalarTransposed(benchmark::State& state) {
    const Tensor a = t(square(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(mul(a, 2.0));
    state.SetBytesProcessed(state.iterations() * a.numel() * 8);
}
BENCHMARK(BM_MulScalarTransposed)->Arg(1024);

void BM_Unary(benchmark::State& state, UnaryOp op) {
    const Tensor a = square(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(unary(op, a));
    state.SetItemsProcessed(state.iterations() * a.numel());
}
BENCHMARK_CAPTURE(BM_Unary, Sin, UnaryOp::Sin)->Arg(1024);
BENCHMARK_CAPTURE(BM_Unary, Tanh, UnaryOp::Tanh)->Arg(1024);
BENCHMARK_CAPTURE(BM_Unary, Sigmoid, UnaryOp::Sigmoid)->Arg(1024);

void BM_Gelu(benchmark::State& state) {
    const Tensor a = square(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(gelu(a));
    state.SetItemsProcessed(state.iterations() * a.numel());
}
BENCHMARK(BM_Gelu)->Arg(1024);

void BM_GeluTanh(benchmark::State& state) {
    const Tensor a = square(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(gelu(a, "tanh"));
    state.SetItemsProcessed(state.iterations() * a.numel());
}
BENCHMARK(BM_GeluTanh)->Arg(1024);

void BM_FloorDivideInt32(benchmark::State& state) {
    const Tensor a = to(mul(square(state.range(0)), 100.0), DType::Int32), b = full({state.range(0)}, Scalar(int64_t{7}), TensorOptions{.dtype = DType::Int32});
    for (auto _ : state) benchmark::DoNotOptimize(floorDivide(a, b));
    state.SetItemsProcessed(state.iterations() * a.numel());
}
BENCHMARK(BM_FloorDivideInt32)->Arg(1024);

void BM_MaximumInt32(benchmark::State& state) {
    const Tensor a = to(mul(square(state.range(0)), 100.0), DType::Int32), b = to(square(state.range(0)), DType::Int32);
    for (auto _ : state) benchmark::DoNotOptimize(maximum(a, b));
    state.SetBytesProcessed(state.iterations() * a.numel() * 12);
}
BENCHMARK(BM_MaximumInt32)->Arg(1024);

void BM_SumAll(benchmark::State& state) {
    const Tensor a = square(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(sum(a));
    state.SetBytesProcessed(state.iterations() * a.numel() * 4);
}
BENCHMARK(BM_SumAll)->Arg(1024);

void BM_SumDim0(benchmark::State& state) {
    const Tensor a = square(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(sum(a, std::vector<int64_t>{0}));
    state.SetBytesProcessed(state.iterations() * a.numel() * 4);
}
BENCHMARK(BM_SumDim0)->Arg(1024);

void BM_SoftmaxLastDim(benchmark::State& state) {
    const Tensor a = randn({256, state.range(0)});
    for (auto _ : state) benchmark::DoNotOptimize(softmax(a, -1));
    state.SetItemsProcessed(state.iterations() * a.numel());
}
BENCHMARK(BM_SoftmaxLastDim)->Arg(1024);

void BM_LayerNorm(benchmark::State& state) {
    const Tensor a = randn({256, state.range(0)});
    for (auto _ : state) benchmark::DoNotOptimize(layerNorm(a, {state.range(0)}));
    state.SetItemsProcessed(state.iterations() * a.numel());
}
BENCHMARK(BM_LayerNorm)->Arg(1024);

void BM_Matmul(benchmark::State& state) {
    const Tensor a = square(state.range(0)), b = square(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(matmul(a, b));
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(state.iterations()) * static_cast<double>(a.numel() * state.range(0)),
                                                   benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Matmul)->Arg(64)->Arg(512);

void BM_LinearMlpForward(benchmark::State& state) {
    // The 16_mlp_module example's shapes: Linear(32, 64) -> GELU -> Linear(64, 16) on 8 rows.
    const Tensor x = randn({8, 32}), w1 = randn({64, 32}), b1 = randn({64}), w2 = randn({16, 64}), b2 = randn({16});
    for (auto _ : state) benchmark::DoNotOptimize(linear(gelu(linear(x, w1, b1)), w2, b2));
}
BENCHMARK(BM_LinearMlpForward);

void BM_RegistryCallSmallAdd(benchmark::State& state) {
    // Per-op overhead as the VM sees it: name lookup, binding, promotion, allocation, a 4-element kernel.
    const OpRegistry& registry = OpRegistry::instance();
    const OpEntry* entry = registry.find("Tensor.__add__");
    const std::vector<Value> args = {Value(randn({4})), Value(1.0)};
    for (auto _ : state) benchmark::DoNotOptimize(registry.call(*entry, args));
}
BENCHMARK(BM_RegistryCallSmallAdd);

void BM_RegistryCallByNameWithKwargs(benchmark::State& state) {
    const OpRegistry& registry = OpRegistry::instance();
    const std::vector<Value> args = {Value(randn({4, 4}))};
    const KeywordArgs kwargs = {{"dim", Value(-1)}, {"keepdim", Value(true)}};
    for (auto _ : state) benchmark::DoNotOptimize(registry.call("Tensor.sum", args, kwargs));
}
BENCHMARK(BM_RegistryCallByNameWithKwargs);

// Host work an eager CUDA launch spends finding its kernel (no GPU needed): before the memo, the translation unit
// of `x + y` (float32) built, copied into the compiler's exact-source key and hashed for its memory cache, then
// hashed again for the device's function table (the masked key is as long); with the memo, a short key built and
// looked up (a miss here, without a device: the same hash and probe as a hit).
void BM_EagerCudaKernelBySource(benchmark::State& state) {
    const std::string arch = "sm_90";
    for (auto _ : state) {
        const cudagen::OpExpression e = cudagen::binaryExpression(BinaryOp::Add, DType::Float32);
        const cudagen::PointwiseSpec spec{"binary0", DType::Float32, {DType::Float32, DType::Float32}, DType::Float32, e.text, e.type};
        const eng::cuda::KernelSource source = cudagen::translationUnit(cudagen::pointwiseKernel(spec));
        const std::string exactKey = arch + '\n' + source.code;
        benchmark::DoNotOptimize(std::hash<std::string>{}(exactKey) ^ std::hash<std::string>{}(source.code));
    }
}
BENCHMARK(BM_EagerCudaKernelBySource);

void BM_EagerCudaKernelByKey(benchmark::State& state) {
    for (auto _ : state) {
        cudaops::KernelKey key(0, "binary");
        key.add(int64_t{0}).add(DType::Float32).add(DType::Float32).add(DType::Float32);
        benchmark::DoNotOptimize(cudaops::findMemoized(key));
    }
}
BENCHMARK(BM_EagerCudaKernelByKey);

}  // namespace

BENCHMARK_MAIN();
