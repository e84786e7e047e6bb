// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and every entry point through
// cuGetProcAddress, so cwb builds and starts on machines without a GPU and reports why CUDA is off.
#pragma once

#include <stdexcept>
#include <string>

namespace eng::cuda {

// Any failure of the CUDA layer; the message names the CUDA error ("CUDA_ERROR_OUT_OF_MEMORY: ...").
class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What loading the driver found, decided once per process.
struct DriverStatus {
    bool available = false;
    // Why CUDA is unavailable ("libcuda.so.1: cannot open shared object file", "cuInit failed: ...",
    // "no CUDA device is present"); empty when available.
    std::string reason;
    int deviceCount = 0;
    int driverVersion = 0;  // as cuDriverGetVersion: 13000 is CUDA 13.0
};

const DriverStatus& driverStatus();
inline bool cudaAvailable() { return driverStatus().available; }

}  // namespace eng::cuda
