# An error of an operation on a symbolic int or a tensor may hold for this call's values only, so it is not
# taken into the frame's handler at trace time: every call gets the outcome its own values give, in and out of
# range, before and after the int became symbolic.
# expect: [20.0, 20.0]
# expect: [30.0, 30.0]
# expect: [-1.0, -1.0]
# expect: [10.0, 10.0]
# expect: [-1.0, -1.0]
import torch


@torch.compile(backend="eager")
def f(x, n):
    try:
        v = [10, 20, 30][n]
    except IndexError:
        v = -1
    try:
        w = x[n - n]
    except IndexError:
        w = x[0] * 100
    return x * 0 + v + w * 0


x = torch.zeros(2)
for n in (1, 2, 5, 0, 7):
    print(f(x, n).tolist())
