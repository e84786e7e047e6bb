// torch.cuda in the VM (vm/cuda_module.cpp) without a driver: is_available() is False and synchronize / Event raise
// PyTorch's lazy-initialisation error, whose wording depends on what the machine lacks (the program is
// tests/data/engine/programs/vm/cuda_without_a_driver.py; those that check arguments and timing are tests/scripts/vm/cuda/).
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "../test_programs.h"
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
    auto run = runScript(enginetest::testProgram("vm/cuda_without_a_driver.py"));
    ASSERT_TRUE(run.ok) << run.error;
    std::string line = "RuntimeError " + unavailableMessage() + "\n";
    EXPECT_EQ(run.out, "False 0\n" + line + line + line + line);
}
