# A user class's ordering dunders decide <, <=, >, >= (a < b is a.__lt__(b), then b.__gt__(a)); NotImplemented from
# any binary or comparison dunder hands over to the other operand's reflected one, and when both decline Python's
# TypeError follows (== and != fall back to identity). sorted() and min() use the same comparisons.
# expect: True True False True
# expect: 3 106
# expect: unsupported operand type(s) for +: 'V' and 'str'
# expect: '<' not supported between instances of 'V' and 'int'
# expect: False True
# expect: [1, 2, 3] 1
# expect: NotImplemented
class V:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        if not isinstance(other, V):
            return NotImplemented
        return self.v < other.v

    def __add__(self, other):
        if not isinstance(other, V):
            return NotImplemented
        return V(self.v + other.v)

    def __radd__(self, other):
        if not isinstance(other, int):
            return NotImplemented
        return V(self.v + other + 100)


print(V(1) < V(2), V(3) > V(2), V(2) < V(2), V(1) < V(2) < V(3))
print((V(1) + V(2)).v, (5 + V(1)).v)
try:
    V(1) + "s"
except TypeError as error:
    print(error)
try:
    V(1) < 3
except TypeError as error:
    print(error)
print(V(1) == 1, V(1) != 1)
print([v.v for v in sorted([V(3), V(1), V(2)])], min(V(2), V(1)).v)
print(NotImplemented)
