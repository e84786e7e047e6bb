# Dynamo traces these without a break: list()/tuple()/dict() of traced values, sum and map over tensors,
# float("-inf"), star-unpacking and ** merging into a call. (x+1) + 2(x+1) + 2(x+2) = 5x + 7; * 2 + 1 + 2 = 10x + 17.
# expect: [17.0, 17.0]
# expect: [27.0, 27.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


def scale(t, factor=1.0, shift=0.0):
    return t * factor + shift


@torch.compile(backend="eager")
def f(x):
    parts = list((x, x + 1, x + 2))
    first, *rest = parts
    d = dict(a=first, b=rest[0])
    d2 = dict(d)
    options = {"factor": 2.0}
    total = sum(map(lambda t: t * 2, tuple(rest)), d2["b"])
    floor = float("-inf")
    return scale(total, **options, shift=1.0).clamp(min=floor) + len(d2)


print(f(torch.zeros(2)).tolist())
print(f(torch.ones(2)).tolist())
