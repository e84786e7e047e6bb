# collections.namedtuple (defaults, _asdict, _replace, _make) and typing.NamedTuple classes with methods.
# expect: P(x=1, y=5) 1 5 6 {'x': 1, 'y': 5} P(x=3, y=5) P(x=7, y=8) True ('x', 'y')
# expect: True 2 P {'y': 5}
# expect: TypeError: P.__new__() missing 1 required positional argument: 'y'
# expect: NT(first=1, second=2) 3 NT(first=4, second=None) 1 NT True True ('first', 'second')
from collections import namedtuple
P = namedtuple('P', 'x, y', defaults=(5,))
p = P(1)
a, b = p
print(p, p.x, p[1], a + b, p._asdict(), p._replace(x=3), P._make([7, 8]), isinstance(p, tuple), P._fields)
print(P(y=2, x=1) == (1, 2), len(p), type(p).__name__, P._field_defaults)

try:
    from collections import namedtuple
    P = namedtuple('P', ['x', 'y'])
    P(1)
except Exception as e:
    print(type(e).__name__ + ": " + str(e))

from typing import NamedTuple, Optional
class NT(NamedTuple):
    first: int
    second: Optional[int] = None
    def total(self):
        return self.first + (self.second or 0)
    @staticmethod
    def one():
        return 1
    @classmethod
    def name(cls):
        return cls.__name__
n = NT(1, 2)
print(n, n.total(), NT(4), n.one(), n.name(), hasattr(n, '_asdict'), isinstance(n, tuple), NT._fields)
