// Host copies for ops that run on CUDA tensors through their CPU kernels (see host_route.h).
#include "tensor/host_route.h"

#include "tensor/conversion.h"

namespace eng::tensor::hostroute {

Tensor toHost(const Tensor& t) {
    if (!t.defined() || t.device().isCpu()) return t;
    return to(t, std::nullopt, kCpu);
}

std::vector<Tensor> toHost(const std::vector<Tensor>& tensors) {
    std::vector<Tensor> host;
    host.reserve(tensors.size());
    for (const Tensor& t : tensors) host.push_back(toHost(t));
    return host;
}

Tensor backTo(Device device, const Tensor& hostResult) {
    if (device.isCpu() || !hostResult.defined()) return hostResult;
    return to(hostResult, std::nullopt, device);
}

void writeBack(const Tensor& deviceTensor, const Tensor& hostCopy) {
    if (!deviceTensor.isSameTensor(hostCopy)) copyInto(deviceTensor, hostCopy);
}

}  // namespace eng::tensor::hostroute
