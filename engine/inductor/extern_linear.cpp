// The cuBLASLt linear extern (see extern_linear.h): tensors in, one library call, the output tensor out.
#include "inductor/extern_linear.h"

#include <stdexcept>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_kernels.h"

namespace eng::inductor {

bool ltLinearSupports(tensor::DType dtype) {
    return dtype == tensor::DType::Float32 || dtype == tensor::DType::Float16 || dtype == tensor::DType::BFloat16;
}

tensor::Tensor linearEpilogue(const tensor::Tensor& x, const tensor::Tensor& weight, const tensor::Tensor& bias,
                              cuda::Epilogue epilogue) {
    if (!ltLinearSupports(x.dtype()) || weight.dtype() != x.dtype() || (bias.defined() && bias.dtype() != x.dtype()))
        throw std::runtime_error("cuBLASLt linear: operands must share one of float32, float16, bfloat16");
    if (x.dim() < 1 || weight.dim() != 2 || x.size(-1) != weight.size(1) || weight.size(1) == 0)
        throw std::runtime_error("cuBLASLt linear: x [..., k] and weight [n, k] with k > 0 expected");
    const tensor::Tensor xc = x.isContiguous() ? x : tensor::contiguous(x);
    const tensor::Tensor wc = weight.isContiguous() ? weight : tensor::contiguous(weight);
    const tensor::Tensor bc = !bias.defined() || bias.isContiguous() ? bias : tensor::contiguous(bias);
    tensor::Shape sizes = x.sizes();
    sizes.back() = weight.size(0);
    tensor::Tensor out = tensor::empty(sizes, x.dtype(), x.device());
    cuda::LinearCall call;
    call.type = tensor::cudaops::gemmType(x.dtype());
    call.k = weight.size(1);
    call.n = weight.size(0);
    call.m = x.numel() / call.k;
    call.x = xc.data();
    call.weight = wc.data();
    call.bias = bc.defined() ? bc.data() : nullptr;
    call.out = out.data();
    call.epilogue = epilogue;
    cuda::linearLt(tensor::normalizeDevice(x.device()).index(), call);
    return out;
}

}  // namespace eng::inductor
