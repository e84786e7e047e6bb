# A lambda over a local made inside compiled code is inlined with its maker's live values (Dynamo's
# NestedUserFunctionVariable): one graph, no break.
# expect: [3.0, 3.0]
# expect: [9.0, 9.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile
def f(x):
    w = x.sum()
    g = lambda z: z * w
    return g(x) + 1


print(f(torch.ones(2)).tolist())
print(f(torch.full((2,), 2.0)).tolist())
