# A graph with a list argument (torch.cat), a keepdim reduction, a broadcast add and a transposed output: the node
# rows an engine trace stores for it (read by tests/unit/engine/capture/capture_graph_rows_test.cpp).
import torch

@torch.compile
def f(x, y):
    a = torch.cat([x, y * 2], dim=0)
    b = a.sum(dim=0, keepdim=True)
    c = torch.sin(a) + b
    return c.transpose(0, 1), b

f(torch.ones(2, 3), torch.zeros(2, 3))
