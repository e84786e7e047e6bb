# A missing dict key, a list index out of range, set.remove of an absent item and next() of an exhausted iterator
# raise in the trace (Dynamo's observed exceptions), so the frame's own except clauses take them: one graph.
# The same error with no handler breaks the graph at its instruction, which the interpreter runs, so it leaves
# the frame as eager Python raises it.
# expect: [1111.0, 1112.0]
# expect: caught outside: KeyError
# expect graph_breaks: 1
# expect unique_graphs: 1
import torch


@torch.compile(backend="eager")
def f(x, key):
    table = {"a": 1}
    acc = x
    try:
        acc = acc + table[key]
    except KeyError as e:
        acc = acc + len(e.args) * 1000
    try:
        acc = acc + [1, 2][5]
    except IndexError:
        acc = acc + 100
    s = {1, 2}
    try:
        s.remove(42)
    except KeyError:
        acc = acc + 10
    it = iter([])
    try:
        next(it)
    except StopIteration:
        acc = acc + 1
    return acc


@torch.compile(backend="eager")
def g(x):
    return x + {"a": 1}["b"]


print(f(torch.tensor([0.0, 1.0]), "zz").tolist())
try:
    g(torch.ones(2))
except KeyError as e:
    print("caught outside:", type(e).__name__)
