# nn.Module inheritance: a base forward that calls an overridden hook method, super().forward() in a subclass,
# a mixin adding a method, a plain Python list of ints on the module, nn.Identity, and a Sequential of custom
# modules built from an OrderedDict with named access.
import collections

import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.sizes = [1, 2, 3]

    def transform(self, x):
        return x

    def forward(self, x):
        return self.transform(x) * self.k + sum(self.sizes)


class ScaleMixin:
    def extra_scale(self):
        return 0.5


class Child(ScaleMixin, Base):
    def transform(self, x):
        return torch.tanh(x)

    def forward(self, x):
        y = super().forward(x)
        return y * self.extra_scale() + type(self).__name__.count("C")


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(collections.OrderedDict([("first", Child(2.0)), ("mid", nn.Identity()),
                                                          ("last", Base(3.0))]))

    def forward(self, x):
        return self.seq(x) + self.seq.first.k + len(self.seq)


def main(device):
    model = Wrapper().to(device)
    cmodel = torch.compile(model, backend="eager")
    x = torch.linspace(-2, 2, 5, device=device)
    return [cmodel(x), cmodel(x * 0.5)]
