# torch.autocast inside compiled code: a matmul and a linear layer under bfloat16 autocast on the input's device
# type, a float32 op after the block, and autocast disabled in a nested block (values chosen exact in bfloat16).
import torch
import torch.nn.functional as F


def mixed(a, b, w):
    with torch.autocast(a.device.type, dtype=torch.bfloat16):
        c = a @ b
        d = F.linear(c, w)
        with torch.autocast(a.device.type, enabled=False):
            e = a.float() @ b.float()
    return c.float(), d.float() + 1, e, torch.tensor([c.dtype == torch.bfloat16, e.dtype == torch.float32])


opt_mixed = torch.compile(mixed, backend="eager")


def main(device):
    a = (torch.arange(12, device=device).reshape(3, 4) % 5 - 2).float()
    b = (torch.arange(8, device=device).reshape(4, 2) % 3 - 1).float()
    w = (torch.arange(6, device=device).reshape(3, 2) % 4 - 1).float()
    return list(opt_mixed(a, b, w))
