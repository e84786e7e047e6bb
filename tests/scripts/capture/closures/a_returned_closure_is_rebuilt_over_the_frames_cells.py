# A closure over the frame's own cells leaves the frame as a new function per call, over that call's cells (Dynamo
# reconstructs it): no break, and each returned function binds its own call's values. A closure over the cells
# of a function the frame called cannot be rebuilt: it breaks at that call.
# expect: [2.0, 2.0]
# expect: [6.0, 6.0]
# expect: [5.0, 5.0]
# expect: [13.0, 13.0]
# expect graph_breaks: 1
# expect log: Unsupported nested function
import torch


@torch.compile
def make(x):
    k = x * 2
    return lambda y: y + k


def adder(k):
    return lambda y: y + k


@torch.compile
def make_via_helper(x):
    return adder(x * 4 + 1)


f1 = make(torch.ones(2))
f2 = make(torch.full((2,), 3.0))
print(f1(torch.zeros(2)).tolist())
print(f2(torch.zeros(2)).tolist())
g1 = make_via_helper(torch.ones(2))
g2 = make_via_helper(torch.full((2,), 3.0))
print(g1(torch.zeros(2)).tolist())
print(g2(torch.zeros(2)).tolist())
