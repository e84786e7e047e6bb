// Matrix products on a CUDA device through cuBLAS and cuBLASLt: one handle each per device (created on first
// use, so only where a device exists), bound to the device's stream, with TF32 off as PyTorch's default.
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

// Starts cuda:`device`'s cuBLAS and cuBLASLt (loading the libraries and making the handles, about 0.1 s) on a
// background thread, once: a capture that defers a product calls it, so that the first compiled call finds them
// ready. A product meanwhile waits for it; awaitBlasPrewarm waits for every one started (before a CUDA graph capture).
// The main thread joins the prewarm when it calls exit() (returning from main included), before any static
// destructor or exit handler runs, cuBLAS's own included; a child of fork() never joins its parent's threads.
void prewarmBlas(int device);
void awaitBlasPrewarm();
// Called by DeviceContext::get: while a prewarm runs, the calling thread, if it is the main thread, joins it at exit.
void joinBlasPrewarmAtExit();
// When cuBLAS starts, CWB_BLAS_PREWARM (read once): 0, at a deferred product or the first product;
// 1, also when a device's context is created, on the background thread (as PyTorch's libraries load at import);
// 2 (default), the thread then also asks cuBLASLt's heuristic for a float32 and a bfloat16 product, whose first
// query per type costs 90-135 ms each on the H100 host. The ~0.3 s then overlaps the program's setup instead of its
// first compiled call; a program whose first product comes sooner waits for the rest, and the setup itself runs
// slower meanwhile (0.07-0.12 s more for the bench's throwaway compile, B1 included: engine/cuda/README.md); a
// program that ends sooner waits at exit for the step under way (the heuristic queries not yet begun are skipped).
int blasPrewarmLevel();

// What cuBLASLt applies to the product before storing it. Its GELU is the tanh approximation, so only
// F.gelu(approximate='tanh') may use the GELU epilogues; exact GELU stays a generated kernel.
enum class Epilogue { None, Bias, Relu, ReluBias, GeluTanh, GeluTanhBias };
const char* epilogueName(Epilogue epilogue);  // "bias + relu", for output code and errors

// F.linear through cuBLASLt, row-major and contiguous: out[m, n] = act(x[m, k] @ weight[n, k]^T + bias[n]).
// Float32 (full precision, no TF32), Float16 and BFloat16 (float32 accumulation; bias in the same type as x).
// The algorithm comes from cuBLASLt's heuristic, once per shape, type, epilogue and pointer alignment (small problems:
// the fastest of its candidates, timed on the first call and kept in the kernel cache directory for later processes,
// cuda/lt_algo_store.h); the per-device workspace is fixed, so the call never allocates (it may be captured into a
// CUDA graph).
struct LinearCall {
    GemmType type = GemmType::Float32;
    int64_t m = 0, n = 0, k = 0;
    const void* x = nullptr;
    const void* weight = nullptr;
    const void* bias = nullptr;  // required by the *Bias epilogues, ignored otherwise
    void* out = nullptr;
    Epilogue epilogue = Epilogue::None;
};

void linearLt(int device, const LinearCall& call);

}  // namespace eng::cuda
