# An attribute that is only stored is not guarded: the cached graph serves the second call and its store
# is replayed.
# expect: [1.0, 1.0] [5.0, 5.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch

class Box:
    pass

@torch.compile
def f(x, box):
    box.value = x.sin() * 0.0 + x
    return x + 1

def main():
    box = Box()
    f(torch.ones(2), box)
    first = box.value
    f(torch.full((2,), 5.0), box)
    return [first, box.value]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
