# collections.defaultdict calls its factory on a missing key (and raises KeyError without one); its factory
# must be callable.
# expect: [] defaultdict(<class 'list'>, {'x': [1], 'y': []}) <class 'list'> False None
# expect: defaultdict(<class 'int'>, {'a': 7, 'b': 1, 'c': 1}) defaultdict(None, {'a': 'b'})
# expect: KeyError: 'k'
# expect: TypeError: first argument must be callable or None
from collections import defaultdict
dd = defaultdict(list)
dd['x'].append(1)
print(dd['y'], dd, dd.default_factory, 'z' in dd, dd.get('z'))
counts = defaultdict(int, {'a': 5})
for ch in 'abca':
    counts[ch] += 1
print(counts, defaultdict.fromkeys('a', 'b'))

try:
    from collections import defaultdict
    d = defaultdict()
    d['k']
except Exception as e:
    print(type(e).__name__ + ": " + str(e))

try:
    from collections import defaultdict
    defaultdict(3)
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
