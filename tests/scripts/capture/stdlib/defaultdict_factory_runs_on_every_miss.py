# A defaultdict's factory runs on every call that misses a key: the factory counts its calls, so a trace that ran
# __missing__ itself would bake the first call's value in.
# expect: [1.0, 1.0]
# expect: [2.0, 2.0]
# expect: [3.0, 3.0]
# expect: 3 0
import collections
import torch

made = []


def factory():
    made.append(1)
    return len(made)


dd = collections.defaultdict(factory)


@torch.compile(backend="eager")
def f(x):
    v = dd["k"]
    del dd["k"]
    return x + v


for _ in range(3):
    print(f(torch.zeros(2)).tolist())
print(len(made), len(dd))
