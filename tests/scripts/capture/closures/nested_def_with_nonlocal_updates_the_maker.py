# A nested def with `nonlocal` sees and updates its maker's variable, inlined in one graph.
# expect: [4.0, 4.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile
def f(x):
    total = x

    def add(y, scale=2.0):
        nonlocal total
        total = total + y * scale

    add(x)
    add(x, scale=1.0)
    return total


print(f(torch.ones(2)).tolist())
