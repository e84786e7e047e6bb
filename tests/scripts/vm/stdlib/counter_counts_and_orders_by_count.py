# collections.Counter counts, updates, subtracts and orders by count as CPython 3.12 does.
# expect: Counter({'a': 5, 'b': 2, 'r': 2, 'c': 1, 'd': 1}) 0 False [('a', 5), ('b', 2)]
# expect: Counter({'b': 2, 'r': 2, 'z': 2, 'a': 1, 'c': 1, 'd': 1}) 9 ['a', 'b', 'b', 'c', 'd', 'r', 'r', 'z', 'z']
from collections import Counter
c = Counter('abracadabra')
print(c, c['z'], 'z' in c, c.most_common(2))
c.update('zz')
c.subtract({'a': 4})
print(c, c.total(), sorted(c.elements()))
