# `for i in range(n)` with an int argument that changes between calls: Dynamo specializes the int the loop
# depends on, so every new value recompiles (until the recompile limit, after which calls run eagerly).
import torch


def accumulate(x, n):
    for i in range(n):
        x = x + i
    return x


opt_accumulate = torch.compile(accumulate, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    out = []
    for n in [1, 2, 3, 3, 5, 2, 7, 8, 9, 10, 11, 12]:
        out.append(opt_accumulate(x, n))
    return out
