// A fused (flash) attention forward for the CPU: softmax(q k^T * scale) v over query tiles with an online softmax in
// float32, so the [L, S] scores never reach memory, as PyTorch's CPU flash path of scaled_dot_product_attention.
#pragma once

#include "tensor/tensor.h"

namespace eng::tensor::cpuops {

/// False where the environment sets CWB_CPU_FLASH=0 (read once): sdpa then keeps its composite CPU path, eager and
/// compiled (matmul, softmax, matmul), to compare the two.
bool flashAttentionEnabled();

/// The part of flashAttentionSupported a compiled graph decides from its shapes: operands of `dtype` (float32,
/// bfloat16 or float16) and `rank` 4 with head dims E and Ev at most 256. Never where flashAttentionEnabled() is false.
bool flashAttentionTakes(DType dtype, int64_t rank, int64_t headDim, int64_t valueHeadDim);

/// Whether flashAttention computes sdpa(q, k, v) for these operands: 4-D CPU tensors [batch, heads, L|S, E|Ev] of
/// one dtype that flashAttentionTakes, with equal batch and head sizes, E == key's E, and no empty dim. Strides are not a condition (views of a qkv projection are read in place). Never where
/// flashAttentionEnabled() is false.
bool flashAttentionSupported(const Tensor& query, const Tensor& key, const Tensor& value);

/// softmax(query key^T * scale [+ causal mask, top-left aligned: key j <= query i]) value, a fresh [batch, heads, L,
/// Ev] tensor laid out as PyTorch's flash kernel leaves it ([batch, L, heads, Ev] in memory, transposed). Products
/// and softmax run in float32 whatever the dtype; parallel over batch x heads x query chunks on the worker pool.
Tensor flashAttention(const Tensor& query, const Tensor& key, const Tensor& value, bool causal, double scale);

}  // namespace eng::tensor::cpuops
