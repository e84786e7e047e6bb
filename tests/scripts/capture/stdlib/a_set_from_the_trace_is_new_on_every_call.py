# A set the compiled function returns is a new object on every call: changing one does not change the next.
# expect: 3 2 False
# expect graph_breaks: 0
import torch


@torch.compile(backend="eager")
def f(x):
    return x + 1, {1, 2}


_, first = f(torch.zeros(2))
first.add(3)
_, second = f(torch.zeros(2))
print(len(first), len(second), first is second)
