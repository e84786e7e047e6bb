# Recompile reasons: a dtype change, a shape change (then dynamic), a global flag, requires_grad, a list
# length, and the recompile limit (lowered to 2) after which the frame runs eagerly.
import torch

USE_BIAS = True


def affine(x, extra):
    y = x * 2
    if USE_BIAS:
        y = y + 1
    for e in extra:
        y = y + e
    return y


def limited(x, k):
    return x * k


opt_affine = torch.compile(affine, backend="eager")
opt_limited = torch.compile(limited, backend="eager", dynamic=False)


def main(device):
    global USE_BIAS
    out = []
    x = torch.arange(4, dtype=torch.float32, device=device)
    out.append(opt_affine(x, [1]))
    out.append(opt_affine(x.double(), [1]).float())
    out.append(opt_affine(torch.arange(6, dtype=torch.float32, device=device), [1]))
    out.append(opt_affine(torch.arange(8, dtype=torch.float32, device=device), [1]))
    USE_BIAS = False
    out.append(opt_affine(x, [1]))
    out.append(opt_affine(x.clone().requires_grad_(True), [1]).detach())
    out.append(opt_affine(x, [1, 2]))
    torch._dynamo.config.recompile_limit = 2
    for k in range(4):
        out.append(opt_limited(x, k))
    torch._dynamo.config.recompile_limit = 8
    return out
