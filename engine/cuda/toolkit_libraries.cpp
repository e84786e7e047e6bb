// Loads the CUDA toolkit's NVRTC, cuBLAS and cuBLASLt on first use: by soname first (LD_LIBRARY_PATH and the
// system's paths), then from the toolkit this build was configured with.
#include "cuda/toolkit_libraries.h"

#include <dlfcn.h>

#include <cuda.h>

#include <string>

#include <fmt/format.h>

#include "cuda/driver.h"

namespace eng::cuda {

namespace {

// Sonames carry the toolkit's major version (libcublas.so.13 for CUDA 13).
std::string soname(const char* stem) { return fmt::format("lib{}.so.{}", stem, CUDA_VERSION / 1000); }

void* openToolkitLibrary(const char* stem) {
    const std::string name = soname(stem);
    if (void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL)) return library;
    const std::string firstError = dlerror();
#ifdef CWB_CUDA_TOOLKIT_LIBRARY_DIR
    const std::string inToolkit = std::string(CWB_CUDA_TOOLKIT_LIBRARY_DIR) + "/" + name;
    if (void* library = dlopen(inToolkit.c_str(), RTLD_NOW | RTLD_GLOBAL)) return library;
#endif
    throw CudaError(fmt::format("CUDA toolkit library unavailable: {}", firstError));
}

void* resolve(void* library, const char* stem, const char* symbol) {
    void* entry = dlsym(library, symbol);
    if (!entry) throw CudaError(fmt::format("{} has no {}", soname(stem), symbol));
    return entry;
}

// Loads on the first call and remembers a failure, so every later call reports the same reason.
template <typename Api, typename Fill>
const Api& loadOnce(const char* stem, Fill fill) {
    static const auto loaded = [&]() -> std::pair<Api, std::string> {
        Api api;
        try {
            fill(api, openToolkitLibrary(stem));
        } catch (const CudaError& error) {
            return {Api{}, error.what()};
        }
        return {api, {}};
    }();
    if (!loaded.second.empty()) throw CudaError(loaded.second);
    return loaded.first;
}

#define CWB_RESOLVE_ENTRY(name) api.name = reinterpret_cast<decltype(api.name)>(resolve(library, stem, #name));

}  // namespace

const NvrtcApi& nvrtc() {
    return loadOnce<NvrtcApi>("nvrtc", [](NvrtcApi& api, void* library) {
        const char* stem = "nvrtc";
        CWB_NVRTC_FUNCTIONS(CWB_RESOLVE_ENTRY)
    });
}

const CublasApi& cublas() {
    return loadOnce<CublasApi>("cublas", [](CublasApi& api, void* library) {
        const char* stem = "cublas";
        CWB_CUBLAS_FUNCTIONS(CWB_RESOLVE_ENTRY)
        CWB_RESOLVE_ENTRY(cublasGemmStridedBatchedEx)
    });
}

const CublasLtApi& cublasLt() {
    return loadOnce<CublasLtApi>("cublasLt", [](CublasLtApi& api, void* library) {
        const char* stem = "cublasLt";
        CWB_CUBLASLT_FUNCTIONS(CWB_RESOLVE_ENTRY)
    });
}

}  // namespace eng::cuda
