# Named tuples keep their class in the trace: type(p) is P, and a plain tuple is not a P.
# expect: [2.0, 2.0]
# expect: [3.0, 3.0]
import collections
import torch

P = collections.namedtuple("P", ["a", "b"])


@torch.compile(backend="eager")
def f(p):
    if type(p) is P and isinstance(p, P):
        return p.a + p.b
    return p.a - p.b


print(f(P(torch.ones(2), torch.ones(2))).tolist())
print(f((torch.ones(2), torch.ones(2)).__class__ is tuple and P(torch.ones(2), torch.ones(2) * 2)).tolist())
