# Dict and set semantics in compiled code: insertion order, setdefault/pop/update/get, `|` merging, dict
# comprehensions, keys() set operations; set algebra, add/discard, frozenset, set comprehension, membership.
import torch

weights = {"a": 1.0, "b": 2.0, "c": 3.0}
allowed = {"a", "c"}


def dict_ops(x):
    d = {"z": 1, "y": 2}
    d["x"] = 3
    d.setdefault("y", 10)
    d.setdefault("w", 4)
    popped = d.pop("z")
    d.update({"v": 5}, u=6)
    merged = d | {"x": 30}
    squares = {k: v * v for k, v in merged.items() if v > 3}
    order = list(merged)
    total = x * popped
    for i, k in enumerate(order):
        total = total + merged[k] * (i + 1)
    return total + sum(squares.values()) + d.get("missing", 7)


def set_ops(x):
    s = {1, 2, 3}
    t = frozenset([2, 3, 4])
    s.add(5)
    s.discard(1)
    u = s | t
    i = s & t
    diff = s - t
    sym = s ^ t
    comp = {v % 3 for v in u}
    acc = x * len(u) + len(i) * 10 + len(diff) * 100 + len(sym) * 1000 + len(comp)
    if 4 in u and 1 not in s:
        acc = acc + 1
    return acc + sum(sorted(u))


def outside(x):
    out = x
    for name, w in weights.items():
        if name in allowed:
            out = out + w
    return out * len(set(weights.keys()) & allowed)


opt_dict = torch.compile(dict_ops, backend="eager")
opt_set = torch.compile(set_ops, backend="eager")
opt_outside = torch.compile(outside, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_dict(x), opt_set(x), opt_outside(x)]
    weights["b"] = 20.0
    out.append(opt_outside(x))
    allowed.add("b")
    out.append(opt_outside(x))
    return out
