# A plain class constructed inside the compiled function: __init__, a method, a property, a class attribute and
# __eq__ are traced, so the whole function is one graph. p.scaled() = 2 * 3 + 1 = 7, and p == q holds.
# expect: 7.0
# expect: True
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


class Point:
    offset = 1.0

    def __init__(self, x, k):
        self.x = x
        self.k = k

    @property
    def doubled(self):
        return self.x * 2

    def scaled(self):
        return self.doubled * self.k + self.offset

    def __eq__(self, other):
        return self.k == other.k


@torch.compile(backend="eager")
def f(x):
    p = Point(x, 3)
    q = Point(x + 1, 3)
    return p.scaled(), p == q


out, same = f(torch.ones(2))
print(out[0].item())
print(same)
