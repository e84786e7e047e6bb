// Matrix products: mm, bmm, mv, dot, matmul (PyTorch's batched broadcasting rules), addmm and linear.
// On the CPU float32 and bfloat16 go to oneDNN or OpenBLAS (linalg.cpp's cpuGemmLibrary chooses), float64 and
// complex to OpenBLAS, float16 computes in float32; integers use a plain int64 loop.
#pragma once

#include <optional>

#include "tensor/tensor.h"

namespace eng::tensor {

Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);
// beta * bias + alpha * (a @ b), bias broadcast to the product's shape.
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta = 1.0, double alpha = 1.0);
// F.linear: x @ weight.T + bias, for x of any rank >= 1.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
// Whether a CPU product of `dtype` (m x k @ k x n) runs on oneDNN, which then adds a bias row of that dtype in its
// matmul (addmm with alpha = beta = 1 and linear): the rule eager products follow, for compiled graphs to match.
bool cpuBiasFusesInProduct(DType dtype, int64_t m, int64_t n, int64_t k);

// The activation a linear's library call applies to its result in the same call (oneDNN's eltwise post-op on the
// CPU, cuBLASLt's epilogue on CUDA), chosen at lowering time (inductor's chooseLinearEpilogue).
enum class LinearActivation { None, Relu, GeluTanh, GeluErf };
// Whether a CPU linear of `dtype` (m x k @ k x n) applies its activation inside the oneDNN product: where that
// product takes the bias (cpuBiasFusesInProduct), unless CWB_CPU_EPILOGUE_FUSION=0 (a pass of its own, to compare).
bool cpuActivationFusesInProduct(DType dtype, int64_t m, int64_t n, int64_t k);
// activation(F.linear(x, weight, bias)) on the CPU (bias optional): where cpuActivationFusesInProduct, one oneDNN
// call that adds the bias and applies the activation to the float32 accumulator before the one rounding (a
// bfloat16 result is rounded once where eager rounds the product, then the GELU); else linear, then the
// activation's eager op.
Tensor linearWithActivation(const Tensor& x, const Tensor& weight, const Tensor& bias, LinearActivation activation);

// A = U diag(S) Vh over the last two dims (linalg_svd.cpp): U is m x m (full) or m x k, Vh n x n or k x n, k = min(m, n);
// without vectors U and Vh are left empty of meaning (torch.linalg.svdvals).
struct SvdResult {
    Tensor u, s, vh;
};
SvdResult svd(const Tensor& a, bool fullMatrices, bool computeVectors = true);

}  // namespace eng::tensor
