# collections.deque with maxlen, and collections.abc: a MutableMapping gets its mixin methods, and
# isinstance checks.
# expect: deque([0], maxlen=3) 3 [3, 0, 2] 3 2 deque([0], maxlen=3)
# expect: 1 0 True 2 9 [('a', 1), ('z', 9)]
# expect: True True False True True
from collections import deque
q = deque([1, 2, 3], maxlen=3)
q.append(4)
q.appendleft(0)
q.rotate(1)
print(q, len(q), list(q), q.popleft(), q.pop(), q)

from collections.abc import Mapping, MutableMapping, Sequence
import collections
class Store(MutableMapping):
    def __init__(self):
        self._d = {}
    def __getitem__(self, k):
        return self._d[k]
    def __setitem__(self, k, v):
        self._d[k] = v
    def __delitem__(self, k):
        del self._d[k]
    def __iter__(self):
        return iter(self._d)
    def __len__(self):
        return len(self._d)
s = Store()
s.update({'a': 1}, b=2)
print(s.get('a'), s.get('c', 0), 'b' in s, s.pop('b'), s.setdefault('z', 9), sorted(s.items()))
print(isinstance({}, Mapping), isinstance(s, Mapping), isinstance([], Mapping), isinstance((), Sequence),
      collections.abc.Mapping is Mapping)
