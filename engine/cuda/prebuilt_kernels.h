// Kernels compiled when cwb is built (CUBINs per architecture, PTX for later ones) and embedded in the binary, found
// by entry point, architecture and a digest of their source, so that a fixed library kernel's first use loads machine
// code instead of compiling it with NVRTC at run time (as PyTorch ships its kernels precompiled).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eng::cuda {

struct KernelSource;

// One embedded kernel: its entry point, what it was compiled for ("sm_90": a CUBIN, "compute_120": PTX), the
// digest of the complete source it was compiled from (sourceDigest) and the image (a view: of the embedded image
// once registered, of the caller's bytes when packing).
struct PrebuiltKernel {
    std::string entry;
    std::string arch;
    uint64_t digest = 0;
    std::string_view image;
    bool ptx() const { return arch.rfind("compute_", 0) == 0; }
};

// FNV-1a, 64 bits, of a kernel's source: the build and the run time hash the same text, so an edited source (or
// another shape or option set) no longer matches and compiles at run time instead.
uint64_t sourceDigest(std::string_view code);

// The image format: a header line "cwb prebuilt kernels 1", then per kernel a line "<arch> <entry> <digest hex>
// <bytes>" followed by that many bytes. unpack throws CudaError on anything else; its kernels view `image`.
std::string packPrebuiltKernels(const std::vector<PrebuiltKernel>& kernels);
std::vector<PrebuiltKernel> unpackPrebuiltKernels(std::string_view image);

// Adds an image to the process's set (the generated registration unit calls this at static initialisation; the
// image is parsed on the first lookup).
void registerPrebuiltKernels(const unsigned char* begin, const unsigned char* end);
// Every registered kernel (parsed on first use).
const std::vector<PrebuiltKernel>& prebuiltKernels();

// The embedded kernel for this source on a device of architecture `deviceArch` ("sm_86"): a CUBIN of the same major
// version and the highest minor not above the device's (machine code runs on later minors of its major), else PTX of
// the highest architecture not above the device's; only when the entry and the source's digest match. Null with
// CWB_PREBUILT_KERNELS=0 (every kernel then compiles with NVRTC, as without an image).
const PrebuiltKernel* findPrebuilt(const KernelSource& source, const std::string& deviceArch);
bool prebuiltKernelsEnabled();

}  // namespace eng::cuda
