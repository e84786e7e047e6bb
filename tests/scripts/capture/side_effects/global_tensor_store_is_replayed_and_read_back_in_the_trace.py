# G is only written, never guarded: the second call takes the cached graph and replays the store.
# expect: [3.0, 3.0] [2.0, 2.0] [7.0, 7.0] [6.0, 6.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch

G = None

@torch.compile
def f(x):
    global G
    G = x * 2
    return G + 1

def main():
    a = f(torch.ones(2))
    first = G
    b = f(torch.full((2,), 3.0))
    return [a, first, b, G]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
