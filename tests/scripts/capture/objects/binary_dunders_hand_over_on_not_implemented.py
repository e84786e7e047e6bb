# In compiled code a user dunder that returns NotImplemented hands over to the other operand's reflected one, as
# eagerly: 5 + v runs v.__radd__, v < w and w > v run __lt__; all traced in one graph, results equal eager.
# expect: [111.0, 111.0]
# expect: [111.0, 111.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


class V:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        if not isinstance(other, V):
            return NotImplemented
        return self.v < other.v

    def __add__(self, other):
        if not isinstance(other, V):
            return NotImplemented
        return V(self.v + other.v)

    def __radd__(self, other):
        return V(self.v + other + 100)


def f(x, a, b):
    c = 5 + a
    d = a + b
    return x * (c.v + d.v) + (1 if a < b else 0) + (1 if b > a else 0)


print(torch.compile(f, backend="eager")(torch.ones(2), V(1), V(2)).tolist())
print(f(torch.ones(2), V(1), V(2)).tolist())
