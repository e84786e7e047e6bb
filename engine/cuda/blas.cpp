// cuBLAS handles per device and the strided-batched GEMM behind matmul/mm/bmm/linear on CUDA tensors.
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
    if (call.type == GemmType::Float32) {
        const float alpha = static_cast<float>(call.alpha), beta = static_cast<float>(call.beta);
        checkBlas(cublasSgemmStridedBatched(handle, opA, opB, m, n, k, &alpha, static_cast<const float*>(call.a), lda,
                                            call.strideA, static_cast<const float*>(call.b), ldb, call.strideB, &beta,
                                            static_cast<float*>(call.c), ldc, call.strideC, batch),
                  "cublasSgemmStridedBatched");
    } else {
        checkBlas(cublasDgemmStridedBatched(handle, opA, opB, m, n, k, &call.alpha, static_cast<const double*>(call.a), lda,
                                            call.strideA, static_cast<const double*>(call.b), ldb, call.strideB, &call.beta,
                                            static_cast<double*>(call.c), ldc, call.strideC, batch),
                  "cublasDgemmStridedBatched");
    }
}

}  // namespace eng::cuda
