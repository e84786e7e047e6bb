# A comprehension over a local is inlined.
# expect: [[3.0, 3.0], [9.0, 9.0]]
# expect graph_breaks: 0
import torch


@torch.compile
def f(xs, s):
    k = s * 2
    return [t * k for t in xs]


print([t.tolist() for t in f([torch.ones(2), torch.full((2,), 3.0)], 1.5)])
