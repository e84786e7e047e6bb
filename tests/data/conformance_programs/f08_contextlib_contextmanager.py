# contextlib.contextmanager in compiled code: a generator-based context manager that appends to a list on entry
# and in its finally block, used with `as`, and nested inside torch.no_grad().
import contextlib

import torch


@contextlib.contextmanager
def offset(values, amount):
    values.append(amount)
    try:
        yield amount * 2
    finally:
        values.append(-amount)


def generator_ctx(x):
    values = []
    with offset(values, 3) as doubled:
        y = x + doubled
    with torch.no_grad():
        with offset(values, 1) as two:
            y = y * two
    return y * len(values) + sum(values)


opt_generator = torch.compile(generator_ctx, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    return [opt_generator(x), opt_generator(x + 1)]
