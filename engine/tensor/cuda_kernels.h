// The device-dispatch seam of the tensor runtime: where a CPU kernel would run on a CUDA tensor, the op
// calls these instead. Callers have already done PyTorch's checks, type promotion and broadcasting, and
// allocated the output on the device; these launch NVRTC-generated kernels (or cuBLAS) on it.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "cuda/blas.h"
#include "tensor/cuda_codegen.h"
#include "tensor/device.h"
#include "tensor/pointwise.h"
#include "tensor/tensor.h"

namespace eng::tensor::cudaops {

inline bool onCuda(const Tensor& t) { return t.defined() && t.device().type() == DeviceType::CUDA; }

// The CUDA DeviceBackend when a driver and at least one device exist, else null (device.cpp registers it).
std::unique_ptr<DeviceBackend> makeCudaBackendIfPresent();

// dst = src converted to dst's dtype; src has dst's sizes (already expanded) and lives on dst's device,
// except a broadcast CPU scalar, which is moved over.
void copy(const Tensor& dst, const Tensor& src);
void fill(const Tensor& dst, Scalar value);
void unary(UnaryOp op, const Tensor& out, const Tensor& x);
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
void leakyRelu(const Tensor& out, const Tensor& x, double negativeSlope);
// out = x ** exponent for a floating x and scalar exponent.
void powScalar(const Tensor& out, const Tensor& x, double exponent);
// out = clamp(x, low, high); missing bounds are undefined tensors. All expanded to out's shape and dtype.
void clamp(const Tensor& out, const Tensor& x, const Tensor& low, const Tensor& high);
void where(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);
// self[mask] = value, mask expanded to self's shape.
void maskedFill(const Tensor& self, const Tensor& mask, Scalar value);

// Reduces the dims marked in `reduced` into out (fresh, contiguous, the reduction's output shape; kept
// dims in order). indices (int64, same shape) is filled for Max/Min when defined.
void reduce(cudagen::RowReduction kind, const Tensor& input, const std::vector<bool>& reduced, const Tensor& out,
            const Tensor& indices = Tensor(), double correction = 0.0);
// out (input's sizes) = softmax / log_softmax of input along dim.
void softmax(const Tensor& out, const Tensor& input, int64_t dim, bool logarithmic);
// out = a @ b for 2-D float32/float64/float16/bfloat16 tensors, or batch by batch for 3-D ones in one
// strided-batched call (cuBLAS, TF32 off; 16-bit types accumulate in float32).
void gemm(const Tensor& out, const Tensor& a, const Tensor& b);
// F.linear as one cuBLASLt call: act(x @ weight.T + bias) for x [..., k], weight [n, k], bias [n] (undefined for
// the epilogues without bias), one dtype linearLtSupports takes, k > 0; non-contiguous operands are copied first.
// The bias and activation join the float32 accumulator before the one rounding to x's dtype, as PyTorch's CUDA
// addmm adds a bias (gemm_and_bias). Eager linear and the compiled linear extern both call it.
bool linearLtSupports(DType dtype);
Tensor linearLt(const Tensor& x, const Tensor& weight, const Tensor& bias, cuda::Epilogue epilogue);
// cuBLAS's element type for dtype; the floating dtypes only (others raise PyTorch's "addmm_cuda" error).
cuda::GemmType gemmType(DType dtype);

// nll_loss's check of class indices on the device, without waiting for it: the first target outside [0, classes)
// that is not ignoreIndex is recorded by a kernel, and the device's next synchronisation raises IndexError
// "Target N is out of bounds." (cuda_class_targets.cpp; PyTorch's kernels assert on the device too).
void checkClassTargets(const Tensor& target, int64_t classes, int64_t ignoreIndex);
constexpr unsigned kClassTargetThreads = 256;
cudagen::GeneratedKernel classTargetCheckKernel();

// CWB_HOST_CHECKS=1: the paths that wait for the device, kept to measure against: a CPU scalar operand copied to
// the device (a synchronising copy) instead of filled, and CUDA index bounds read back to the host instead of
// checked by a kernel (indexing.cpp). Read once.
bool synchronisingHostChecks();

// The device an op over these operands runs on: cuda when any defined operand is a CUDA tensor (the others
// may only be CPU tensors of zero dims, as in PyTorch), else cpu.
Device commonDevice(std::initializer_list<Tensor> operands);

// PyTorch's message when operands of one op sit on different devices.
[[noreturn]] void deviceMismatch(Device a, Device b);

}  // namespace eng::tensor::cudaops
