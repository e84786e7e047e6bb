# A compiled function that recurses without end: RecursionError, as in eager code.
import torch


@torch.compile
def deeper(x, n):
    return deeper(x + 1, n + 1)


deeper(torch.ones(2), 0)
