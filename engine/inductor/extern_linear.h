// F.linear on CUDA as one cuBLASLt call with its bias/activation epilogue: the extern kernel compiled linears
// lower to on the GPU (Inductor's addmm with a fused epilogue). CPU linears keep matmul + a pointwise bias.
#pragma once

#include "cuda/blas.h"
#include "tensor/tensor.h"

namespace eng::inductor {

/// Whether linearEpilogue takes tensors of this dtype: float32, float16 and bfloat16 (cuBLASLt's epilogues).
bool ltLinearSupports(tensor::DType dtype);

/// act(x @ weight.T + bias) for x [..., k], weight [n, k] and bias [n] (undefined for the epilogues without
/// bias): CUDA tensors of one dtype on one device, k > 0. Non-contiguous operands are copied first.
tensor::Tensor linearEpilogue(const tensor::Tensor& x, const tensor::Tensor& weight, const tensor::Tensor& bias,
                              cuda::Epilogue epilogue);

}  // namespace eng::inductor
