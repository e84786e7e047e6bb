# keys()/values()/items() of a dict made in the compiled frame are live views: a key stored after the view was
# taken is seen through it, and a view compared with another dict's view compares as a set, all in one graph.
# expect: True True False True
# expect: 3.0
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile(backend="eager")
def f(x):
    d = {3: x}
    keys = d.keys()
    values = d.values()
    d[4] = x + 1
    total = x * 0
    for v in values:
        total = total + v
    return 3 in keys, 4 in keys, 5 in keys, {4: 0, 3: 1}.keys() == keys, total


a, b, c, same, total = f(torch.ones(1))
print(a, b, c, same)
print(total[0].item())
