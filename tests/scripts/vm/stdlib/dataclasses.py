# dataclasses: inheritance, ClassVar, default_factory, __post_init__, asdict/astuple/replace/fields, and the
# errors of bad field orders and mutable defaults.
# expect: Derived(a=1, b=2, c=[3]) 3 {'a': 1, 'b': 2, 'c': [3]} (1, 2, [3]) ['a', 'b', 'c']
# expect: Derived(a=5, b=2, c=[3]) True False True False []
# expect: TypeError: C.__init__() missing 1 required positional argument: 'b'
# expect: ValueError: mutable default <class 'list'> for field a is not allowed: use default_factory
# expect: TypeError: non-default argument 'b' follows default argument 'a'
from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass
from typing import Any, ClassVar
@dataclass
class Base:
    a: int
    b: int = 2
    counter: ClassVar[int] = 0
@dataclass
class Derived(Base):
    c: Any = field(default_factory=list)
    def __post_init__(self):
        self.total = self.a + self.b
x = Derived(1, c=[3])
print(x, x.total, asdict(x), astuple(x), [f.name for f in fields(x)])
print(replace(x, a=5), x == Derived(1, 2, [3]), x == Derived(2), is_dataclass(x), is_dataclass(3), Derived(0).c)

try:
    from dataclasses import dataclass
    @dataclass
    class C:
        a: int
        b: int
    C(1)
except Exception as e:
    print(type(e).__name__ + ": " + str(e))

try:
    from dataclasses import dataclass
    @dataclass
    class C:
        a: list = []
except Exception as e:
    print(type(e).__name__ + ": " + str(e))

try:
    from dataclasses import dataclass
    @dataclass
    class C:
        a: int = 1
        b: int
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
