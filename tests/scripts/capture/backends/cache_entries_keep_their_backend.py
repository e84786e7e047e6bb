# PyTorch keeps the backend per cache entry: compiling the same code for another backend adds an entry instead
# of reusing the first one, and a call under either backend hits its own entry again (no third compile).
# expect: 4.0 40.0 4.0 40.0
# expect compiles: 0/0 f, 0/1 f
import torch


def f(x):
    return x * 2


def times_ten(gm, example_inputs):
    def run(*args):
        return [t * 10 for t in gm.forward(*args)]

    return run


x = torch.ones(2)
a = torch.compile(f, backend="eager")(x)
b = torch.compile(f, backend=times_ten)(x)
c = torch.compile(f, backend="eager")(x)
d = torch.compile(f, backend=times_ten)(x)
print(a.sum().item(), b.sum().item(), c.sum().item(), d.sum().item())
