// Matrix products on a CUDA device through cuBLAS: one handle per device (created on first use, so only
// where a device exists), bound to the device's stream, with TF32 off as PyTorch's default.
#pragma once

#include <cstdint>

namespace eng::cuda {

// The element type of A, B and C. Float16/BFloat16 accumulate in float32 and round C to 16 bits, as PyTorch.
enum class GemmType { Float32, Float64, Float16, BFloat16 };

// Column-major GEMM over a batch, as cublasGemmStridedBatchedEx: C = alpha * op(A) op(B) + beta * C for
// each of `batch` matrices. Pointers are device addresses on cuda:`device`.
struct GemmCall {
    GemmType type = GemmType::Float32;
    bool transposeA = false, transposeB = false;
    int64_t m = 0, n = 0, k = 0;
    const void* a = nullptr;
    int64_t lda = 1, strideA = 0;
    const void* b = nullptr;
    int64_t ldb = 1, strideB = 0;
    void* c = nullptr;
    int64_t ldc = 1, strideC = 0;
    int64_t batch = 1;
    double alpha = 1.0, beta = 0.0;
};

void gemm(int device, const GemmCall& call);

}  // namespace eng::cuda
