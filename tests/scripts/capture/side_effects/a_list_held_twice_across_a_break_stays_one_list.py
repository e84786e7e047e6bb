# A list held by two names across a graph break stays one list.
# expect: break
# expect: 2 [2.0, 2.0]
import torch

@torch.compile
def f(x):
    out = []
    out.append(x)
    alias = out
    print("break")
    alias.append(x + 1)
    return out

def main():
    return f(torch.ones(2))


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


result = main()
print(len(result), show(result[1]))
