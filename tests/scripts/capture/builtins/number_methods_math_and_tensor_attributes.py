# Methods of int/float arguments fold on their (guarded) value, math functions of constants fold, hasattr of a
# tensor reads its class, and x.mT is a tensor property: all without a graph break, as in Dynamo.
# expect: [2.0, 2.0] [0.5, 0.5]
# expect: True [[1.0, 3.0], [2.0, 4.0]]
# expect graph_breaks: 0
# expect unique_graphs: 3
import math

import torch


@torch.compile(backend="eager")
def scale(t, m):
    return t * 2 if m.is_integer() else t * math.radians(m * 180 / math.pi)


@torch.compile(backend="eager")
def transposed(x):
    return hasattr(x, "to"), x.mT + 0


t = torch.ones(2)
print(scale(t, 1.0).tolist(), scale(t, 0.5).tolist())
has, y = transposed(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(has, y.tolist())
