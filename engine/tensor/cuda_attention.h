// A fused (FlashAttention-2 style) attention forward and backward for CUDA float16/bfloat16: softmax(q k^T * scale) v
// in one kernel, so the [L, S] scores never reach memory. Used by F.scaled_dot_product_attention without mask/dropout.
#pragma once

#include "cuda/nvrtc_compiler.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace eng::tensor {

namespace cudagen {

// The forward's block: `warps` warps, each owning `slices` slices of 16 query rows, walking the keys in tiles of
// `keys` rows with `stages` tiles of K and V in shared memory. flashForwardShape gives the default for a head dim
// (16, 32, 64 or 128), causal flag and the device's shared memory a block (sharedLimit bytes, the opt-in limit:
// causal 128-key tiles at head dim 64 where 64 KiB fit, else 64-key ones), or what
// CWB_FLASH_TUNING="warps=4,slices=2,keys=64,stages=2" sets instead (read once; ValueError for an unknown key or a
// shape that does not fit).
struct FlashForwardShape {
    int warps = 4, slices = 1, keys = 64, stages = 2;
    int rows() const { return warps * slices * 16; }
    int threads() const { return warps * 32; }
    int sharedBytes(int headDim) const { return 2 * stages * keys * headDim * 2; }  // K and V, 16-bit
};
FlashForwardShape flashForwardShape(int headDim, bool causal, int sharedLimit);
// The forward kernel for one dtype (Float16 or BFloat16), head dim (16, 32, 64 or 128), causal flag and block shape,
// as its own translation unit. Parameters: (const T* q, const T* k, const T* v, T* o, float* lse (or null), int L,
// int S, float scaleLog2e (scale * log2(e), any sign), then element strides (batch, head, row) of q, k, v and o as
// long long). Grid (ceil(L / shape.rows()), heads, batch), shape.threads() threads and shape.sharedBytes(headDim)
// bytes of dynamic shared memory.
cuda::KernelSource flashAttentionKernel(DType dtype, int headDim, bool causal, const FlashForwardShape& shape);
// One launch of that kernel: its 20 arguments and its launch shape for q [batch, heads, L, E], k and v [batch, heads,
// S, E] (readable by the kernel: flashReadable), o (q's sizes, any strides the kernel can write: rows of E dense
// elements), lse ([batch, heads, L] float32, or undefined: none written), `scale` and the block shape the kernel was
// made with. args() points into the object itself, so it is neither copied nor moved.
class FlashForwardLaunch {
public:
    FlashForwardLaunch(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& lse, double scale,
                       const FlashForwardShape& block);
    FlashForwardLaunch(const FlashForwardLaunch&) = delete;
    FlashForwardLaunch& operator=(const FlashForwardLaunch&) = delete;
    const cuda::LaunchShape& shape() const { return shape_; }
    void** args() { return args_; }

private:
    const void *q_, *k_, *v_;
    void *o_, *lse_;
    int queries_, keys_;
    float scaleLog2e_;
    long long strides_[4][3];  // (batch, head, row) of q, k, v, o, in elements
    cuda::LaunchShape shape_;
    void* args_[20];
};
// The backward's block: 64 query (or key) rows, 4 warps.
constexpr unsigned kAttentionThreads = 128;
constexpr int kAttentionRowsPerBlock = 64;
// The backward's kernels (cuda_attention_backward.cpp), same grid and block. Pass 0 writes each query row's
// log-sum-exp (the forward's when given, else its own walk over the keys) and dO . O. Head dims up to 64 are fused
// (flashBackwardFused): pass 0 also zeroes a float32 dQ, pass 2 (over key tiles) writes dK and dV and adds each key
// tile's part of dQ into it, pass 3 rounds dQ. Head dim 128: pass 0 writes dQ, pass 1 dK and dV. One parameter: the
// block of pointers and strides. flashBackwardPasses: the passes a call launches, in order.
cuda::KernelSource flashAttentionBackwardKernel(DType dtype, int headDim, bool causal, int pass);
bool flashBackwardFused(int headDim);
// Which of the fused pass's products at this head dim are warpgroup products on sm_90: 0 none, 1 S, dP, dV and dK,
// 2 dQ too (CWB_FLASH_BACKWARD_WGMMA, default 2; head dim 64 only).
int flashBackwardWarpgroup(int headDim);
std::vector<int> flashBackwardPasses(int headDim);
// The backward kernel's device code before the kernel itself (parameter block, loads, tile products; the warpgroup
// products for sm_90a): cuda_attention_backward_device.cpp.
const char* flashBackwardDeviceHelpers();
// One translation unit of the forward or backward: the defines both read (CWB_ENTRY, CWB_D, CWB_CAUSAL, CWB_T), then
// `defines`, the device code both share (types, tile layout and loads, mma), then `body`. Fails with `what` for a
// dtype other than Float16/BFloat16 or a head dim other than 16, 32, 64 or 128.
cuda::KernelSource flashKernelSource(const char* what, std::string entry, DType dtype, int headDim, bool causal, const std::string& defines,
                                     const char* body);
// Every flash kernel the run time asks for by default (CWB_FLASH_TUNING and CWB_FLASH_BACKWARD_FUSED unset): the
// forward in its default shape and the backward's passes, for each dtype, head dim and causal flag. The build
// compiles these and embeds them (cuda/prebuilt_kernels.h, engine/tensor/build_tools/flash_kernel_image.cpp).
std::vector<cuda::KernelSource> flashLibraryKernels();

}  // namespace cudagen

namespace cudaops {

// Whether flashAttention computes sdpa(q, k, v) for these operands: all on CUDA, one 16-bit float dtype, equal
// batch dims, E == Ev in {16, 32, 64, 128}, L and S > 0. Layouts are not a condition (copies are made as needed).
bool flashAttentionSupported(const Tensor& query, const Tensor& key, const Tensor& value);
// softmax(query key^T * scale [+ causal mask, top-left aligned]) value, a fresh [..., L, Ev] tensor: for 4-D operands
// laid out as PyTorch's flash kernel leaves it ([batch, L, heads, Ev] in memory, transposed), else contiguous. With
// `logsumexp`, each query row's natural log-sum-exp of the scaled, masked scores goes there too (float32, the query's
// sizes without the head dim: [batch, heads, L] for 4-D operands, as PyTorch's flash forward saves it for the backward).
// `shape`: another block shape than flashForwardShape's (tests of every shape; it must fit the device's shared memory).
Tensor flashAttention(const Tensor& query, const Tensor& key, const Tensor& value, bool causal, double scale, Tensor* logsumexp = nullptr,
                      const cudagen::FlashForwardShape* shape = nullptr);
// Whether flashAttentionBackward takes these operands: flashAttentionSupported, 4-D, and q, k, v of one shape.
bool flashAttentionBackwardSupported(const Tensor& query, const Tensor& key, const Tensor& value);
// The gradients of sdpa(query, key, value) = out (no mask or dropout) from the gradient of out, computed with the
// weights recomputed tile by tile: one fresh [3, batch, L, heads, E] tensor holding dQ, dK, dV in PyTorch's flash
// layout (item i transposed(1, 2) is the [batch, heads, L, E] gradient). `logsumexp`: the forward's (flashAttention's
// [batch, heads, L] float32), which spares the backward a walk over the keys; undefined: computed here.
Tensor flashAttentionBackward(const Tensor& grad, const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& out, bool causal,
                              double scale, const Tensor& logsumexp = Tensor());
// The flash kernels under the memo keys their launches use, for prefetching (tensor/cuda_launch_memo.h).
EagerKernel flashForwardKernel(const cuda::DeviceContext& context, DType dtype, int64_t headDim, bool causal);
std::vector<EagerKernel> flashBackwardKernels(const cuda::DeviceContext& context, DType dtype, int64_t headDim, bool causal);
// Queues the compiles of the flash forward and backward for an sdpa over query (4-D, on CUDA, flash-supported) at
// prefetch level 1 and above: an sdpa that records history runs the composite, and meets the flash kernels when its
// graph is differentiated (the backward) and compiled (the forward, an extern call).
void prefetchFlashAttention(const Tensor& query, bool causal);
// x itself when the kernels can read it (rows 16-byte aligned, dense along the head dim), else a dense copy.
Tensor flashReadable(const Tensor& x);

}  // namespace cudaops

}  // namespace eng::tensor
