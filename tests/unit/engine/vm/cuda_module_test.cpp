// torch.cuda in the VM (vm/cuda_module.cpp): without a driver, is_available() is False and synchronize / Event
// raise PyTorch's lazy-initialisation error; with a device, events time work on cwb's stream (skipped elsewhere).
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

TEST(VmCuda, EventArgumentChecksNeedNoDevice) {
    // Construction is lazy (as in PyTorch), so these checks hold with or without a GPU.
    auto run = runScript(R"(import torch
a = torch.cuda.Event(enable_timing=True)
b = torch.cuda.Event()
print(repr(a), type(a).__name__)
print(a.query())
a.synchronize()
for first, second in [(a, b), (b, a)]:
    try:
        first.elapsed_time(second)
    except RuntimeError as e:
        print(e)
try:
    a.elapsed_time(torch.cuda.Event(True))
except RuntimeError as e:
    print(e)
try:
    torch.cuda.Event(bogus=1)
except TypeError as e:
    print(e)
try:
    a.elapsed_time(3)
except TypeError as e:
    print(e)
)");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out,
              "<torch.cuda.Event uninitialized> Event\n"
              "True\n"
              "Both events must be created with argument 'enable_timing=True'.\n"
              "Both events must be created with argument 'enable_timing=True'.\n"
              "Both events must be recorded before calculating elapsed time.\n"
              "Event.__new__() got an unexpected keyword argument 'bogus'\n"
              "elapsed_time(): argument 'end_event' must be torch.cuda.Event\n");
}

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

TEST(VmCuda, DeviceArgumentsAreChecked) {
    auto run = runScript(R"(import torch
try:
    torch.cuda.synchronize("cpu")
except ValueError as e:
    print(e)
try:
    torch.cuda.get_device_name(1.5)
except TypeError as e:
    print(e)
)");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out,
              "Expected a cuda device, but got: cpu\n"
              "torch.cuda: expected a device index, a device string or a torch.device\n");
}

TEST(VmCuda, EventsTimeWorkOnTheDevice) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
    auto run = runScript(R"(import torch
print(torch.cuda.is_available(), len(torch.cuda.get_device_name()) > 0, torch.cuda.current_device())
x = torch.randn([1 << 22], device="cuda")
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
start.record()
for i in range(10):
    x = x * 1.0001
end.record()
end.synchronize()
ms = start.elapsed_time(end)
print(type(ms).__name__, ms > 0.0, end.query())
torch.cuda.synchronize()
torch.cuda.synchronize(0)
torch.cuda.synchronize("cuda:0")
try:
    end.elapsed_time(start)
    print("no error")
except RuntimeError as e:
    print("error", e)
)");
    ASSERT_TRUE(run.ok) << run.error;
    // cuEventElapsedTime of a reversed pair is negative, not an error (as in PyTorch).
    EXPECT_EQ(run.out, "True True 0\nfloat True True\nno error\n");
}
