# A value read before a store to the same attribute keeps its old value.
# expect: [0.0, 0.0] [1.0, 1.0] [2.0, 2.0]
# expect graph_breaks: 0
import torch

class Box:
    def __init__(self, v):
        self.v = v

@torch.compile
def swap(box, x):
    old = box.v
    box.v = x
    return old

def main():
    box = Box(torch.zeros(2))
    a = swap(box, torch.ones(2))
    b = swap(box, torch.full((2,), 2.0))
    return [a, b, box.v]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
