# An unsupported context manager breaks the graph; the first call compiles each piece once and the later calls
# hit every cache (no recompile).
# expect: [18.0, 18.0, 18.0]
# expect recompiles: 0
# expect compiles: 0/0 f, 1/0 __enter__, 2/0 torch_dynamo_resume_in_f_at_20
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
