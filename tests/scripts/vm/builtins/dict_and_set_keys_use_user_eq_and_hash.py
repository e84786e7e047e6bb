# Dict keys and set elements are found as Python finds them: by hash, then the same object or ==, with a user
# class's __eq__ and __hash__ (each stored key's hash is kept: its __hash__ runs once when stored); NotImplemented
# from __eq__ hands over to the reflected side, then identity; a class that defines __eq__ without __hash__ is
# unhashable; hash() of ints, floats, bools and tuples agrees with == and with CPython's values.
# expect: 1 b 2 True
# expect: 2 2 -1
# expect: 2 3 hashes: 4
# expect: True True True True
# expect: 1 -2 0 0 314159 True
# expect: 1152921504606846978 -1152921504606846978 230584300921369408 -8978965343934856575
# expect: 1 2 True False
# expect: True
# expect: unhashable type: 'EqOnly'
# expect: unhashable type: 'list'
# expect: unhashable type: 'set'
# expect: True False NotImplemented
calls = []


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __eq__(self, other):
        if not isinstance(other, Point):
            return NotImplemented
        return self.x == other.x and self.y == other.y

    def __hash__(self):
        calls.append(1)
        return hash((self.x, self.y))


class Salted:
    def __init__(self, name, salt):
        self.name = name
        self.salt = salt

    def __eq__(self, other):
        return self.name == other.name

    def __hash__(self):
        return self.salt


class EqOnly:
    def __eq__(self, other):
        return True


d = {Point(1, 2): "a"}
d[Point(1, 2)] = "b"
s = {Point(0, 0), Point(0, 0), Point(1, 0)}
print(len(d), d[Point(1, 2)], len(s), Point(1, 0) in s)

# Equal objects whose hashes differ are two keys; a hash that matches needs == too.
salted = {Salted("k", 1): 1, Salted("k", 2): 2}
print(len(salted), salted[Salted("k", 2)], salted.get(Salted("k", 3), -1))

calls.clear()
e = {Point(5, 5): 1, Point(6, 6): 2}
e[Point(5, 5)] = 3  # one hash per key stored, one per store or lookup
print(len(e), e[Point(5, 5)], "hashes:", len(calls))

print(hash(1) == hash(1.0) == hash(True), hash((1, 2)) == hash((1.0, 2)), {1: "int"}[True] == "int", hash(2.5) == hash(2.5))
print(hash(1), hash(-1), hash(2**61 - 1 + 2**61 - 1), hash(2**61 - 1), hash(float("inf")), hash((1, 2)) == -3550055125485641917)
print(hash(2.5), hash(-2.5), hash(0.1), hash((1, 2.5, True)))

# list methods and `in` use == too.
pts = [Point(3, 3), Point(1, 2), Point(1, 2)]
print(pts.index(Point(1, 2)), pts.count(Point(1, 2)), Point(3, 3) in pts, Point(9, 9) in pts)
print(EqOnly.__hash__ is None)
for bad in (lambda: {EqOnly(): 1}, lambda: hash([1]), lambda: {frozenset(): 1, set(): 2}):
    try:
        bad()
    except TypeError as error:
        print(error)
print(Point(0, 0) != 5, Point(0, 0) == "p", Point(0, 0).__eq__(5))
