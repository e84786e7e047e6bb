# Appends to a list passed in are replayed on the real list after the graph; the second call sees a list of
# length 2, not 0: the length guard fails and it recompiles.
# expect: [[2.0, 2.0], [2.0, 2.0], [6.0, 6.0], [4.0, 4.0]]
# expect graph_breaks: 0
# expect unique_graphs: 2
import torch


@torch.compile
def collect(x, out):
    out.append(x * 2)
    out.extend([x + 1])
    return x + 1


acc = []
collect(torch.ones(2), acc)
collect(torch.full((2,), 3.0), acc)
print([t.tolist() for t in acc])
