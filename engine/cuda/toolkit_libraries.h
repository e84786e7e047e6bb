// NVRTC, cuBLAS and cuBLASLt loaded on first use with dlopen instead of linked: linking them maps and relocates
// several hundred MB at every start of cwb, also for commands that never touch a GPU (cwb import, report, open).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <nvrtc.h>

namespace eng::cuda {

// Every toolkit function the engine calls, named once: the tables below and their loader derive from these lists.
#define CWB_NVRTC_FUNCTIONS(X)                                                                            \
    X(nvrtcGetErrorString) X(nvrtcVersion) X(nvrtcCreateProgram) X(nvrtcCompileProgram)                    \
    X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcDestroyProgram) \
    X(nvrtcGetPTXSize) X(nvrtcGetPTX)

#define CWB_CUBLAS_FUNCTIONS(X)                                                                              \
    X(cublasCreate_v2) X(cublasSetStream_v2) X(cublasSetWorkspace_v2) X(cublasSetMathMode) X(cublasGetStatusName) \
    X(cublasGetStatusString)

#define CWB_CUBLASLT_FUNCTIONS(X)                                                                              \
    X(cublasLtCreate) X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescSetAttribute) X(cublasLtMatrixLayoutCreate) \
    X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulPreferenceDestroy)  \
    X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmulAlgoCheck) X(cublasLtMatmul) X(cublasLtGetVersion) \
    X(cublasLtMatmulDescDestroy) X(cublasLtMatrixLayoutDestroy)

#define CWB_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
struct NvrtcApi {
    CWB_NVRTC_FUNCTIONS(CWB_DECLARE_ENTRY)
};
// cublas_api.h overloads cublasGemmStridedBatchedEx in C++ (an inline shim taking a cudaDataType compute type),
// so its C entry point is named by its full type.
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                                      const void*, const void*, cudaDataType, int, long long, const void*,
                                                      cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                                      long long, int, cublasComputeType_t, cublasGemmAlgo_t);
struct CublasApi {
    CWB_CUBLAS_FUNCTIONS(CWB_DECLARE_ENTRY)
    CublasGemmStridedBatchedEx cublasGemmStridedBatchedEx = nullptr;
};
struct CublasLtApi {
    CWB_CUBLASLT_FUNCTIONS(CWB_DECLARE_ENTRY)
};
#undef CWB_DECLARE_ENTRY

// Each loads its library once per process; when it cannot be loaded, every call throws CudaError saying which
// library and why (the loader's own message), so the CPU side keeps working.
const NvrtcApi& nvrtc();
const CublasApi& cublas();
const CublasLtApi& cublasLt();

}  // namespace eng::cuda
