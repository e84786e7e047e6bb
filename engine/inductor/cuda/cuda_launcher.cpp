// The CUDA KernelLauncher: each kernel generated as CUDA C++, compiled by NVRTC for the device's architecture
// through the kernel cache, and launched on the device's stream with a launch shape computed per call.
#include <chrono>

#include "cuda/driver.h"
#include "inductor/cuda/cuda_kernel_codegen.h"
#include "inductor/ir/kernel_launcher.h"

namespace eng::inductor {

namespace {

class CudaLauncher : public KernelLauncher {
public:
    CudaLauncher(const std::vector<Kernel>& kernels, int deviceIndex) : device_(eng::cuda::DeviceContext::get(deviceIndex)) {
        auto start = std::chrono::steady_clock::now();
        for (const Kernel& k : kernels) {
            codes_.push_back(cuda::generateCudaKernel(k));
            compiled_.push_back(eng::cuda::KernelCompiler::instance().compile(codes_.back().kernelSource(), device_.arch()));
        }
        compileSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    KernelArtifact artifact(size_t index, const SymbolValues& hints) const override {
        const cuda::CudaKernelCode& code = codes_.at(index);
        return KernelArtifact{"cuda", code.source,
                              code.launchText(hints, device_.multiprocessorCount()) + " " + cuda::strategyName(code.strategy)};
    }

    void launch(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) override {
        cuda::launchCudaKernel(device_, *compiled_.at(index), codes_.at(index), buffers, symbols);
    }

    double compileSeconds() const override { return compileSeconds_; }

private:
    eng::cuda::DeviceContext& device_;
    std::vector<cuda::CudaKernelCode> codes_;
    std::vector<std::shared_ptr<const eng::cuda::CompiledKernel>> compiled_;
    double compileSeconds_ = 0;
};

}  // namespace

std::unique_ptr<KernelLauncher> makeCudaLauncher(const std::vector<Kernel>& kernels, int device) {
    return std::make_unique<CudaLauncher>(kernels, device);
}

}  // namespace eng::inductor
