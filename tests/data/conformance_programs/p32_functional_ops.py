# torch and torch.nn.functional operations that model code uses, compiled: pad, normalize, gelu (tanh), silu,
# softplus, einsum, split with sizes, chunk, flip, roll, gather, scatter_add, topk, sort, cumsum, masked_fill,
# tril/triu, clamp with tensor bounds, where with a scalar, one_hot.
import torch
import torch.nn.functional as F


def ops(x, idx):
    out = []
    out.append(F.pad(x, (1, 2), value=0.5))
    out.append(F.normalize(x, dim=-1))
    out.append(F.gelu(x, approximate="tanh") + F.silu(x) + F.softplus(x))
    out.append(torch.einsum("ij,kj->ik", x, x))
    a, b = torch.split(x, [1, 3], dim=1)
    c1, c2 = x.chunk(2, dim=0)
    out.append(a.sum(1) + b.sum(1) + c1.sum() - c2.sum())
    out.append(x.flip(0) + x.roll(1, dims=1))
    out.append(torch.gather(x, 1, idx))
    out.append(torch.zeros(2, 4, device=x.device).scatter_add(1, idx, x[:, :2]))
    vals, pos = x.topk(2, dim=1)
    out.extend([vals, pos])
    out.append(x.sort(dim=1, descending=True).values)
    out.append(x.cumsum(1))
    out.append(x.masked_fill(x > 0.5, 9.0))
    sq = x[:, :2].repeat(1, 2)[:, :4].reshape(2, 4)
    out.append(sq.tril() - sq.triu(1))
    out.append(x.clamp(min=torch.full_like(x, -0.3), max=torch.full_like(x, 0.4)))
    out.append(torch.where(x > 0, x, 0.0))
    out.append(F.one_hot(idx[:, 0], num_classes=4))
    return out


opt_ops = torch.compile(ops, backend="eager")


def main(device):
    x = torch.sin(torch.arange(8, dtype=torch.float32, device=device).reshape(2, 4) * 1.3)
    idx = torch.tensor([[3, 0], [1, 2]], device=device)
    return opt_ops(x, idx)
