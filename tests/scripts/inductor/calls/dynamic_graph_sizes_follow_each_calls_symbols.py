# A dynamic graph's buffer sizes are evaluated once per set of symbol values and kept: calls that change the
# symbols (and change them back) still allocate, check and return the sizes of their own inputs, and every result
# equals eager's, under one compile.
# expect: [4, 3] True
# expect: [7, 3] True
# expect: [4, 3] True
# expect: [2, 3] True
# expect unique_graphs: 1
# expect recompiles: 0
import torch


def f(x, w):
    h = torch.relu(x @ w)  # an extern result, then a stored buffer that two kernels read
    return h - h.mean(dim=0), h.sum(dim=1) * x.shape[0]


cf = torch.compile(f, dynamic=True)
w = torch.randn(5, 3)
for rows in [4, 7, 4, 2]:
    x = torch.randn(rows, 5)
    got = cf(x, w)
    want = f(x, w)
    print(list(got[0].shape), torch.allclose(got[0], want[0], atol=1e-5) and torch.allclose(got[1], want[1], atol=1e-5))
