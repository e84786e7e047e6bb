# Dict construction and update forms in compiled code: dict() from keywords, pairs, a tuple of pairs and an
# iterator (consumed once: the OrderedDict built after it is empty), copy() of dict and OrderedDict, update() with
# lists of lists, zip and keywords, an OrderedDict subclass with keywords, fromkeys of a defaultdict, sorted() of a
# dict, a Parameter as a key, defaultdicts with tuple/set/lambda factories, a class's __dict__, a MutableMapping
# converted with dict() and unpacked with **.
import collections
from collections.abc import MutableMapping

import torch


class Ordered(collections.OrderedDict):
    pass


class Store(MutableMapping):
    def __init__(self):
        self._data = {}

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        self._data[key] = value

    def __delitem__(self, key):
        del self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


class Config:
    scale = 3
    shift = 1

    def __init__(self):
        self.local = 5


store = Store()
store["w"] = torch.full((4,), 2.0)
weight = torch.nn.Parameter(torch.ones(4))
config = Config()


def scaled(x, w=1):
    return x * w


def build(x, y):
    d1 = dict(first=x + 1, second=y * 2)
    pairs = [("a", x), ("b", x + 1), ("c", x + 2)]
    d2 = dict(pairs)
    d3 = dict(tuple(pairs))
    it = iter(pairs)
    d4 = dict(it)
    d5 = collections.OrderedDict(it)
    c1 = d2.copy()
    c1["a"] = y
    o1 = collections.OrderedDict(pairs)
    o2 = o1.copy()
    o2["c"] = y - 3
    d2.update([["b", y], ("z", x * 3)])
    d2.update(zip("ac", [y + 1, y + 2]))
    d2.update(extra=x - 1)
    sub = Ordered(sample=x * 4)
    dd = collections.defaultdict.fromkeys("pq", 2)
    dd.setdefault("r", 5)
    order = sorted({3: "c", 1: "a", 2: "b"}, reverse=True)
    keyed = {"k": x, weight: 4}
    total = (d1["first"] + d1["second"] + d3["c"] + d4["b"] + len(d5) + c1["a"] + o1["c"] + o2["c"] + d2["b"]
             + d2["z"] + d2["a"] + d2["extra"] + sub["sample"] + dd["p"] + dd["r"] + keyed["k"] * keyed[weight])
    return total, order, isinstance(sub, collections.OrderedDict), list(d2.keys()) == ["a", "b", "c", "z", "extra"]


def factories(x):
    lists = collections.defaultdict(tuple)
    sets = collections.defaultdict(set)
    nested = collections.defaultdict(lambda: {"n": 1})
    lists["a"] += (x,)
    sets["b"].add(3)
    nested["c"]["m"] = x * 2
    nested.update({"d": {"n": 7}})
    has_scale = "scale" in type(config).__dict__ and "local" not in type(config).__dict__
    copied = dict(store)
    return (lists["a"][0] + len(sets["b"]) + len(lists["missing"]) + nested["c"]["n"] + nested["c"]["m"]
            + nested["d"]["n"] + copied["w"] + scaled(x, **store) + float(has_scale))


opt_build = torch.compile(build, backend="eager")
opt_factories = torch.compile(factories, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    y = torch.linspace(0.5, 2.0, 4, device=device)
    total, order, is_od, keys_ok = opt_build(x, y)
    f = opt_factories(x)
    return [total, torch.tensor([float(v) for v in order]), torch.tensor(float(is_od)), torch.tensor(float(keys_ok)), f]
