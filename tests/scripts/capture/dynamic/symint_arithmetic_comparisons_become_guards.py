# Ints computed from symbols keep their expressions (Dynamo's ShapeEnv): comparing `depth - 1` of a symbolic int
# argument, `s % 2` of a dynamic size or `numel()` is a guard on the symbol, never a graph break, and a call those
# guards reject recompiles while the others reuse the graph.
# torch_logs: graph_breaks,recompiles,guards
# expect: [0.25, 0.25] [0.125, 0.125] [0.25, 0.25] [0.0625, 0.0625]
# expect: [1.0, 5.0] [1.0, 5.0, 9.0] [1.0, 5.0, 9.0, 13.0] [-0.0, -1.0, -2.0, -3.0, -4.0]
# expect graph_breaks: 0
# expect unique_graphs: 6
# expect recompiles: 4
# expect compiles: 0/0 halve_to, 0/1 halve_to, 0/2 halve_to, 1/0 pairs, 1/1 pairs, 1/2 pairs
# expect log: L['depth'] - 3 == 0
# expect log: L['x'].size()[0] % 2 == 0
# expect log: - 0/1: depth - 3 == 0
# expect log: - 1/1: x.size()[0] % 2 == 0
# expect log: L['x'].size()[0] >= 4
import torch


def halve(x, depth):
    if depth == 0:
        return x
    return halve(x * 0.5, depth - 1)


@torch.compile(backend="eager")
def halve_to(x, depth):
    return halve(x, depth)


@torch.compile(backend="eager")
def pairs(x):
    s = x.shape[0]
    if s % 2 == 0 and x.numel() >= 4:
        return x.view(s // 2, 2).sum(1)
    return -x


x = torch.ones(2)
print(*[halve_to(x, d).tolist() for d in (2, 3, 2, 4)])
print(*[pairs(torch.arange(n, dtype=torch.float32)).tolist() for n in (4, 6, 8, 5)])
