# Exception control flow: try/except/else/finally, a bare `raise` re-raise caught outside, KeyError and
# IndexError from containers, StopIteration from next() on an exhausted iterator, `e.args`, an assert that
# fails and is caught, a raise inside a loop with continue, and an exception that escapes the compiled frame.
import torch


class Budget(Exception):
    def __init__(self, spent, limit):
        super().__init__(spent, limit)
        self.spent = spent
        self.limit = limit


def else_finally(x, n):
    trail = []
    try:
        y = x * n
    except ValueError:
        trail.append(1)
        y = x
    else:
        trail.append(2)
    finally:
        trail.append(3)
    return y + sum(trail)


def reraise(x, key):
    table = {"a": 1, "b": 2}
    try:
        try:
            v = table[key]
        except KeyError:
            raise
    except KeyError as e:
        v = len(e.args) * 10
    try:
        w = [1, 2, 3][v]
    except IndexError:
        w = -1
    return x * v + w


def drain(x):
    it = iter([1, 2])
    total = 0
    while True:
        try:
            total += next(it)
        except StopIteration:
            break
    try:
        assert total > 10, "small"
    except AssertionError as e:
        total = total + len(str(e))
    return x + total


def budgeted(x, limit):
    spent = 0
    skipped = 0
    for i in range(5):
        try:
            if spent + i > limit:
                raise Budget(spent + i, limit)
            spent += i
        except Budget as b:
            skipped += b.spent - b.limit
            continue
    return x * spent + skipped


def escapes(x, n):
    if n > 1:
        raise Budget(n, 1)
    return x + n


opt_else = torch.compile(else_finally, backend="eager")
opt_reraise = torch.compile(reraise, backend="eager")
opt_drain = torch.compile(drain, backend="eager")
opt_budgeted = torch.compile(budgeted, backend="eager")
opt_escapes = torch.compile(escapes, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    out = [opt_else(x, 3), opt_reraise(x, "b"), opt_reraise(x, "zz"), opt_drain(x), opt_budgeted(x, 4)]
    out.append(opt_escapes(x, 1))
    try:
        opt_escapes(x, 5)
    except Budget as b:
        out.append(torch.tensor([b.spent, b.limit], device=device))
    return out
