# torch.div's rounding modes compile to the elementwise table's rows (div_trunc: truncation toward zero, floor),
# on floats and integers, in every spelling; softplus with any beta and threshold is PyTorch's decomposition.
# Compiled and eager print the same.
# expect: [3.0, -3.0, -1.0, -0.0] [3.0, -4.0, -2.0, -1.0] [3, -3, -1, 0] [3, -3, -1, 0]
# expect: [3.0, -3.0, -1.0, -0.0] [3.0, -4.0, -2.0, -1.0] [3, -3, -1, 0] [3, -3, -1, 0]
# expect: True True
# expect graph_breaks: 0
# expect code: 1 kernels, 0 extern calls
import torch
import torch.nn.functional as F


def divisions(x, y, i, j):
    return [torch.div(x, y, rounding_mode='trunc'), x.div(y, rounding_mode='floor'),
            torch.div(i, j, rounding_mode='trunc'), i.divide(j, rounding_mode='trunc')]


def softplus(x):
    return F.softplus(x, beta=2.0, threshold=1.0), F.softplus(x)


x = torch.tensor([7.5, -7.5, 3.0, -0.5])
y = torch.tensor([2.0, 2.0, -2.0, 4.0])
i = torch.tensor([7, -7, 3, -1])
j = torch.tensor([2, 2, -2, 4])
print(*[t.tolist() for t in torch.compile(divisions)(x, y, i, j)])
print(*[t.tolist() for t in divisions(x, y, i, j)])
s = torch.tensor([-1.0, 0.0, 0.4, 0.6, 3.0, 25.0])
compiled, eager = torch.compile(softplus)(s), softplus(s)
print(torch.equal(compiled[0], eager[0]), torch.equal(compiled[1], eager[1]))
