# A dict the frame made gives up its last item to popitem() (as a (key, value) tuple), and a dict keyed by tuples
# is indexed by a tuple of constants: one graph, no break.
# expect: [1007.0, 1008.0]
# expect: ('d', 7)
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile(backend="eager")
def f(x):
    base = dict.fromkeys(["a", "b"], 1)
    merged = {**base, **{"b": 5, "d": 7}}
    last = merged.popitem()
    grid = {(i, j): i * 3 + j for i in range(2) for j in range(3)}
    acc = x + last[1] + grid[(0, 0)]
    if "d" not in merged and len(merged) == 2:
        acc = acc + 1000
    return acc, last


out, last = f(torch.tensor([0.0, 1.0]))
print(out.tolist())
print(last)
