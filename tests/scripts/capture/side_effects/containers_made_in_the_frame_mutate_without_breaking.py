# Lists and dicts made in the frame mutate (append, extend, update, store, del) without a break.
# expect: [6.0, 6.0]
# expect graph_breaks: 0
import torch

@torch.compile
def f(x):
    out = []
    out.append(x + 1)
    out.extend([x])
    d = {}
    d.update(a=x)
    d['b'] = x * 3
    del d['a']
    return out[0] + out[1] + d['b']

def main():
    return f(torch.ones(2))


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(show(main()))
