// The reference launcher: kernels run element by element through interpretKernel on host memory. Slow; used by
// tests to check lowering and fusion independently of code generation, and when no code generator is built.
#include "inductor/ir/kernel_launcher.h"

#include <map>

namespace eng::inductor {

namespace {

class InterpreterLauncher : public KernelLauncher {
public:
    explicit InterpreterLauncher(const std::vector<Kernel>& kernels) : kernels_(kernels) {}
    KernelArtifact artifact(size_t index, const SymbolValues&) const override {
        return KernelArtifact{"kernel_ir", kernelText(kernels_.at(index)), "interpreted"};
    }
    void launch(size_t index, std::span<void* const> buffers, const SymbolValues& symbols) override {
        interpretKernel(kernels_.at(index), buffers, symbols);
    }
    double compileSeconds() const override { return 0; }
    KernelCompileInfo compileInfo(size_t) const override { return {0, "the reference interpreter (nothing to compile)"}; }

private:
    std::vector<Kernel> kernels_;
};

}  // namespace

std::unique_ptr<KernelLauncher> makeInterpreterLauncher(const std::vector<Kernel>& kernels) {
    return std::make_unique<InterpreterLauncher>(kernels);
}

namespace {

std::map<tensor::DeviceType, LauncherFactory>& registeredLaunchers() {
    static std::map<tensor::DeviceType, LauncherFactory> launchers;
    return launchers;
}

}  // namespace

void registerLauncher(tensor::DeviceType device, LauncherFactory factory) { registeredLaunchers()[device] = std::move(factory); }

std::unique_ptr<KernelLauncher> makeLauncher(tensor::DeviceType device, const std::vector<Kernel>& kernels, int deviceIndex,
                                             LaunchTuning tuning) {
    auto found = registeredLaunchers().find(device);
    return found == registeredLaunchers().end() ? nullptr : found->second(kernels, deviceIndex, tuning);
}

}  // namespace eng::inductor
