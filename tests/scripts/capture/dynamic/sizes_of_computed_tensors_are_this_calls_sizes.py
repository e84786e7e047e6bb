# Sizes the code reads from computed tensors after the automatic-dynamic recompile are this call's: exact where the
# op passes a dimension through (k.size(-1) folds; a branch on k.shape[0], the symbol s0, is a guard, not a break),
# read in the graph where it does not (the slice's size).
# expect: [True, True, True, True]
# expect graph_breaks: 0
# expect graph: .size(0)
import math
import torch


@torch.compile(backend="eager")
def f(x, w):
    k = (x @ w).relu()
    scale = 1.0 / math.sqrt(k.size(-1))
    tail = k[1:]
    if k.shape[0] > 5:
        k = k * 2.0
    return k * scale + tail.shape[0] + len(tail)


w = torch.ones(4, 3)
results = []
for n in [4, 5, 7, 3]:
    t = f(torch.ones(n, 4), w)
    expected = (2.0 if n > 5 else 1.0) * 4.0 / math.sqrt(3.0) + 2.0 * (n - 1)
    results.append(t.size(0) == n and abs(t[0, 0].item() - expected) < 1e-4)
print(results)
