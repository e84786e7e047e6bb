// CPU matrix products through both libraries (oneDNN and OpenBLAS, CWB_CPU_GEMM forcing each) against a double
// reference: float32 and bfloat16, odd shapes, transposed and strided operands, batches with a broadcast operand;
// addmm and linear with the bias in oneDNN's matmul, and the bias forms that keep the separate add.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <span>
#include <string>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/onednn_matmul.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/shape.h"
#include "tensor/worker_pool.h"

namespace eng::tensor {
namespace {

// CWB_CPU_GEMM for the life of the guard (the routing reads it on each product).
class ForceLibrary {
public:
    explicit ForceLibrary(const char* library) { setenv("CWB_CPU_GEMM", library, 1); }
    ~ForceLibrary() { unsetenv("CWB_CPU_GEMM"); }
};

// Checks out == a @ b for batches of matrices (2-D or 3-D, a's batch broadcast when it has none), in double from
// the operands' own values: |error| within `relative` of |reference| plus `absolute` of the sum of |a_ik b_kj|.
// A defined `bias` (broadcast to m x n: a row, a column, one element or a full matrix) is added to the reference
// (every batch), its magnitude counted with the terms'.
void expectProduct(const Tensor& out, const Tensor& a, const Tensor& b, double relative, double absolute, const std::string& what,
                   const Tensor& bias = Tensor()) {
    const bool batched = out.dim() == 3;
    const int64_t batch = batched ? out.size(0) : 1, m = a.size(-2), k = a.size(-1), n = b.size(-1);
    ASSERT_EQ(out.size(-2), m) << what;
    ASSERT_EQ(out.size(-1), n) << what;
    const Tensor a3 = batched ? contiguous(expand(a.dim() == 3 ? a : unsqueeze(a, 0), {batch, m, k})) : unsqueeze(a, 0);
    const Tensor b3 = batched ? contiguous(expand(b.dim() == 3 ? b : unsqueeze(b, 0), {batch, k, n})) : unsqueeze(b, 0);
    const std::vector<double> av = toDoubles(a3), bv = toDoubles(b3), ov = toDoubles(out);
    const std::vector<double> rv = bias.defined() ? toDoubles(contiguous(expand(bias, {m, n}))) : std::vector<double>(m * n, 0.0);
    int failures = 0;
    for (int64_t p = 0; p < batch; ++p)
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                double sum = rv[i * n + j], magnitude = std::abs(rv[i * n + j]);
                for (int64_t q = 0; q < k; ++q) {
                    const double term = av[(p * m + i) * k + q] * bv[(p * k + q) * n + j];
                    sum += term;
                    magnitude += std::abs(term);
                }
                const double got = ov[(p * m + i) * n + j];
                if (std::abs(got - sum) > relative * std::abs(sum) + absolute * magnitude + 1e-30 && ++failures <= 3)
                    ADD_FAILURE() << what << ": [" << p << ", " << i << ", " << j << "] = " << got << ", expected " << sum;
            }
    EXPECT_EQ(failures, 0) << what;
}

Tensor randomMatrix(const Shape& sizes, DType dtype) { return to(randn(sizes), dtype); }

// The layouts a product's operand arrives in: contiguous, transposed, rows with a gap, every other column (no unit
// stride: copied first), as (name, rows x cols view).
std::vector<std::pair<std::string, Tensor>> layouts(int64_t rows, int64_t cols, DType dtype) {
    return {{"contiguous", randomMatrix({rows, cols}, dtype)},
            {"transposed", t(randomMatrix({cols, rows}, dtype))},
            {"row gap", narrow(randomMatrix({rows, cols + 3}, dtype), 1, 2, cols)},
            {"column step", slice(randomMatrix({rows, 2 * cols}, dtype), 1, 0, std::nullopt, 2)}};
}

const char* const kLibraries[] = {"onednn", "openblas"};

// A float32 sum's rounding, relative to the sum of its terms' magnitudes (a few hundred terms at most here): a
// wrong element (a missed or doubled term, a misread stride) is off by the order of the terms themselves.
constexpr double kSumTolerance = 4e-5;

// mm of every pair of layouts of every m x k x n shape through both libraries: the result in `dtype`, within
// `relative` of its value (the output's rounding) plus the sum's tolerance.
void expectEveryLayoutsProduct(DType dtype, std::span<const std::array<int64_t, 3>> shapes, double relative) {
    for (const char* library : kLibraries) {
        ForceLibrary force(library);
        for (const auto& [m, k, n] : shapes)
            for (const auto& [aName, a] : layouts(m, k, dtype))
                for (const auto& [bName, b] : layouts(k, n, dtype)) {
                    const std::string what = fmt::format("{} {} {}x{}x{} a {} b {}", library, dtypeName(dtype), m, k, n, aName, bName);
                    const Tensor out = mm(a, b);
                    EXPECT_EQ(out.dtype(), dtype) << what;
                    expectProduct(out, a, b, relative, kSumTolerance, what);
                }
    }
}

TEST(CpuMatmul, Float32OddShapesAndLayoutsBothLibraries) {
    const std::array<int64_t, 3> shapes[] = {{1, 1, 1}, {1, 33, 7}, {33, 1, 65}, {17, 65, 1}, {7, 13, 5}, {64, 96, 80}, {129, 257, 65}};
    expectEveryLayoutsProduct(DType::Float32, shapes, 0);
}

TEST(CpuMatmul, BFloat16AgainstFloatReference) {
    // One rounding of a float32 sum (PyTorch's CPU bf16 product): within half a bfloat16 ulp (2**-8 of the value) of the exact
    // product of the bfloat16 operands, plus float32 accumulation.
    const std::array<int64_t, 3> shapes[] = {{1, 1, 1}, {1, 33, 7}, {33, 1, 65}, {17, 65, 1}, {64, 96, 80}, {130, 300, 257}};
    expectEveryLayoutsProduct(DType::BFloat16, shapes, std::ldexp(1.0, -8));
}

TEST(CpuMatmul, BatchedTransposedAndBroadcast) {
    for (DType dtype : {DType::Float32, DType::BFloat16})
        for (const char* library : kLibraries) {
            ForceLibrary force(library);
            const double relative = dtype == DType::BFloat16 ? std::ldexp(1.0, -8) : 1e-6;
            const std::string tag = fmt::format("{} {}", library, dtypeName(dtype));
            const Tensor a = randomMatrix({6, 33, 17}, dtype), b = randomMatrix({6, 17, 9}, dtype);
            expectProduct(bmm(a, b), a, b, relative, kSumTolerance, tag + " bmm");
            // Batches of transposed matrices, and the batch as the innermost dim of a permuted tensor.
            const Tensor at = transpose(randomMatrix({6, 17, 33}, dtype), 1, 2);
            const Tensor bp = permute(randomMatrix({17, 9, 6}, dtype), {2, 0, 1});
            expectProduct(bmm(at, bp), at, bp, relative, kSumTolerance, tag + " bmm transposed");
            // One matrix for every batch (a batch stride of 0), on either side.
            const Tensor shared = randomMatrix({33, 17}, dtype);
            const Tensor broadcastA = expand(unsqueeze(shared, 0), {6, 33, 17});
            expectProduct(bmm(broadcastA, b), broadcastA, b, relative, kSumTolerance, tag + " bmm broadcast a");
            const Tensor sharedB = randomMatrix({17, 9}, dtype);
            const Tensor broadcastB = expand(unsqueeze(sharedB, 0), {6, 17, 9});
            expectProduct(bmm(a, broadcastB), a, broadcastB, relative, kSumTolerance, tag + " bmm broadcast b");
            // matmul's 4-D batches (attention's scores), through one bmm.
            const Tensor q = randomMatrix({2, 3, 40, 16}, dtype), key = randomMatrix({2, 3, 40, 16}, dtype);
            const Tensor scores = matmul(q, transpose(key, -2, -1));
            expectProduct(reshape(scores, {6, 40, 40}), reshape(q, {6, 40, 16}), transpose(reshape(key, {6, 40, 16}), 1, 2), relative,
                          kSumTolerance, tag + " matmul 4-D");
        }
}

TEST(CpuMatmul, LinearAndAddmmMatchTheReference) {
    for (const char* library : kLibraries) {
        ForceLibrary force(library);
        const Tensor x = randn({5, 7, 48}), w = randn({24, 48}), bias = randn({24});
        const Tensor y = linear(x, w, bias);
        expectProduct(reshape(sub(y, bias), {35, 24}), reshape(x, {35, 48}), t(w), 1e-6, kSumTolerance, std::string(library) + " linear");
        const Tensor a = randn({9, 48});
        const Tensor z = addmm(bias, a, t(w), 0.5, 2.0);
        expectProduct(div(sub(z, mul(bias, Scalar(0.5))), Scalar(2.0)), a, t(w), 1e-6, kSumTolerance, std::string(library) + " addmm");
    }
}

TEST(CpuMatmul, BiasInTheProductOddShapesAndForms) {
    // addmm (alpha = beta = 1) and linear add a bias row in oneDNN's matmul (bfloat16: one rounding of the float32
    // sum plus bias, as PyTorch's CPU addmm); OpenBLAS's product and separate add must agree within float sums.
    const int64_t shapes[][3] = {{1, 1, 1}, {1, 33, 7}, {33, 1, 65}, {17, 65, 1}, {7, 13, 5}, {129, 257, 65}};
    for (DType dtype : {DType::Float32, DType::BFloat16})
        for (const char* library : kLibraries) {
            ForceLibrary force(library);
            const bool bf16 = dtype == DType::BFloat16;
            const double relative = bf16 ? std::ldexp(1.0, -8) : 1e-6;
            // OpenBLAS's bfloat16 product is rounded before the bias add rounds again: half an ulp of the product
            // (at most 2**-8 of the terms' magnitudes) more. oneDNN's fused bias rounds once: no allowance.
            const double tolerance = bf16 && std::string(library) == "openblas" ? kSumTolerance + std::ldexp(1.0, -8) : kSumTolerance;
            for (const auto& [m, k, n] : shapes) {
                const std::string tag = fmt::format("{} {} {}x{}x{}", library, dtypeName(dtype), m, k, n);
                const Tensor bias = randomMatrix({n}, dtype);
                for (const auto& [aName, a] : layouts(m, k, dtype)) {
                    const Tensor w = randomMatrix({n, k}, dtype);
                    const Tensor y = addmm(bias, a, t(w));
                    EXPECT_EQ(y.dtype(), dtype) << tag;
                    expectProduct(y, a, t(w), relative, tolerance, tag + " addmm a " + aName, bias);
                    expectProduct(linear(a, w, bias), a, t(w), relative, tolerance, tag + " linear a " + aName, bias);
                }
                const Tensor a = randomMatrix({m, k}, dtype), b = randomMatrix({k, n}, dtype);
                // The bias as a [1, n] row, a [n] row expanded over the rows, and a strided [n] view.
                expectProduct(addmm(unsqueeze(bias, 0), a, b), a, b, relative, tolerance, tag + " [1, n] bias", bias);
                expectProduct(addmm(expand(bias, {m, n}), a, b), a, b, relative, tolerance, tag + " expanded bias", bias);
                const Tensor strided = slice(randomMatrix({2 * n}, dtype), 0, 0, std::nullopt, 2);
                expectProduct(addmm(strided, a, b), a, b, relative, tolerance, tag + " strided bias", strided);
            }
            // Forms that keep the product and a separate add: a full [m, n] bias, a column [m, 1], one element,
            // alpha or beta not 1. Each against the reference.
            const int64_t m = 37, k = 70, n = 45;
            const std::string tag = fmt::format("{} {}", library, dtypeName(dtype));
            const Tensor a = randomMatrix({m, k}, dtype), b = randomMatrix({k, n}, dtype);
            const Tensor full = randomMatrix({m, n}, dtype), column = randomMatrix({m, 1}, dtype), one = randomMatrix({1}, dtype);
            // Unfused bfloat16 rounds the product, then the sum: the second allowance on either library.
            const double unfused = bf16 ? kSumTolerance + std::ldexp(1.0, -8) : kSumTolerance;
            expectProduct(addmm(full, a, b), a, b, relative, unfused, tag + " full bias", full);
            expectProduct(addmm(column, a, b), a, b, relative, unfused, tag + " column bias", column);
            expectProduct(addmm(one, a, b), a, b, relative, unfused, tag + " one-element bias", one);
            const Tensor row = randomMatrix({n}, dtype);
            // beta 0.5, alpha 2 (both exact in bfloat16): 2 a @ b + 0.5 row against the reference of (2 a) @ b.
            expectProduct(addmm(row, a, b, 0.5, 2.0), mul(a, Scalar(2.0)), b, relative, unfused, tag + " beta 0.5 alpha 2",
                          mul(row, Scalar(0.5)));
            expectProduct(addmm(row, a, b, 1.0, 2.0), mul(a, Scalar(2.0)), b, relative, unfused, tag + " alpha 2", row);
            expectProduct(addmm(row, a, b, 0.5, 1.0), a, b, relative, unfused, tag + " beta 0.5", mul(row, Scalar(0.5)));
            // linear on 3-D and 1-D inputs (rows folded into one matrix).
            const Tensor x = randomMatrix({3, 5, k}, dtype), w = randomMatrix({n, k}, dtype);
            const Tensor y = linear(x, w, row);
            ASSERT_EQ(y.sizes(), (Shape{3, 5, n})) << tag;
            expectProduct(reshape(y, {15, n}), reshape(x, {15, k}), t(w), relative, tolerance, tag + " linear 3-D", row);
            const Tensor v = randomMatrix({k}, dtype);
            const Tensor yv = linear(v, w, row);
            ASSERT_EQ(yv.sizes(), (Shape{n})) << tag;
            expectProduct(unsqueeze(yv, 0), unsqueeze(v, 0), t(w), relative, tolerance, tag + " linear 1-D", row);
        }
}

TEST(CpuMatmul, OneDnnBiasOverBatches) {
    if (!onednn::available()) GTEST_SKIP() << "libdnnl.so.2 not found";
    for (DType dtype : {DType::Float32, DType::BFloat16}) {
        const double relative = dtype == DType::BFloat16 ? std::ldexp(1.0, -8) : 1e-6;
        const Tensor a = randomMatrix({3, 21, 40}, dtype), b = randomMatrix({3, 40, 19}, dtype), bias = randomMatrix({19}, dtype);
        Tensor out = empty({3, 21, 19}, dtype);
        ASSERT_TRUE(onednn::matmulInto(out, a, b, bias));
        expectProduct(out, a, b, relative, kSumTolerance, fmt::format("batched bias {}", dtypeName(dtype)), bias);
        // A bias that is not one row of n: declined, nothing computed.
        EXPECT_FALSE(onednn::matmulInto(out, a, b, randomMatrix({18}, dtype)));
        EXPECT_FALSE(onednn::matmulInto(out, a, b, randomMatrix({19}, DType::Float64)));
    }
}

TEST(CpuMatmul, ThreadCountsGiveTheSameProduct) {
    // oneDNN's OpenMP team follows the worker pool's setting; one thread and all of them agree within float sums.
    const int before = workerThreadCount();
    const Tensor a = randn({200, 300}), b = randn({300, 150});
    ForceLibrary force("onednn");
    setWorkerThreadCount(1);
    const Tensor one = mm(a, b);
    setWorkerThreadCount(std::max(before, 2));
    const Tensor many = mm(a, b);
    setWorkerThreadCount(before);
    expectProduct(one, a, b, 1e-6, kSumTolerance, "one thread");
    expectProduct(many, a, b, 1e-6, kSumTolerance, "several threads");
}

TEST(CpuMatmul, OneDnnTakesPlainFloatProducts) {
    // Where libdnnl is installed (scripts/install-deps.sh), a plain float32 product is oneDNN's, not a silent
    // fallback to OpenBLAS.
    if (!onednn::available()) GTEST_SKIP() << "libdnnl.so.2 not found";
    const Tensor a = randn({64, 32}), b = randn({32, 48});
    Tensor out = empty({64, 48});
    ASSERT_TRUE(onednn::matmulInto(out, a, b));
    expectProduct(out, a, b, 1e-6, kSumTolerance, "oneDNN direct");
    Tensor batched = empty({3, 64, 48});
    const Tensor a3 = randn({3, 64, 32}), b3 = randn({3, 32, 48});
    ASSERT_TRUE(onednn::matmulInto(batched, a3, b3));
    expectProduct(batched, a3, b3, 1e-6, kSumTolerance, "oneDNN direct batched");
}

}  // namespace
}  // namespace eng::tensor
