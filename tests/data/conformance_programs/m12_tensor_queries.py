# Tensor queries and the builtins that read them: shape unpacking, size(), dim(), numel(), dtype and device
# checks, is_floating_point, torch.is_tensor, len() of a tensor; .item() and .tolist() (graph breaks with
# Dynamo's reason), a branch on a tensor's value (data-dependent: a graph break), math on Python ints,
# str formatting of sizes, and print() inside compiled code.
import math

import torch


def queries(x):
    b, n = x.shape
    acc = x * b + n + x.size(1) + x.dim() + x.numel() + len(x)
    if x.dtype == torch.float32 and x.is_floating_point() and torch.is_tensor(x):
        acc = acc + 1
    if x.device.type in ("cpu", "cuda"):
        acc = acc + 2
    label = "{}x{}".format(b, n) + f"-{b * n:03d}"
    parts = label.split("-")
    acc = acc + len(parts[0]) + int(parts[1]) + math.isqrt(n * n) + divmod(17, n)[1] + abs(-n) + round(2.6)
    return acc + math.floor(math.log2(n * 8))


def breaks(x):
    total = x.sum().item()
    as_list = x[0].tolist()
    y = x * total + as_list[-1]
    if y.sum() > 0:
        y = y + 1
    else:
        y = y - 1
    print("rows", len(y))
    return y


opt_queries = torch.compile(queries, backend="eager")
opt_breaks = torch.compile(breaks, backend="eager")


def main(device):
    x = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3)
    return [opt_queries(x), opt_breaks(x), opt_breaks(-x - 1)]
