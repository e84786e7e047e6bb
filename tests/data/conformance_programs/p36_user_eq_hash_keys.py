# User classes' __eq__ and __hash__ as dict keys and set elements: lookup by hash, then the same object or ==; a
# NotImplemented from __eq__ hands over to the other side; a class with __eq__ and no __hash__ is unhashable; hash()
# of builtins agrees with ==. Compiled: a user __hash__ breaks the graph inside a helper (Dynamo's reason), objects
# without __eq__/__hash__ are keyed by identity in one graph, and list.index / `in` trace the user's __eq__.
import torch


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


class Salted:
    # Equal by name, but each hashes by its own salt: equal objects whose hashes differ are two keys.
    def __init__(self, name, salt):
        self.name = name
        self.salt = salt

    def __eq__(self, other):
        return isinstance(other, Salted) and self.name == other.name

    def __hash__(self):
        return self.salt


class Bucket:
    # One hash for all: __eq__ alone tells keys apart.
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Bucket) and self.v == other.v

    def __hash__(self):
        return 7


class Token:
    pass


class EqOnly:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, EqOnly) and self.v == other.v


SCALES = {Point(0, 0): 1, Point(1, 2): 3}


def eager_facts():
    d = {Point(1, 2): "a"}
    d[Point(1, 2)] = "b"
    s = {Point(0, 0), Point(0, 0), Point(1, 0)}
    salted = {Salted("k", 1): 1, Salted("k", 2): 2}
    buckets = {Bucket(1): 1, Bucket(2): 2, Bucket(1): 3}
    same = Token()
    tokens = {same: 5, Token(): 6}
    pts = [Point(1, 1), Point(2, 2)]
    pts.remove(Point(2, 2))
    facts = [len(d), d[Point(1, 2)] == "b", len(s), Point(1, 0) in s, len(salted), salted.get(Salted("k", 2), 0),
             salted.get(Salted("k", 3), -1), len(buckets), buckets[Bucket(1)], tokens[same], Token() in tokens,
             hash(1) == hash(1.0) == hash(True), hash((1, 2)) == hash((1.0, 2)), {1: "int"}[1.0] == "int",
             Point(1, 2) == Point(1, 2), Point(1, 2) != Point(2, 1), (Point(0, 0) == 5) is False,
             [Point(3, 3), Point(1, 2)].index(Point(1, 2)), [Point(1, 2), Point(1, 2), Point(0, 1)].count(Point(1, 2)),
             Point(0, 1) in [Point(0, 1)], EqOnly.__hash__ is None, len(pts), hash(7), hash(-1), hash(2.5) == hash(2.5)]
    for bad in (lambda: {EqOnly(1): 1}, lambda: hash([1]), lambda: {Point(0, 0), [1]}):
        try:
            bad()
            facts.append(0)
        except TypeError as e:
            facts.append(1 if str(e).startswith("unhashable type: '") else 2)
    return torch.tensor([float(f) for f in facts])


def scale_of(p):
    return SCALES[p]


def scaled(x, p):
    y = x * 2
    return y * scale_of(p)


def by_identity(x, a, b):
    d = {a: 1, b: 2}
    d[a] += 10
    s = {a, b, a}
    return x * d[a] + x * len(s) + (x if b in d else -x)


def find_point(x, pts, p):
    i = pts.index(p)
    hit = p in pts
    return x * (i + 1) + (1 if hit else 0) + pts.count(p)


opt_scaled = torch.compile(scaled, backend="eager")
opt_by_identity = torch.compile(by_identity, backend="eager")
opt_find_point = torch.compile(find_point, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    a, b = Token(), Token()
    pts = [Point(0, 0), Point(1, 2), Point(2, 1)]
    return [eager_facts(), opt_scaled(x, Point(1, 2)), opt_scaled(x, Point(1, 2)), opt_by_identity(x, a, b),
            opt_by_identity(x, a, b), opt_find_point(x, pts, Point(1, 2)), opt_find_point(x, pts, Point(1, 2))]
