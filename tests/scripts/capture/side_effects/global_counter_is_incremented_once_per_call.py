# Dynamo specializes ints of globals: the read is guarded (G['counter'] == 0), so every new value
# recompiles; the increment happens once per call.
# expect: [1.0, 1.0] [2.0, 2.0] [3.0, 3.0] 3
# expect graph_breaks: 0
# expect unique_graphs: 3
# expect log: G['counter'] == 0
import torch

counter = 0

@torch.compile
def f(x):
    global counter
    counter += 1
    return x + counter

def main():
    a = f(torch.zeros(2))
    b = f(torch.zeros(2))
    c = f(torch.zeros(2))
    return [a, b, c, counter]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
