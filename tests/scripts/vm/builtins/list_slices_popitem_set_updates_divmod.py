# Container methods as CPython has them: list slice assignment (any length for a plain slice, exactly its own for an
# extended one) and deletion, dict.popitem (last in, first out), the in-place set updates, divmod.
# expect: [0, 'a', 'b', 'c', 3, 4, 5]
# expect: [10, 'a', 20, 'c', 30, 4, 40]
# expect: ['c', 4]
# expect: [-1, 'c', 4, 7]
# expect: ValueError: attempt to assign sequence of size 1 to extended slice of size 2
# expect: ('y', 2) {'x': 1}
# expect: KeyError: 'popitem(): dictionary is empty'
# expect: [3, 4]
# expect: [9]
# expect: (3, 2) (-4, 1) (3.0, 1.5)
xs = [0, 1, 2, 3, 4, 5]
xs[1:3] = ["a", "b", "c"]
print(xs)
xs[::2] = [10, 20, 30, 40]
print(xs)
del xs[1:3]
del xs[::2]
print(xs)
xs[5:] = [7]
xs[:0] = [-1]
print(xs)
try:
    xs[::2] = [1]
except ValueError as e:
    print("ValueError:", e)
d = {"x": 1, "y": 2}
print(d.popitem(), d)
try:
    {}.popitem()
except KeyError as e:
    print("KeyError:", e)
s = {1, 2, 3, 4}
s.intersection_update([2, 3, 4, 5], {3, 4})
print(sorted(s))
s.difference_update({4})
s.symmetric_difference_update([3, 9])
print(sorted(s))
print(divmod(17, 5), divmod(-7, 2), divmod(7.5, 2))
