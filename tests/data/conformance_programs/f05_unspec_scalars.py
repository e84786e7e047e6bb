# Unspecialised ints and floats: an int and a float argument that change between calls become symbolic after
# the first change (automatic dynamic), are used in tensor arithmetic and in Python arithmetic, and a branch
# on the int specialises it again.
import torch


def scale(x, n, alpha):
    y = x * alpha + n
    m = n * 2 + 1
    return y / m


def branchy(x, n):
    if n > 3:
        return x + n
    return x - n


opt_scale = torch.compile(scale, backend="eager")
opt_branchy = torch.compile(branchy, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    out = []
    for n, alpha in [(1, 0.5), (2, 0.25), (3, 1.5), (4, 2.0)]:
        out.append(opt_scale(x, n, alpha))
    for n in [1, 2, 5, 6, 2]:
        out.append(opt_branchy(x, n))
    return out
