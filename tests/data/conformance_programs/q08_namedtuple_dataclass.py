# Named tuples and dataclasses in compiled code: a typing.NamedTuple with a method, a staticmethod and a classmethod,
# a namedtuple made in the frame with defaults and keyword construction, a namedtuple duck-typed by
# hasattr(_asdict/_fields), a dataclass with default_factory fields, a method and a field set after construction
# returned to the caller, an inherited dataclass with a factory field.
import collections
from dataclasses import dataclass, field
from typing import Any, Dict, List, NamedTuple

import torch


class Span(NamedTuple):
    lo: torch.Tensor
    hi: torch.Tensor

    def width(self):
        return self.hi - self.lo

    @staticmethod
    def unit():
        return 2

    @classmethod
    def label(cls):
        return cls.__name__


@dataclass
class Output:
    scalar: int = 2
    named: Dict[str, torch.Tensor] = field(default_factory=dict)
    items: List[torch.Tensor] = field(default_factory=list)

    def doubled(self):
        return self.scalar * 2


@dataclass
class Base:
    first: int
    second: int


@dataclass
class Derived(Base):
    extra: Any = field(default_factory=list)


def tuples(a, b):
    span = Span(a, b)
    name = span.label()
    point = collections.namedtuple("point", ["x", "y", "z"], defaults=(None, 1, None))
    p = point(a, z=b)
    q = point(p.x, p[1], p.z + b)
    duck = isinstance(span, tuple) and hasattr(span, "_asdict") and hasattr(span, "_fields")
    return span.width() * span.unit() + q.x + q.y + q.z, len(name), duck


def dataclasses_fn(x):
    a = Output(1)
    k = a.doubled()
    b = Output(5, named={"x": x})
    c = Output()
    if isinstance(a.named, dict):
        x = torch.sin(x)
    c.scalar = 6
    c.named["x"] = x
    c.items.append(x * 3)
    d = Derived(1, 2)
    d.extra.append(4)
    return c, torch.cos(x) * k + b.named["x"] + c.scalar + d.first * d.second + len(d.extra)


opt_tuples = torch.compile(tuples, backend="eager")
opt_dataclasses = torch.compile(dataclasses_fn, backend="eager")


def main(device):
    a = torch.arange(4, dtype=torch.float32, device=device)
    b = torch.linspace(1.0, 4.0, 4, device=device)
    t, n, duck = opt_tuples(a, b)
    c, out = opt_dataclasses(a)
    return [t, torch.tensor(float(n)), torch.tensor(float(duck)), torch.tensor(float(c.scalar)), c.named["x"],
            c.items[0], out]
