# torch 2.11's Dynamo has no rule for the builtin hash(): hash() of an int, float, bool or tuple breaks the graph
# at every call (gb0059, "Failed to trace builtin operator"), and the resumed code goes on from there.
# expect: [3.0, 4.0, 5.0]
# expect graph_breaks: 5
# expect unique_graphs: 1
# expect log: Dynamo does not know how to trace builtin operator `hash` with argument types ['int']
# expect log: Dynamo does not know how to trace builtin operator `hash` with argument types ['tuple']
import torch


@torch.compile(backend="eager")
def f(x):
    same = hash(1) == hash(1.0) and hash(True) == hash((1, 2)) - hash((1, 2)) + 1
    return x + (3 if same else 0)


print(f(torch.arange(3, dtype=torch.float32)).tolist())
