# A generator made in the compiled frame cannot leave it (returned, or alive at a graph break inside a loop over
# it): its paused frame exists only in the trace, so the frame runs eagerly ("Failed to handle graph break
# gracefully") and the values are eager's.
# expect: [2.0, 2.0]
# expect: item 0
# expect: item 1
# expect: [1.0, 1.0]
# expect log: Failed to handle graph break gracefully
import torch


def doubled(x):
    yield x * 2
    yield x * 3


@torch.compile(backend="eager")
def give_back(x):
    return doubled(x + 1)


@torch.compile(backend="eager")
def printing(x):
    for i, v in enumerate(doubled(x)):
        print("item", i)
    return x + 1


print(next(give_back(torch.zeros(2))).tolist())
print(printing(torch.zeros(2)).tolist())
