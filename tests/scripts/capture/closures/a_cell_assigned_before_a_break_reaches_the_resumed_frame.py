# A cell assigned before a break reaches the resumed frame; the second call hits the cached entries.
# expect: break
# expect: [2.0, 2.0]
# expect: break
# expect: [6.0, 6.0]
# expect graph_breaks: 1
import torch


@torch.compile
def f(x):
    s = x + 1
    print("break")
    g = lambda y: y * s
    return g(x)


print(f(torch.ones(2)).tolist())
print(f(torch.full((2,), 2.0)).tolist())
