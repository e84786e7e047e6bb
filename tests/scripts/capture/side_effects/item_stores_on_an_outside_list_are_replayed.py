# Item stores and del on a list passed in are replayed on the real list.
# expect: [2.0, 2.0] 8
# expect graph_breaks: 0
import torch

@torch.compile
def f(x, xs):
    xs[0] = xs[0] + x
    del xs[1]
    return x * 2

def main():
    xs = [torch.zeros(2), 7, torch.ones(2)]
    f(torch.ones(2), xs)
    xs.append(8)
    f(torch.ones(2), xs)
    return xs


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
