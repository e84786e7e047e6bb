# Number methods and operator functions in compiled code: as_integer_ratio/conjugate/bit_length/hex/is_integer of
# int and float arguments (int and float values in turn), math.radians of an int argument, operator.pos/neg/abs/
# truth/index/length_hint mapped over ranges, comparisons of tuples of different lengths, operator comparisons of a
# constant with a tensor, torch.finfo/iinfo fields, min/max mixing 0-d tensors and ints.
import math
import operator

import torch


def by_method(t, m):
    r = m.as_integer_ratio()
    c = m.conjugate()
    z = t * r[0] / r[1] + c
    if isinstance(m, float):
        z = z + len(m.hex()) + float(m.is_integer())
    else:
        z = z + m.bit_length()
    return z


def radians(x, a):
    return x + math.radians(a)


def fold(x):
    vals = list(map(operator.neg, range(-3, 3))) + list(map(abs, range(-2, 2))) + list(map(operator.pos, range(2)))
    truths = list(map(operator.truth, range(-1, 2)))
    hints = tuple(map(operator.length_hint, [tuple(range(i)) for i in range(4)]))
    idx = operator.index(5)
    acc = x * sum(vals) + sum(truths) + sum(hints) + idx
    for a, b, w in [((1, 2, 3), (1, 2, 3), 1.5), ((1, 5), (1, 2, 3), 2.5), ((1, 2), (1, 2, 3), 3.5),
                    ((0, 9, 9), (1,), 4.5)]:
        if a < b:
            acc = acc + w
        if a >= b:
            acc = acc - 2 * w
        if a != b:
            acc = acc * 1.25
    return acc


def compare_const(x):
    outs = []
    for op in (operator.lt, operator.le, operator.gt, operator.ge, operator.ne, operator.eq):
        outs.append(op(0.5, x).float())
    outs.append(torch.full_like(x, float(operator.is_(None, x))))
    outs.append(torch.full_like(x, float(operator.is_not(None, x))))
    return torch.stack(outs)


def limits(x):
    fi = torch.finfo(x.dtype)
    ii = torch.iinfo(torch.int16)
    a = x.sum()
    b = x.mean()
    lo = min(max(a, 0), 100)
    hi = max(0, min(1, b))
    return x * fi.eps * 1e6 + ii.max / 1000.0 + ii.bits + fi.bits, max(lo, hi) - min(lo, hi)


opt_method = torch.compile(by_method, backend="eager")
opt_radians = torch.compile(radians, backend="eager", fullgraph=True)
opt_fold = torch.compile(fold, backend="eager")
opt_compare = torch.compile(compare_const, backend="eager", fullgraph=True)
opt_limits = torch.compile(limits, backend="eager")


def main(device):
    t = torch.arange(3, dtype=torch.float32, device=device)
    outs = []
    for m in (0, 3, 2.5, 6.0):
        outs.append(opt_method(t, m))
    outs.append(opt_radians(t, 30))
    outs.append(opt_fold(t))
    x = torch.linspace(-1.0, 2.0, 5, device=device)
    outs.append(opt_compare(x))
    lim, spread = opt_limits(x)
    return outs + [lim, spread]
