// cuBLAS handles per device and the strided-batched GEMM (float32/64, float16, bfloat16) behind
// matmul/mm/bmm/linear on CUDA tensors.
#include "cuda/blas.h"

#include <cublas_v2.h>

#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "cuda/driver.h"

namespace eng::cuda {

namespace {

void checkBlas(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw CudaError(fmt::format("{}: {} ({})", what, cublasGetStatusName(status), cublasGetStatusString(status)));
}

cublasHandle_t handleFor(DeviceContext& context) {
    static std::mutex mutex;
    static std::vector<cublasHandle_t> handles;
    std::lock_guard lock(mutex);
    const auto index = static_cast<size_t>(context.index());
    if (handles.size() <= index) handles.resize(index + 1, nullptr);
    if (!handles[index]) {
        context.makeCurrent();
        cublasHandle_t handle = nullptr;
        checkBlas(cublasCreate(&handle), "cublasCreate");
        checkBlas(cublasSetStream(handle, static_cast<cudaStream_t>(context.stream())), "cublasSetStream");
        // PyTorch keeps float32 matmuls in full precision unless allow_tf32 is set.
        checkBlas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
        handles[index] = handle;
    }
    return handles[index];
}

int toInt(int64_t value, const char* what) {
    if (value > INT32_MAX || value < 0) throw CudaError(fmt::format("cuBLAS {} {} does not fit in int", what, value));
    return static_cast<int>(value);
}

// cuBLAS's storage and compute types for a GemmType. CUBLAS_COMPUTE_32F is full float32 under the
// default math mode (no TF32); for 16-bit storage it is PyTorch's float32 accumulation.
struct GemmTypes {
    cudaDataType_t data;
    cublasComputeType_t compute;
};

GemmTypes gemmTypes(GemmType type) {
    switch (type) {
        case GemmType::Float32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
        case GemmType::Float64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
        case GemmType::Float16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
        case GemmType::BFloat16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    }
    throw CudaError("cuBLAS gemm: unknown element type");
}

}  // namespace

void gemm(int device, const GemmCall& call) {
    DeviceContext& context = DeviceContext::get(device);
    cublasHandle_t handle = handleFor(context);
    context.makeCurrent();
    const cublasOperation_t opA = call.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opB = call.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int m = toInt(call.m, "m"), n = toInt(call.n, "n"), k = toInt(call.k, "k");
    const int lda = toInt(call.lda, "lda"), ldb = toInt(call.ldb, "ldb"), ldc = toInt(call.ldc, "ldc");
    const int batch = toInt(call.batch, "batch");
    const GemmTypes types = gemmTypes(call.type);
    // alpha and beta are in the compute type: double for float64, float otherwise.
    const float alphaF = static_cast<float>(call.alpha), betaF = static_cast<float>(call.beta);
    const bool doubleScale = types.compute == CUBLAS_COMPUTE_64F;
    const void* alpha = doubleScale ? static_cast<const void*>(&call.alpha) : &alphaF;
    const void* beta = doubleScale ? static_cast<const void*>(&call.beta) : &betaF;
    checkBlas(cublasGemmStridedBatchedEx(handle, opA, opB, m, n, k, alpha, call.a, types.data, lda, call.strideA, call.b,
                                         types.data, ldb, call.strideB, beta, call.c, types.data, ldc, call.strideC, batch,
                                         types.compute, CUBLAS_GEMM_DEFAULT),
              "cublasGemmStridedBatchedEx");
}

}  // namespace eng::cuda
