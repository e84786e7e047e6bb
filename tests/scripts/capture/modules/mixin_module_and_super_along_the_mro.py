# nn.Module with mixins: `class Block(ScaleMixin, nn.Module)` is a module (its parameters are graph inputs, its
# forward inlined), the mixin's method is found along the MRO, and Block's super().forward() reaches Base's.
# Then a mixin method whose super() target depends on the receiver's type: the same compiled function called with
# instances of Doubled(AddMixin, Twice) and Tripled(AddMixin, Thrice) must give 2x+1 and 3x+1, so the receiver is
# guarded by its type and the second call recompiles.
# expect: True
# expect: [3.0, 5.0] [4.0, 7.0] [3.0, 5.0]
# expect graph_breaks: 0
# expect unique_graphs: 3
# expect recompiles: 1
import torch
import torch.nn as nn


class ScaleMixin:
    def scaled(self, h):
        return h * self.factor


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(x)


class Block(ScaleMixin, Base):
    factor = 0.5

    def forward(self, x):
        return torch.relu(self.scaled(super().forward(x)))


torch.manual_seed(0)
block = Block()
x = torch.randn(2, 4)
ok = isinstance(block, nn.Module) and [k.__name__ for k in Block.__mro__[:4]] == ["Block", "ScaleMixin", "Base", "Module"]
print(ok and torch.allclose(torch.compile(block, backend="eager")(x), block(x)))


class Twice:
    def value(self, x):
        return x * 2


class Thrice:
    def value(self, x):
        return x * 3


class AddMixin:
    def value(self, x):
        return super().value(x) + 1


class Doubled(AddMixin, Twice):
    pass


class Tripled(AddMixin, Thrice):
    pass


@torch.compile(backend="eager")
def run(obj, x):
    return AddMixin.value(obj, x)


t = torch.tensor([1.0, 2.0])
print(run(Doubled(), t).tolist(), run(Tripled(), t).tolist(), run(Doubled(), t).tolist())
