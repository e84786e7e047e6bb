# torch.multinomial inside compiled code is a random op: from the same seed a compiled call draws what the eager
# call draws (with and without replacement, the function and the method), and a distribution with one possible
# outcome always gives it. torch.linalg.svd (reduced and full matrices) and torch.linalg.svdvals inside compiled
# code: the outputs are what neither the random stream nor LAPACK's choice of signs decides (comparisons of compiled
# against eager draws, deterministic draws, singular values, reconstructions, |U|, |Vh|, orthogonality).
import torch


def draw(p):
    with_replacement = torch.multinomial(p, 5, replacement=True)
    without = torch.multinomial(p, 3)
    return with_replacement, without, p.multinomial(1)


def certain(p, one_hot):
    every = torch.multinomial(p, p.shape[-1]).sort(dim=-1).values
    return every, torch.multinomial(one_hot, 4, replacement=True), one_hot.multinomial(1)


def reduced(a):
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    return s, u @ torch.diag(s) @ vh, u.abs(), vh.abs()


def full(a):
    u, s, vh = torch.linalg.svd(a)
    k = s.shape[0]
    return s, (u[:, :k] * s) @ vh[:k], u.mT @ u, vh @ vh.mT, torch.linalg.svdvals(a * 2)


opt_draw = torch.compile(draw, backend="eager")
opt_certain = torch.compile(certain)
opt_reduced = torch.compile(reduced)
opt_full = torch.compile(full, backend="aot_eager")


def main(device):
    p = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]], device=device)
    torch.manual_seed(0)
    eager = draw(p)
    torch.manual_seed(0)
    compiled = opt_draw(p)
    out = [(e == c).float() for e, c in zip(eager, compiled)]
    one_hot = torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 3.0, 0.0, 0.0]], device=device)
    out += list(opt_certain(p, one_hot))
    a = torch.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0], [1.0, 0.0, 1.0]], device=device)
    out += list(opt_reduced(a))
    out += list(opt_full(a))
    return out
