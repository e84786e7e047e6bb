// Hands the flash kernels the build embedded (flash_kernel_image.cpp's image, as the symbols of the generated source)
// to cuda/prebuilt_kernels.h at static initialisation; linked into cwb and the CUDA test binaries as an object.
#include "cuda/prebuilt_kernels.h"

extern "C" const unsigned char cwb_flash_kernel_image[];
extern "C" const unsigned char cwb_flash_kernel_image_end[];

namespace {

[[maybe_unused]] const bool registered = (eng::cuda::registerPrebuiltKernels(cwb_flash_kernel_image, cwb_flash_kernel_image_end), true);

}  // namespace
