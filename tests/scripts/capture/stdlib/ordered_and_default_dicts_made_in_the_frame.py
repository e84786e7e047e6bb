# OrderedDict and defaultdict constructed in the compiled frame (from keywords, from another dict, fromkeys) stay
# traced dicts of their class: a missing key of a defaultdict calls its factory in the trace, isinstance sees the
# class, and a returned one is rebuilt per call with its class and factory. Sums: 1+2 = 3, 3 + 10 = 13, 2.
# expect: True True
# expect: 3.0 13.0 2.0
# expect: OrderedDict defaultdict ['a', 'b', 'c'] []
# expect graph_breaks: 0
# expect unique_graphs: 1
import collections

import torch


@torch.compile(backend="eager")
def f(x):
    plain = {"a": x}
    ordered = collections.OrderedDict(plain, b=x * 2)
    counts = collections.defaultdict(list)
    counts["seen"].append(1)
    filled = collections.defaultdict.fromkeys(["a", "b"], x * 10)
    filled["c"] = x
    total = ordered["a"] + ordered["b"]
    kinds = isinstance(ordered, collections.OrderedDict), isinstance(counts, collections.defaultdict)
    return kinds, total, total + filled["b"], len(counts["seen"]) + x, ordered, filled, counts


kinds, a, b, c, ordered, filled, counts = f(torch.ones(1))
print(*kinds)
print(a[0].item(), b[0].item(), c[0].item())
print(type(ordered).__name__, type(filled).__name__, list(filled.keys()), counts["missing"])
