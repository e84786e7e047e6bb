# A `with` on a contextlib.contextmanager or on a user context manager made in the frame is inlined into the graph
# (Dynamo's GenericContextWrappingVariable): __enter__, the generator's code up to its yield, the block, then
# __exit__ and the generator's finally, with their effects on lists the frame made.
# expect: [51.0, 59.0, 67.0, 75.0]
# expect: [9.0, 9.0]
# expect graph_breaks: 0
# expect unique_graphs: 2
# expect compiles: 0/0 generator_ctx, 1/0 local_ctx
import contextlib

import torch


@contextlib.contextmanager
def offset(values, amount):
    values.append(amount)
    try:
        yield amount * 2
    finally:
        values.append(-amount)


class Scaled:
    def __init__(self, factor):
        self.factor = factor
        self.log = []

    def __enter__(self):
        self.log.append("enter")
        return self.factor * 2

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit")


@torch.compile(backend="eager")
def generator_ctx(x):
    values = []
    with offset(values, 3) as doubled:
        y = x + doubled
    with torch.no_grad():
        with offset(values, 1) as two:
            y = y * two
    return y * len(values) + sum(values) + 3


@torch.compile(backend="eager")
def local_ctx(x):
    s = Scaled(3)
    with s as doubled:
        y = x + doubled
    return y + len(s.log)


print(generator_ctx(torch.arange(4, dtype=torch.float32)).tolist())
print(local_ctx(torch.ones(2)).tolist())
