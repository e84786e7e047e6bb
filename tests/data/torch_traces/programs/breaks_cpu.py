"""Graph breaks: print, .item() into an if, explicit graph_break(), and a break
inside an inlined helper."""
import torch


@torch.compile
def with_print(x):
    y = torch.sin(x) * 2.0
    print("with_print: between the two graphs")
    return torch.cos(y) + 1.0


@torch.compile
def with_item(x):
    s = x.sum()
    if s.item() > 0.0:
        y = x * 2.0
    else:
        y = x - 1.0
    return torch.tanh(y)


@torch.compile
def with_explicit(x):
    y = torch.relu(x) + 1.0
    torch._dynamo.graph_break()
    return y * y


def helper(y):
    z = y * 3.0
    print("helper: break inside an inlined call")
    return z - 1.0


@torch.compile
def with_nested(x):
    a = torch.exp(x * 0.1)
    b = helper(a)
    return b.sum()


def main(device):
    x = torch.linspace(-2.0, 2.0, 64, device=device).reshape(8, 8)
    for fn in (with_print, with_item, with_explicit, with_nested):
        fn(x)
        fn(x)  # second call with the same input: guards pass, no new compile
    return {}
