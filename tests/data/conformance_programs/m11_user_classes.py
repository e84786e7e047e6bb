# User classes in compiled code: inheritance with super() in __init__ and in a method, __call__, __getitem__ /
# __len__ / __iter__ / __contains__, a property with a setter, a class attribute changed between calls, an
# object argument whose attributes the compiled code sets (the caller sees them), and isinstance/type checks.
import torch


class Base:
    factor = 2.0

    def __init__(self, offset):
        self.offset = offset

    def apply(self, x):
        return x * self.factor + self.offset


class Child(Base):
    def __init__(self, offset, extra):
        super().__init__(offset)
        self.extra = extra

    def apply(self, x):
        return super().apply(x) + self.extra


class Bag:
    def __init__(self, items):
        self._items = list(items)
        self._scale = 1.0

    def __len__(self):
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def __iter__(self):
        return iter(self._items)

    def __contains__(self, v):
        return v in self._items

    def __call__(self, x):
        return x * self._scale

    @property
    def scale(self):
        return self._scale

    @scale.setter
    def scale(self, value):
        self._scale = value * 2


def use_classes(x, holder):
    c = Child(1.0, 0.5)
    b = Bag([1, 2, 3])
    b.scale = 1.5
    acc = c.apply(x) + b(x) + len(b) + b[-1] + sum(b)
    if 2 in b and 5 not in b:
        acc = acc + 100
    if isinstance(c, Base) and type(c) is Child and not isinstance(b, Base):
        acc = acc + 1000
    holder.result = acc.sum()
    holder.count = getattr(holder, "count", 0) + 1
    return acc + Base.factor


opt = torch.compile(use_classes, backend="eager")


class Holder:
    pass


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    h = Holder()
    out = [opt(x, h)]
    Base.factor = 3.0
    out.append(opt(x, h))
    out.append(h.result.reshape(1))
    out.append(torch.tensor([h.count], device=device))
    return out
