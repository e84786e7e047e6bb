# Autocast's weight-cast cache inside a compiled region: a weight (a float32 leaf that requires grad) written in
# place within the region is still read through the bfloat16 copy made before the write, as eagerly (that graph
# runs on the eager runtime, which keeps the cache); with cache_enabled=False the second read casts afresh, as
# eagerly. A weight read twice in a region is one cast in the AOT graph (its last use), whose gradient sums both
# uses, equal to eager's.
# expect: True True True
# expect: False True True
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
# expect code_count 2: Reason: AOT Autograd: in-place add_ on l_w_
# expect graph: to_1: "bf16[4, 4][4, 1]cpu" = primals_2.to(torch.bfloat16);  primals_2 = None
import torch
import torch.nn.functional as F
from _lib.eager_comparison import same_as_eager


def update_between_reads(x, w, cache):
    with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=cache):
        a = F.linear(x, w)
        with torch.no_grad():
            w.add_(1.0)
        b = F.linear(x, w)
    return a, b


def read_twice(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return (F.linear(x, w) * F.linear(x * 2, w)).float().sum()


torch.manual_seed(0)
x = torch.randn(2, 4)
for cache in [True, False]:
    torch.manual_seed(1)
    w = torch.randn(4, 4, requires_grad=True)
    v = w.detach().clone().requires_grad_(True)
    a, b = update_between_reads(x, w, cache)
    ca, cb = torch.compile(update_between_reads)(x, v, cache)
    print(torch.equal(a, b), torch.equal(a, ca), torch.equal(b, cb))


def gradients(fn):
    torch.manual_seed(2)
    w = torch.randn(4, 4, requires_grad=True)
    loss = fn(x, w)
    loss.backward()
    return [loss.detach(), w.grad]


print(same_as_eager([gradients(read_twice), gradients(torch.compile(read_twice))], 1e-2))
