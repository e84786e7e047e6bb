# A closure that escapes the frame breaks the graph at its definition, and binds each call's values.
# expect: [2.0, 2.0]
# expect: [6.0, 6.0]
# expect graph_breaks: 1
# expect log: Unsupported nested function
import torch


@torch.compile
def make(x):
    k = x * 2
    return lambda y: y + k


f1 = make(torch.ones(2))
f2 = make(torch.full((2,), 3.0))
print(f1(torch.zeros(2)).tolist())
print(f2(torch.zeros(2)).tolist())
