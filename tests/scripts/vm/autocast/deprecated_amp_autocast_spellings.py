# The deprecated spellings torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True) and
# torch.cuda.amp.autocast(..., dtype=torch.float16, ...): subclasses of torch.amp.autocast for one device, as a
# context manager and a decorator (each warns with PyTorch's FutureWarning, on stderr).
import torch
from torch.cpu.amp import autocast

x = torch.randn(4, 4)
w = torch.randn(4, 4)
with torch.cpu.amp.autocast():
    # expect: torch.bfloat16 True torch.bfloat16
    print((x @ w).dtype, torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
# expect: False
print(torch.is_autocast_enabled("cpu"))
with autocast(dtype=torch.float16):
    # expect: torch.float16
    print((x @ w).dtype)
with torch.cpu.amp.autocast(enabled=False):
    # expect: torch.float32
    print((x @ w).dtype)


@torch.cpu.amp.autocast()
def product(a, b):
    return a @ b


# expect: torch.bfloat16 True
print(product(x, w).dtype, isinstance(torch.cuda.amp.autocast(enabled=False), torch.amp.autocast))
