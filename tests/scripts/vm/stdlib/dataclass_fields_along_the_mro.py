# A dataclass with two dataclass bases takes the fields of every dataclass along its MRO, most basic first (CPython's
# order: Left's MRO tail Right, Root comes before Left), and its own last; a plain mixin in between adds none.
# expect: Both(r=1, right=2.0, left='l', own=[])
# expect: ['r', 'right', 'left', 'own'] True
from dataclasses import dataclass, field, fields


@dataclass
class Root:
    r: int = 1


@dataclass
class Right(Root):
    right: float = 2.0


class Mixin:
    def describe(self):
        return type(self).__name__


@dataclass
class Left(Root):
    left: str = "l"


@dataclass
class Both(Left, Mixin, Right):
    own: list = field(default_factory=list)


b = Both()
print(b)
print([f.name for f in fields(b)], b.describe() == "Both")
