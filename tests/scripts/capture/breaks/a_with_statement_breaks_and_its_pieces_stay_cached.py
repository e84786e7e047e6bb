# A with-statement on a user-defined context manager: the trace stops at the block with no resume point inside it,
# so f runs eagerly (its manager's __enter__/__exit__ compile as frames of their own) and later calls hit every
# cache (no recompile). Real torch 2.11 inlines a manager made in the frame into one graph of f; cwb does not yet.
# expect: [18.0, 18.0, 18.0]
# expect recompiles: 0
# expect compiles: 0/0 f failed, 1/0 __enter__, 2/0 __exit__
import torch


class Noisy:
    def __enter__(self):
        return self

    def __exit__(self, a, b, c):
        return False


@torch.compile
def f(x):
    y = x * 2.0
    with Noisy():
        z = y + 1.0
    return z * 3.0


out = [f(torch.ones(2)), f(torch.ones(2)), f(torch.ones(2))]
print([t.sum().item() for t in out])
