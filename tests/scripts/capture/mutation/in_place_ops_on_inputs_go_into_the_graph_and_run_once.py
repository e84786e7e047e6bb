# In-place ops on a compiled frame's inputs go into the graph and change the real input exactly once per call
# (the trace computes on copies of the inputs). Eagerly one call maps p to (p - g/2) * 2 - g = 2p - 2g:
# 1 -> 2 - 2g, then 2(2 - 2g) - 2g = 4 - 6g.
# expect: [-2.0, -8.0, -20.0] -8.0 -30.0
# expect unique_graphs: 1
# expect graph_breaks: 0
import torch


@torch.compile
def step(p, g):
    p.add_(g, alpha=-0.5)
    p *= 2.0
    p -= g
    return p.sum()


p = torch.ones(3)
g = torch.tensor([1.0, 2.0, 4.0])
s1 = step(p, g)
s2 = step(p, g)
print(p.tolist(), s1.item(), s2.item())
