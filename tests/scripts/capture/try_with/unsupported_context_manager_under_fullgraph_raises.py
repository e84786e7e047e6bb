# Under fullgraph=True the same break is an error, with Dynamo's message.
# expect error: Unsupported context manager
import torch


@torch.compile(fullgraph=True)
def f(x, obj):
    with obj:
        return x + 1


f(torch.ones(2), 3)
