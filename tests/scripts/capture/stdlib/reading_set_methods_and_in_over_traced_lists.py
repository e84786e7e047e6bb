# Reading methods of sets from outside the frame fold after their contents are guarded (a changed global set
# recompiles), and a constant found in a traced list before any tensor item is decided at trace time.
# expect: 2.0
# expect: 0.0
# expect graph_breaks: 0
# expect unique_graphs: 2
# expect recompiles: 1
import torch

left = {"apple", "banana"}
right = {"cherry"}


@torch.compile(backend="eager")
def f(a):
    items = [1, 2, 3, a]
    assert 2 in items
    if left.isdisjoint(right) and 7 not in [1, 2]:
        return a + 1
    return a - 1


print(f(torch.ones(1))[0].item())
right.add("apple")
print(f(torch.ones(1))[0].item())
