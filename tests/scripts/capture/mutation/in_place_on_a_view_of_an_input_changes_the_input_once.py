# An in-place op through a view of an input (x[0] += 1) changes the input once, and the output sees it.
# expect: [[1.0, 1.0], [0.0, 0.0]] [[1.0, 1.0], [0.0, 0.0]]
import torch


@torch.compile
def bump_first_row(x):
    x[0] += 1.0
    return x * 1.0


x = torch.zeros(2, 2)
y = bump_first_row(x)
print(x.tolist(), y.tolist())
