# Closures in compiled code: lambdas made in a loop (late binding) and with a default (early binding), three
# levels of nesting with nonlocal, a closure appending to a list of the frame, and a closure returned to the caller.
import torch


def late_and_early(x):
    late = [lambda v: v * i for i in range(3)]
    early = [lambda v, i=i: v * i for i in range(3)]
    return sum(f(x) for f in late) + sum(f(x) for f in early)


def nested(x):
    log = []
    count = 0

    def outer(y):
        def inner(z):
            nonlocal count
            count += 1
            log.append(count)
            return z + count

        return inner(inner(y))

    r = outer(x)
    return r * len(log) + sum(log)


def make_scaler(x, k):
    def scale(v):
        return v * k + x

    return scale


opt_late = torch.compile(late_and_early, backend="eager")
opt_nested = torch.compile(nested, backend="eager")
opt_make = torch.compile(make_scaler, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    fn = opt_make(x, 2.0)
    return [opt_late(x), opt_nested(x), fn(torch.ones(3, device=device)), fn(x)]
