# Tracing must not draw from the generator: a compiled call gives the values eager gives after the same
# manual_seed and leaves the generator where eager leaves it (the next draw agrees too).
# expect: True
# expect unique_graphs: 1
# expect graph_breaks: 0
import torch


def body(x):
    noise = torch.rand(4)
    y = x + noise * torch.randn(4)
    return y + torch.rand_like(x)


compiled = torch.compile(body)


def run(fn):
    torch.manual_seed(7)
    out = fn(torch.ones(4))
    after = torch.rand(3)
    return out.tolist(), after.tolist()


print(run(compiled) == run(body))
