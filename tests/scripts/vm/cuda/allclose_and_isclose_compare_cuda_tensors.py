# requires: cuda
# torch.allclose and torch.isclose on CUDA tensors: the comparison's kernel runs on the host copies, and the
# result of isclose comes back on the device (reading device memory on the host crashed the process).
import torch

a = torch.tensor([1.0, 2.0, float("nan"), float("inf")], device="cuda")
b = torch.tensor([1.0 + 1e-7, 2.5, float("nan"), float("inf")], device="cuda")
close = torch.isclose(a, b)
# expect: [True, False, False, True] cuda
print(close.tolist(), close.device.type)
# expect: [True, False, True, True]
print(torch.isclose(a, b, equal_nan=True).tolist())
# expect: False True True
print(torch.allclose(a, b), torch.allclose(a[:1], b[:1]), a[1:2].allclose(b[1:2], rtol=0.3))
# expect: True
print(torch.allclose(a[:2].sum(), torch.tensor(3.0, device="cuda")))
# expect error: Expected all tensors to be on the same device
torch.isclose(a, b.cpu())
