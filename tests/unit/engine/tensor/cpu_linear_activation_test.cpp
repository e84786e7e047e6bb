// The activation of a CPU linear applied inside oneDNN's matmul (eltwise relu / gelu_tanh / gelu_erf post-ops):
// against a double reference of activation(a @ b + bias), float32 and bfloat16 with one rounding, and
// linearWithActivation (what a compiled linear + activation calls) against eager's linear and then the activation.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/onednn_matmul.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/shape.h"

namespace eng::tensor {
namespace {

double activate(double x, LinearActivation activation) {
    constexpr double kPi = 3.14159265358979323846;
    switch (activation) {
        case LinearActivation::Relu: return x > 0 ? x : 0.0;
        case LinearActivation::GeluErf: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        case LinearActivation::GeluTanh: return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x)));
        case LinearActivation::None: break;
    }
    return x;
}

const char* nameOf(LinearActivation activation) {
    switch (activation) {
        case LinearActivation::Relu: return "relu";
        case LinearActivation::GeluErf: return "gelu erf";
        case LinearActivation::GeluTanh: return "gelu tanh";
        case LinearActivation::None: break;
    }
    return "none";
}

Tensor applyEagerly(const Tensor& y, LinearActivation activation) {
    switch (activation) {
        case LinearActivation::Relu: return unary(UnaryOp::Relu, y);
        case LinearActivation::GeluErf: return gelu(y, "none");
        case LinearActivation::GeluTanh: return gelu(y, "tanh");
        case LinearActivation::None: break;
    }
    return y;
}

// Counts the elements of out (m x n) farther from activation(a @ b + bias), computed in double from the operands'
// own values, than `relative` of the reference plus `absolute` of the sum of the terms' magnitudes.
int mismatches(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, LinearActivation activation, double relative,
               double absolute, const std::string& what) {
    const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
    const std::vector<double> av = toDoubles(contiguous(a)), bv = toDoubles(contiguous(b)), ov = toDoubles(out);
    const std::vector<double> rv = bias.defined() ? toDoubles(bias) : std::vector<double>(n, 0.0);
    int failures = 0;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double sum = rv[j], magnitude = std::abs(rv[j]);
            for (int64_t q = 0; q < k; ++q) {
                sum += av[i * k + q] * bv[q * n + j];
                magnitude += std::abs(av[i * k + q] * bv[q * n + j]);
            }
            const double want = activate(sum, activation), got = ov[i * n + j];
            if (std::abs(got - want) > relative * std::abs(want) + absolute * magnitude && ++failures <= 3 && !what.empty())
                ADD_FAILURE() << what << ": [" << i << ", " << j << "] = " << got << ", expected " << want << " (before the activation " << sum << ")";
        }
    return failures;
}

// Operands whose sums spread over [-4, 4], where the two GELU forms differ by up to 5e-4 and relu cuts half.
struct Operands {
    Tensor a, b, bias;
};
Operands operands(DType dtype) {
    return {to(randn({37, 64}), dtype), to(mul(randn({64, 29}), Scalar(0.15)), dtype), to(randn({29}), dtype)};
}

const LinearActivation kActivations[] = {LinearActivation::Relu, LinearActivation::GeluErf, LinearActivation::GeluTanh};

TEST(CpuLinearActivation, OneDnnPostOpAgainstReference) {
    if (!onednn::available()) GTEST_SKIP() << "libdnnl.so.2 not found";
    for (DType dtype : {DType::Float32, DType::BFloat16}) {
        const Operands op = operands(dtype);
        // float32: the product's sum and the GELU's own rounding; bfloat16: one rounding (half an ulp, at most 2**-8 of
        // the value) of the float32 result after the activation.
        const double relative = dtype == DType::BFloat16 ? std::ldexp(1.0, -8) : 1e-6;
        const double absolute = 1e-6;
        for (LinearActivation activation : kActivations)
            for (bool withBias : {true, false}) {
                const std::string what = fmt::format("{} {} bias {}", dtypeName(dtype), nameOf(activation), withBias);
                const Tensor bias = withBias ? op.bias : Tensor();
                Tensor out = empty({37, 29}, dtype);
                ASSERT_TRUE(onednn::matmulInto(out, op.a, op.b, bias, activation)) << what;
                EXPECT_EQ(mismatches(out, op.a, op.b, bias, activation, relative, absolute, what), 0) << what;
            }
    }
}

TEST(CpuLinearActivation, TheReferenceTellsTheActivationsAndTheBiasApart) {
    // The check above fails on a wrong post-op: the other GELU form, relu for GELU, or a bias left out.
    if (!onednn::available()) GTEST_SKIP() << "libdnnl.so.2 not found";
    const Operands op = operands(DType::Float32);
    Tensor tanhForm = empty({37, 29}), exact = empty({37, 29}), noBias = empty({37, 29});
    ASSERT_TRUE(onednn::matmulInto(tanhForm, op.a, op.b, op.bias, LinearActivation::GeluTanh));
    ASSERT_TRUE(onednn::matmulInto(exact, op.a, op.b, op.bias, LinearActivation::GeluErf));
    ASSERT_TRUE(onednn::matmulInto(noBias, op.a, op.b, Tensor(), LinearActivation::GeluErf));
    EXPECT_GT(mismatches(tanhForm, op.a, op.b, op.bias, LinearActivation::GeluErf, 1e-6, 1e-6, ""), 10);
    EXPECT_GT(mismatches(exact, op.a, op.b, op.bias, LinearActivation::GeluTanh, 1e-6, 1e-6, ""), 10);
    EXPECT_GT(mismatches(exact, op.a, op.b, op.bias, LinearActivation::Relu, 1e-6, 1e-6, ""), 10);
    EXPECT_GT(mismatches(noBias, op.a, op.b, op.bias, LinearActivation::GeluErf, 1e-6, 1e-6, ""), 10);
}

TEST(CpuLinearActivation, LinearWithActivationEqualsEagerLinearThenActivation) {
    // What a compiled linear with its reader absorbed calls, on 3-D, 2-D and 1-D inputs, with and without a bias:
    // float32 within the GELU's own rounding of eager; bfloat16 within an ulp of the result plus one of the linear's
    // result (eager rounds it before the activation, which moves the result by up to 1.13 times that rounding).
    // 270 x 256 @ 256 x 96 is enough work for a float32 product to be oneDNN's; the 1-D input's is not (OpenBLAS,
    // then the activation's own pass).
    if (onednn::available()) {
        EXPECT_TRUE(cpuActivationFusesInProduct(DType::Float32, 270, 96, 256));
        EXPECT_FALSE(cpuActivationFusesInProduct(DType::Float32, 1, 96, 256));
    }
    for (DType dtype : {DType::Float32, DType::BFloat16})
        for (const Shape& shape : {Shape{3, 90, 256}, Shape{270, 256}, Shape{256}})
            for (LinearActivation activation : kActivations)
                for (bool withBias : {true, false}) {
                    const std::string what = fmt::format("{} {} {} bias {}", dtypeName(dtype), fmt::join(shape, "x"), nameOf(activation), withBias);
                    const Tensor x = to(randn(shape), dtype), w = to(mul(randn({96, 256}), Scalar(0.0625)), dtype);
                    const Tensor bias = withBias ? to(randn({96}), dtype) : Tensor();
                    const Tensor got = linearWithActivation(x, w, bias, activation);
                    const Tensor before = linear(x, w, bias), want = applyEagerly(before, activation);
                    ASSERT_EQ(got.sizes(), want.sizes()) << what;
                    ASSERT_EQ(got.dtype(), dtype) << what;
                    const std::vector<double> g = toDoubles(contiguous(got)), e = toDoubles(contiguous(want)), p = toDoubles(contiguous(before));
                    const double relative = dtype == DType::BFloat16 ? std::ldexp(1.0, -7) : 1e-5;
                    int failures = 0;
                    for (size_t i = 0; i < g.size(); ++i)
                        if (std::abs(g[i] - e[i]) > relative * (std::abs(e[i]) + std::abs(p[i])) + 1e-5 && ++failures <= 3)
                            ADD_FAILURE() << what << ": element " << i << " = " << g[i] << ", eager " << e[i];
                }
}

}  // namespace
}  // namespace eng::tensor
