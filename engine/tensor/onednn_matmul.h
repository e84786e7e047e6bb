// CPU matrix products through oneDNN's matmul primitive (float32, and bfloat16 with float32 accumulation on the
// host's AMX or AVX512-BF16 units, as PyTorch's CPU products run), loaded with dlopen on first use.
#pragma once

#include "tensor/linalg.h"
#include "tensor/tensor.h"

namespace eng::tensor::onednn {

/// Whether libdnnl.so.2 loaded (once, on the first call) and makes CPU products: false where it is not installed,
/// or CWB_ONEDNN=0 turns it off.
bool available();

/// out = a @ b for 2-D (M x K @ K x N) or 3-D (batch x M x K @ batch x K x N) CPU tensors of float32 or bfloat16,
/// out contiguous; any strides of a and b (a batch stride of 0 broadcasts). Returns false, computing nothing,
/// where oneDNN has no implementation for that layout or is not available: the caller computes it instead.
/// Primitives are kept by dtype, shapes and strides; each call runs on workerThreadCount() OpenMP threads.
/// A defined `bias` (1-D, n elements of out's dtype, any stride) is added to every row of the product in the
/// primitive, to the float32 accumulator before the one rounding (false, computing nothing, where it is not that).
/// `activation` is then applied to that sum, still in float32, as the primitive's eltwise post-op (eltwise_relu,
/// eltwise_gelu_tanh, eltwise_gelu_erf): no pass over the output of its own.
bool matmulInto(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias = Tensor(),
                LinearActivation activation = LinearActivation::None);

}  // namespace eng::tensor::onednn
