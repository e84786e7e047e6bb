# Random ops on both sides of a graph break draw in eager's order: the compiled pieces and the next draw give
# eager's values after the same manual_seed.
# expect: break
# expect: True
# expect graph_breaks: 1
import torch


@torch.compile
def f(x):
    a = x + torch.rand(2)
    print("break")
    return a * torch.randn(2)


def plain(x):
    a = x + torch.rand(2)
    return a * torch.randn(2)


torch.manual_seed(3)
c = f(torch.ones(2)).tolist() + torch.rand(1).tolist()
torch.manual_seed(3)
e = plain(torch.ones(2)).tolist() + torch.rand(1).tolist()
print(c == e)
