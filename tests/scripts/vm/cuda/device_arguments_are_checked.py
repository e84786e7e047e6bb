# torch.cuda's functions check their device argument before they need a device, in PyTorch's wording.
# expect: Expected a cuda device, but got: cpu
# expect: torch.cuda: expected a device index, a device string or a torch.device
import torch

try:
    torch.cuda.synchronize("cpu")
except ValueError as e:
    print(e)
try:
    torch.cuda.get_device_name(1.5)
except TypeError as e:
    print(e)
