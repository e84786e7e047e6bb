# Indexing forms in compiled code: a slice object made in the frame, Ellipsis and None, lists of ints on two
# dims, a long tensor index for reading and for index_put, negative indices, a step slice, narrow, index_select,
# take_along_dim, and a boolean-mask read (an output of data-dependent size).
import torch


def reads(x, idx):
    s = slice(1, None, 2)
    a = x[s]
    b = x[..., -1]
    c = x[None, 1:, ...].squeeze(0)
    d = x[[0, 2]][:, [3, 1]]
    e = x[idx]
    f = x.narrow(1, 1, 2) + x.index_select(1, idx)
    g = torch.take_along_dim(x, idx[None, :].expand(x.shape[0], -1), dim=1)
    return a.sum() + b.sum() + c.sum() + d.sum(), e, f, g, x[-1, ::3]


def writes(x, idx, v):
    y = x.clone()
    y[idx] = v
    y[:, 0] = -1.0
    y[..., 1::2] *= 2
    y.index_put_((idx, idx), torch.tensor(100.0, device=x.device))
    return y


def masked(x):
    return x[x > 5].sum() + x[x > 5].numel()


opt_reads = torch.compile(reads, backend="eager")
opt_writes = torch.compile(writes, backend="eager")
opt_masked = torch.compile(masked, backend="eager")


def main(device):
    x = torch.arange(16, dtype=torch.float32, device=device).reshape(4, 4)
    idx = torch.tensor([2, 0], device=device)
    v = torch.full((4,), 9.0, device=device)
    return [*opt_reads(x, idx), opt_writes(x, idx, v), opt_masked(x)]
