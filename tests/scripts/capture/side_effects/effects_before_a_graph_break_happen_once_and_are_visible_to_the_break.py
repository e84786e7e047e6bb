# Effects before a graph break happen once and the break's code sees them.
# expect: before is 1
# expect: before is 2
# expect: [2.0, 2.0] 2 2
import torch

class State:
    def __init__(self):
        self.before = 0
        self.after = 0

@torch.compile
def f(x, s):
    s.before += 1
    print("before is", s.before)
    s.after += 1
    return x * s.before

def main():
    s = State()
    f(torch.ones(2), s)
    r = f(torch.ones(2), s)
    return [r, s.before, s.after]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
