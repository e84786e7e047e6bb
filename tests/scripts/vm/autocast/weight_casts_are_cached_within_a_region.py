# Autocast's weight-cast cache, as PyTorch's cached_cast keeps it: within a region, the bfloat16 copy of a float32
# leaf that requires grad is made once, so an in-place update of the weight inside the region is not seen by later
# ops, until torch.clear_autocast_cache() or the outermost region's exit; cache_enabled=False, and tensors that are
# not leaves requiring grad, are cast afresh every time; leaving an inner region keeps the outer one's cache.
# expect: True
# expect: True False
# expect: True
# expect: False False
# expect: True
# expect: False
# expect: True
import torch
import torch.nn.functional as F

torch.manual_seed(0)
w = torch.randn(4, 4, requires_grad=True)
x = torch.randn(2, 4)
print(torch.is_autocast_cache_enabled())
with torch.autocast("cpu", dtype=torch.bfloat16):
    a = F.linear(x, w)
    with torch.no_grad():
        w.add_(1.0)
    b = F.linear(x, w)
    torch.clear_autocast_cache()
    c = F.linear(x, w)
    print(torch.equal(a, b), torch.equal(a, c))
with torch.autocast("cpu", dtype=torch.bfloat16):
    d = F.linear(x, w)
print(torch.equal(c, d))

with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
    enabled = torch.is_autocast_cache_enabled()
    e = F.linear(x, w)
    with torch.no_grad():
        w.sub_(1.0)
    f = F.linear(x, w)
print(enabled, torch.equal(e, f))
print(torch.is_autocast_cache_enabled())

v = torch.randn(4, 4)
with torch.autocast("cpu", dtype=torch.bfloat16):
    g = F.linear(x, v)
    v.add_(1.0)
    h = F.linear(x, v)
print(torch.equal(g, h))

with torch.autocast("cpu", dtype=torch.bfloat16):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        i = F.linear(x, w)
    with torch.no_grad():
        w.add_(1.0)
    j = F.linear(x, w)
print(torch.equal(i, j))
