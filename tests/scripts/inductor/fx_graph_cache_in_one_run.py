# The FX graph cache within one run: after torch._dynamo.reset() the same graph compiles again and finds the schedule
# the first compile stored (the first compile itself may hit an entry an earlier run left); both lookups are counted
# in counters["inductor"] as Inductor's FxGraphCache counts them, and the results equal eager.
# expect: True
# expect: True
# expect: True
import torch


def f(x):
    return torch.softmax(torch.sin(x) * 3, dim=-1).sum(0)


x = torch.arange(24.0).reshape(4, 6)
first = torch.compile(f)(x)
torch._dynamo.reset()
second = torch.compile(f)(x)
counts = torch._dynamo.utils.counters["inductor"]
print(counts["fxgraph_cache_hit"] + counts["fxgraph_cache_miss"] == 2)
print(counts["fxgraph_cache_hit"] >= 1)
print(torch.allclose(first, f(x)) and torch.equal(first, second))
