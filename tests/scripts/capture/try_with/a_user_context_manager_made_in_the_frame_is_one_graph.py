# A with-statement on a user-defined context manager made in the frame is inlined into one graph of f, as real
# torch 2.11 does (compile id 0/0 only), and later calls hit the cache (no recompile).
# expect: [18.0, 18.0, 18.0]
# expect recompiles: 0
# expect graph_breaks: 0
# expect compiles: 0/0 f
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
