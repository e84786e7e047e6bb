# List semantics in compiled code: append/extend/insert/pop/remove/index/count/reverse/sort(key=, reverse=),
# slice assignment and deletion, repetition, star unpacking, min/max with key, any/all, a list argument mutated
# in the frame (the caller sees the change) and a list of tensors built and stacked.
import torch


def list_methods(x):
    xs = [3, 1, 4, 1, 5]
    xs.append(9)
    xs.extend([2, 6])
    xs.insert(0, 5)
    last = xs.pop()
    first = xs.pop(0)
    xs.remove(1)
    where = xs.index(5)
    ones = xs.count(1)
    xs.reverse()
    ys = sorted(xs, reverse=True)
    xs.sort(key=lambda v: (v % 3, -v))
    xs[1:3] = [7, 7, 7]
    del xs[-1]
    zs = xs * 2 + [0]
    head, *mid, tail = zs
    acc = x * (last + first * 10) + where + ones * 100
    for i, v in enumerate(ys, start=1):
        acc = acc + v * i
    return acc + sum(mid) * tail + len(zs) + head


def key_funcs(x):
    words = ["bb", "a", "dddd", "ccc"]
    longest = max(words, key=len)
    shortest = min(words, key=lambda w: len(w))
    flags = [len(w) > 1 for w in words]
    scale = len(longest) * 10 + len(shortest)
    if any(flags) and not all(flags):
        scale = scale + 1000
    return x * scale


def mutate_arg(x, items):
    items.append(x * 2)
    items[0] = items[0] + 1
    popped = items.pop(1)
    return torch.stack(items).sum(0) + popped


def comprehension(x):
    rows = [x[i] * (i + 1) for i in range(x.shape[0]) if i != 1]
    cols = [[r[j] for j in range(2)] for r in rows]
    flat = [v for row in cols for v in row]
    return torch.stack(flat) + len(flat)


opt_methods = torch.compile(list_methods, backend="eager")
opt_keys = torch.compile(key_funcs, backend="eager")
opt_mutate = torch.compile(mutate_arg, backend="eager")
opt_comp = torch.compile(comprehension, backend="eager")


def main(device):
    x = torch.arange(6, dtype=torch.float32, device=device)
    items = [x.clone(), x + 10, x * 3]
    out = [opt_methods(x), opt_keys(x), opt_mutate(x, items)]
    out.extend(items)
    out.append(opt_comp(x.reshape(3, 2)))
    return out
