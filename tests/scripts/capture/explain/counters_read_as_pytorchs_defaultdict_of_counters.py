# torch._dynamo.utils.counters is PyTorch's defaultdict(Counter): scripts read a group or a count that nothing has
# bumped yet (a cache miss in a run that only hit, a break count of a frame without breaks) and get 0, not KeyError.
# expect: 0
# expect: defaultdict Counter
# expect: 2 1 0
# expect: True
# expect graph_breaks: 1
import torch
from torch._dynamo.utils import counters

print(counters["inductor"]["fxgraph_cache_miss"])
print(type(counters).__name__, type(counters["stats"]).__name__)


@torch.compile
def f(x):
    y = x + 1
    torch._dynamo.graph_break()
    return y * 2


out = f(torch.ones(3))
print(counters["stats"]["unique_graphs"], sum(counters["graph_break"].values()), counters["never"]["bumped"])
print(torch.equal(out, (torch.ones(3) + 1) * 2))
