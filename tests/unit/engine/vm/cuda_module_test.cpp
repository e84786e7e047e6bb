// torch.cuda in the VM (vm/cuda_module.cpp) without a driver: is_available() is False and synchronize / Event raise
// PyTorch's lazy-initialisation error, whose wording depends on what the machine lacks (the programs that check
// torch.cuda's arguments and time events on a device are in tests/scripts/vm/cuda/).
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "script_support.h"

using vmtest::runScript;

namespace {

const char* kNoDriver =
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
    "http://www.nvidia.com/Download/index.aspx";

std::string unavailableMessage() {
    return eng::cuda::driverStatus().reason.rfind("no CUDA driver", 0) == 0 ? kNoDriver : "No CUDA GPUs are available";
}

}  // namespace

TEST(VmCuda, WithoutADriverCudaIsUnavailableAndRaisesPyTorchsError) {
    if (eng::cuda::cudaAvailable()) GTEST_SKIP() << "a CUDA device is present";
    auto run = runScript(R"(import torch
print(torch.cuda.is_available(), torch.cuda.device_count())
start = torch.cuda.Event(enable_timing=True)
for call in [torch.cuda.synchronize, torch.cuda.get_device_name, torch.cuda.current_device, start.record]:
    try:
        call()
    except RuntimeError as e:
        print(type(e).__name__, e)
)");
    ASSERT_TRUE(run.ok) << run.error;
    std::string line = "RuntimeError " + unavailableMessage() + "\n";
    EXPECT_EQ(run.out, "False 0\n" + line + line + line + line);
}
