# User objects as dict keys, set elements and list items in compiled code. Objects without __eq__/__hash__ are
# keys by identity (one graph); list.index/count and `in` trace a user's __eq__, NotImplemented falling back to
# identity (no break); a lookup that would run a user __hash__ breaks the graph inside its helper with Dynamo's
# reason, and the helper runs in the interpreter with the real __hash__/__eq__, so results equal eager.
# expect: [14.0, 28.0, 42.0]
# expect: [4.0, 6.0, 8.0]
# expect: [0.0, 6.0, 12.0]
# expect: [0.0, 6.0, 12.0]
# expect graph_breaks: 1
# expect unique_graphs: 4
# expect recompiles: 0
# expect log: User-defined object with overridden __hash__
import torch


class Token:
    pass


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __eq__(self, other):
        if not isinstance(other, Point):
            return NotImplemented
        return self.x == other.x and self.y == other.y

    def __hash__(self):
        return hash((self.x, self.y))


SCALES = {Point(0, 0): 1, Point(1, 2): 3}


def by_identity(x, a, b):
    d = {a: 1, b: 2}
    d[a] += 10
    s = {a, b, a}
    return x * d[a] + x * len(s) + (x if b in d else -x)


def find_point(x, pts, p):
    hit = p in pts and "p" not in pts
    return x * (pts.index(p) + 1) + pts.count(p) + (1 if hit else 0)


def scale_of(p):
    return SCALES[p]


def scaled(x, p):
    y = x * 2
    return y * scale_of(p)


x = torch.arange(3, dtype=torch.float32) + 1
a, b = Token(), Token()
print(torch.compile(by_identity)(x, a, b).tolist())
print(torch.compile(find_point)(x, [Point(0, 0), Point(1, 2)], Point(1, 2)).tolist())
opt_scaled = torch.compile(scaled)
print(opt_scaled(x - 1, Point(1, 2)).tolist())
print(opt_scaled(x - 1, Point(1, 2)).tolist())
