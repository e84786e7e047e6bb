# `**` of a mapping that is not a dict reads its keys() and then each item, as Python does: a MutableMapping
# subclass's own keys (through its __iter__) and __getitem__ are inlined, the tensor it holds is a graph input.
# expect: [3.0, 6.0] 2
# expect graph_breaks: 0
# expect unique_graphs: 1
from collections.abc import MutableMapping

import torch


class Settings(MutableMapping):
    def __init__(self):
        self._names = ["scale", "shift"]
        self._values = [torch.tensor([2.0, 4.0]), 1.0]

    def __getitem__(self, key):
        for name, value in zip(self._names, self._values):
            if name == key:
                return value
        raise KeyError(key)

    def __setitem__(self, key, value):
        raise KeyError(key)

    def __delitem__(self, key):
        raise KeyError(key)

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)


def affine(x, scale, shift):
    return x * scale + shift


settings = Settings()


@torch.compile(backend="eager")
def f(x):
    return affine(x, **settings), len(settings)


out, n = f(torch.tensor([1.0, 1.25]))
print(out.tolist(), n)
