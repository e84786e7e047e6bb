# dataclass(frozen=True): the generated __setattr__/__delattr__ raise FrozenInstanceError for fields, __init__ and
# __post_init__ store through object.__setattr__, replace() builds a new frozen instance, a non-dataclass subclass
# keeps its own attributes free, and frozen/non-frozen inheritance is refused both ways.
# expect: Point(x=1, y=2) 3 True
# expect: FrozenInstanceError cannot assign to field 'x' True
# expect: FrozenInstanceError cannot delete field 'y'
# expect: FrozenInstanceError cannot assign to field 'z'
# expect: Point(x=1, y=5) Point(x=1, y=2)
# expect: 7 FrozenInstanceError cannot assign to field 'x'
# expect: TypeError: cannot inherit frozen dataclass from a non-frozen one
# expect: TypeError: cannot inherit non-frozen dataclass from a frozen one
# expect: TypeError: Cannot overwrite attribute __setattr__ in class Hooked
import dataclasses
from dataclasses import FrozenInstanceError, dataclass, field, replace


@dataclass(frozen=True)
class Point:
    x: int
    y: int = 2
    total: int = field(init=False, default=0)

    def __post_init__(self):
        object.__setattr__(self, "total", self.x + self.y)

    def __repr__(self):
        return "Point(x=" + str(self.x) + ", y=" + str(self.y) + ")"


p = Point(1)
print(p, p.total, p == Point(1, 2))
try:
    p.x = 3
except FrozenInstanceError as e:
    print(type(e).__name__, e, isinstance(e, AttributeError))
try:
    del p.y
except dataclasses.FrozenInstanceError as e:
    print(type(e).__name__, e)
try:
    p.z = 1
except FrozenInstanceError as e:
    print(type(e).__name__, e)
print(replace(p, y=5), p)


class Tagged(Point):
    pass


t = Tagged(4, 3)
t.label = 7
try:
    t.x = 0
except FrozenInstanceError as e:
    print(t.label, type(e).__name__, e)


@dataclass
class Loose:
    a: int = 0


try:
    @dataclass(frozen=True)
    class Tight(Loose):
        b: int = 0
except TypeError as e:
    print("TypeError:", e)
try:
    @dataclass
    class Thawed(Point):
        b: int = 0
except TypeError as e:
    print("TypeError:", e)
try:
    @dataclass(frozen=True)
    class Hooked:
        a: int

        def __setattr__(self, name, value):
            pass
except TypeError as e:
    print("TypeError:", e)
