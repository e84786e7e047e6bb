// The device-side check of class targets (nll_loss, cross_entropy, their compiled extern): one kernel finds the
// first target outside [0, classes) that is not ignore_index and records it in the device's assertion word, so the
// loss never waits for the device; the next synchronisation raises the IndexError the CPU raises at once.
#include <fmt/format.h>

#include "cuda/device_context.h"
#include "tensor/conversion.h"
#include "tensor/cuda_kernels.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace eng::tensor::cudaops {

namespace {

void raiseTargetOutOfBounds(int64_t label) { fail(ErrorKind::Index, fmt::format("Target {} is out of bounds.", label)); }

uint64_t targetAssertionId() {
    static const uint64_t id = cuda::registerDeviceAssertion(&raiseTargetOutOfBounds);
    return id;
}

}  // namespace

cudagen::GeneratedKernel classTargetCheckKernel() {
    // One block: each thread finds the first bad position of its stride, the block takes the smallest, so the
    // target named is the first, as on the CPU (a few iterations a thread at a training batch's size).
    return {"cwb_check_class_targets", fmt::format(R"CUDA(
extern "C" __global__ void cwb_check_class_targets(const long long* labels, long long n, long long classes,
                                                   long long ignore, unsigned long long* word, unsigned long long id) {{
  __shared__ long long first[{0}];
  long long mine = n;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {{
    const long long t = labels[i];
    if (t != ignore && (t < 0 || t >= classes)) {{ mine = i; break; }}
  }}
  first[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {{
    if (threadIdx.x < s && first[threadIdx.x + s] < first[threadIdx.x]) first[threadIdx.x] = first[threadIdx.x + s];
    __syncthreads();
  }}
  // The first assertion since the host last looked wins, as a device-side assert stops at the first.
  if (threadIdx.x == 0 && first[0] < n && atomicCAS(word, 0ull, id) == 0ull) {{
    ((volatile unsigned long long*)word)[1] = (unsigned long long)labels[first[0]];
    __threadfence_system();
  }}
}}
)CUDA", kClassTargetThreads)};
}

void checkClassTargets(const Tensor& target, int64_t classes, int64_t ignoreIndex) {
    if (target.numel() == 0) return;
    const Tensor labels = contiguous(to(target, DType::Int64, target.device()));
    cuda::DeviceContext& context = cuda::DeviceContext::get(normalizeDevice(labels.device()).index());
    const cuda::AssertionWord word = context.assertionWord();
    static const cuda::KernelSource source = cudagen::translationUnit(classTargetCheckKernel());
    cuda::LaunchShape shape;
    shape.blockX = kClassTargetThreads;
    const void* data = labels.data();
    long long n = labels.numel(), count = classes, ignore = ignoreIndex;
    void* wordPointer = word.device;
    unsigned long long id = targetAssertionId();
    void* args[] = {&data, &n, &count, &ignore, &wordPointer, &id};
    context.launch(source, shape, args);
}

}  // namespace eng::tensor::cudaops
