# Sets and frozensets as Python has them: the four operators on either kind give the left operand's type, a set's
# in-place operator updates it, a frozenset has only the reading methods, is a dict key equal to any set of the
# same items, and prints as frozenset({...}).
# expect: {1, 2, 3} {2} {1} {2, 5}
# expect: {1, 2, 7} True
# expect: frozenset({1, 2}) frozenset() frozenset True
# expect: frozenset({1, 2, 9}) frozenset({2}) frozenset({1})
# expect: 3 True frozenset({1, 2, 4}) set
# expect: frozenset({1, 2, 3}) False
# expect: 'frozenset' object has no attribute 'add'
a = {1, 2}
print(a | {3}, a & {2}, a - {2}, a ^ {5, 1})
alias = a
a |= {7}
print(a, alias is a)
f = frozenset([1, 2, 2])
print(f, frozenset(), type(f).__name__, f == {2, 1})
print(f | {9}, f & {2, 8}, f - {2})
d = {f: 3}
print(d[frozenset({2, 1})], f.copy() is f, f.union([4]), type(f.copy() and {1}.union(f)).__name__)
g = f
g |= {3}
print(g, g is f)
try:
    f.add(5)
except AttributeError as e:
    print(e)
