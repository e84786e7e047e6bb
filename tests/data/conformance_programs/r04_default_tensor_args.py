# Default tensor arguments of functions and methods are the same tensors on every call: updates made by a
# compiled call are seen by the next call, compiled or eager.
import torch


def fill(x, acc=torch.zeros(4), *, count=torch.zeros(1)):
    acc.add_(x)
    count.add_(1)
    return acc * 1, count * 1


class Counter:
    def step(self, x, state=torch.ones(4)):
        state.mul_(2)
        return state + x


def run(x, c):
    a, n = fill(x)
    return a, n, c.step(x)


opt_run = torch.compile(run, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32)
    c = Counter()
    out = []
    for i in range(4):
        fn = opt_run if i % 2 == 1 else run
        a, n, s = fn(x, c)
        out.extend([a, n, s])
    return out
