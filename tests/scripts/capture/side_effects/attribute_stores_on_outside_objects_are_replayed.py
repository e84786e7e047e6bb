# An attribute of an object passed in follows automatic dynamic: calls changed once, so the second compile
# takes it as a SymInt input and the third call replays the cached entry.
# expect: [3.0, 3.0] [4.0, 4.0] [5.0, 5.0] 3 [2.0, 2.0]
# expect graph_breaks: 0
# expect unique_graphs: 2
import torch

class State:
    def __init__(self):
        self.calls = 0
        self.cache = None

@torch.compile
def f(x, state):
    state.calls += 1
    state.cache = x * 2
    return state.cache + state.calls

def main():
    s = State()
    a = f(torch.ones(2), s)
    b = f(torch.ones(2), s)
    c = f(torch.ones(2), s)
    return [a, b, c, s.calls, s.cache]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
