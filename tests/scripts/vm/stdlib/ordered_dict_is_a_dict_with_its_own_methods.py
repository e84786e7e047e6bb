# collections.OrderedDict is a dict with its own methods (move_to_end, popitem(last=False)), printed as
# CPython 3.12 prints it.
# expect: OrderedDict({'b': 2, 'c': 3, 'a': 1}) True True OrderedDict
# expect: ('a', 1) ('b', 2) OrderedDict({'c': 3}) 1 ['c']
# expect: OrderedDict({'x': 0}) {'a': None, 'b': None} False
# expect: OrderedDict() OrderedDict({'c': 3}) OrderedDict
import collections
od = collections.OrderedDict(a=1, b=2)
od['c'] = 3
od.move_to_end('a')
print(od, isinstance(od, dict), isinstance(od, collections.OrderedDict), type(od).__name__)
print(od.popitem(), od.popitem(last=False), od, len(od), list(od.keys()))
print(collections.OrderedDict.fromkeys(['x'], 0), dict.fromkeys('ab'), isinstance({}, collections.OrderedDict))
print(collections.OrderedDict(), od.copy(), type(od.copy()).__name__)
