# Arithmetic on dynamic sizes (mark_dynamic): padding up to a multiple with // and *, a remainder, min/max of a
# size and a constant, a split at n // 2, sizes of two inputs added for a cat and a new_zeros, a slice from a
# computed start, expand to (n, n) and a reshape with a size product; one graph serves every later length.
import torch


def pad_to_multiple(x):
    n = x.shape[0]
    m = (n + 3) // 4 * 4
    y = torch.nn.functional.pad(x, (0, m - n))
    return y.reshape(-1, 4).sum(1), torch.tensor([m, n % 4, max(n, 8), min(n, 8)], device=x.device)


def split_and_join(x, y):
    n = x.shape[0]
    half = n // 2
    a, b = x[:half], x[half:]
    joined = torch.cat([b, y, a])
    z = joined.new_zeros(x.shape[0] + y.shape[0])
    return joined + z + (n - half)


def square_views(x):
    n = x.size(0)
    grid = x.expand(n, n) + x[:, None]
    tail = x[n // 3:]
    flat = grid.reshape(n * n)
    return flat.sum() + tail.sum() * n, grid.diagonal()


opt_pad = torch.compile(pad_to_multiple, backend="eager")
opt_split = torch.compile(split_and_join, backend="eager")
opt_square = torch.compile(square_views, backend="eager")


def main(device):
    out = []
    for n in (6, 10, 13):
        x = torch.arange(n, dtype=torch.float32, device=device)
        y = torch.ones(n - 2, device=device)
        torch._dynamo.mark_dynamic(x, 0)
        torch._dynamo.mark_dynamic(y, 0)
        sums, sizes = opt_pad(x)
        out += [sums, sizes.float(), opt_split(x, y)]
        total, diag = opt_square(x)
        out += [total, diag]
    return out
