# Defaults, *args, keyword-only arguments, **kwargs and unpacking at the call; wrong calls raise CPython's TypeErrors.
# expect: (1, 2, (), 3, 4, [])
# expect: (1, 5, (6, 7), 3, 4, [('y', 8), ('z', 9)])
# expect: (3, {'x': 1})
# expect: two() missing 1 required positional argument: 'b'
# expect: one() takes 1 positional argument but 2 were given
# expect: one() got an unexpected keyword argument 'z'
def f(a, b=2, *args, c, d=4, **kw):
    return (a, b, args, c, d, sorted(kw.items()))


print(f(1, c=3))
print(f(1, 5, 6, 7, c=3, z=9, y=8))


def g(*a, **k):
    return len(a), k


args = [1, 2]
print(g(*args, 3, **{'x': 1}))


def two(a, b):
    return a


def one(a):
    return a


for call in [lambda: two(1), lambda: one(1, 2), lambda: one(1, z=2)]:
    try:
        call()
    except TypeError as e:
        print(e)
