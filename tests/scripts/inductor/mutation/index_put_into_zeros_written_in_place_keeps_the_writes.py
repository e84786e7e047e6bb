# torch.index_put into zeros (embedding's backward) lowers to one extern that makes its own zeros, but only when the
# index_put is their one reader: zeros written in place first (z.add_(1), z[0] = 2) keep those writes, as in eager.
# expect: True True True
# expect code_count 1: extern_kernels.index_put(
import torch


def written_then_put(idx, v):
    z = torch.zeros(4, 3)
    z.add_(1)
    return torch.index_put(z, (idx,), v, True)


def put_into_fresh(idx, v):
    z = torch.zeros(4, 3)
    return torch.index_put(z, (idx,), v, True)


def row_set_then_put(idx, v):
    z = torch.zeros(4, 3)
    z[0] = 2
    return torch.index_put(z, (idx,), v)


torch.manual_seed(0)
idx = torch.tensor([0, 2, 2])
v = torch.randn(3, 3)
with torch.no_grad():
    print(*(torch.equal(torch.compile(f)(idx, v), f(idx, v)) for f in [written_then_put, put_into_fresh, row_set_then_put]))
