# Standard-library pieces models use: itertools.islice is lazy (an infinite generator works, and no item past the
# stop is pulled), math.isqrt, functools.wraps, and property setters (a store without one is refused).
# expect: [10, 11, 12, 13] [2, 5, 8]
# expect: [0, 1] [0, 1]
# expect: 0 4 5 1000000
# expect: hello you! greet hello me
# expect: 10 10
# expect: AttributeError: property 'fixed' of 'Box' object has no setter
import functools
import itertools
import math


def count_up(start):
    k = start
    while True:
        yield k
        k += 1


print(list(itertools.islice(count_up(10), 4)), list(itertools.islice(count_up(0), 2, 9, 3)))
pulled = []


def watched():
    for v in range(5):
        pulled.append(v)
        yield v


print(list(itertools.islice(watched(), 2)), pulled)
print(math.isqrt(0), math.isqrt(24), math.isqrt(25), math.isqrt(10**12 + 1))


def shout(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args) + "!"

    return wrapper


@shout
def greet(name):
    """Says hello."""
    return "hello " + name


print(greet("you"), greet.__name__, greet.__wrapped__("me"))


class Box:
    def __init__(self):
        self._size = 1

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value * 2

    @property
    def fixed(self):
        return 3


b = Box()
b.size = 5
print(b.size, b._size)
try:
    b.fixed = 4
except AttributeError as e:
    print("AttributeError:", e)
