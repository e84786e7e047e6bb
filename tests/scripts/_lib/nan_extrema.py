# torch.fmax / torch.fmin against torch.maximum where operands are NaN, compiled and eager, for the programs that
# run it with native code and with the inductor's reference interpreter.
import torch


def f(x, y, i, j):
    return [torch.fmax(x, y), torch.fmin(x, y), x.fmax(y), y.fmin(x), torch.maximum(x, y), torch.fmax(i, j), i.fmin(j)]


def print_compiled_and_eager():
    """Prints each compiled result as a list, then whether eager's results are the same lists."""
    nan = float('nan')
    x = torch.tensor([1.0, nan, nan, -2.0, 0.5, -0.0])
    y = torch.tensor([nan, 3.0, nan, 4.0, 0.5, 7.0])
    i = torch.tensor([-7, 3, 0, 5], dtype=torch.int32)
    j = torch.tensor([2, -3, 0, 9], dtype=torch.int32)
    got = [repr(t.tolist()) for t in torch.compile(f)(x, y, i, j)]
    want = [repr(t.tolist()) for t in f(x, y, i, j)]
    for line in got:
        print(line)
    print(got == want)
