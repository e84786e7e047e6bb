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
# A run that finds both entries from an earlier run counts no miss at all (no key), as a run with no hit counts none.
hits, misses = counts.get("fxgraph_cache_hit", 0), counts.get("fxgraph_cache_miss", 0)
print(hits + misses == 2)
print(hits >= 1)
print(torch.allclose(first, f(x)) and torch.equal(first, second))
