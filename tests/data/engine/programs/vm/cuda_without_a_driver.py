# torch.cuda on a machine without a usable CUDA device: is_available() is False and every call that would initialise
# CUDA raises PyTorch's lazy-initialisation error (read by tests/unit/engine/vm/cuda_module_test.cpp).
import torch
print(torch.cuda.is_available(), torch.cuda.device_count())
start = torch.cuda.Event(enable_timing=True)
for call in [torch.cuda.synchronize, torch.cuda.get_device_name, torch.cuda.current_device, start.record]:
    try:
        call()
    except RuntimeError as e:
        print(type(e).__name__, e)
