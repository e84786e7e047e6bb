# Tensor queries and small tensor helpers in compiled code: is_contiguous and stride() over inputs that recompile,
# tensor.type() with a string and a legacy type, element_size in a branch, is_floating_point(input=), get_default_dtype, x.new(size), jit._unwrap_optional and jit.annotate, torch.Size as a
# dict key of a cache argument, hasattr of a Size, nn.Softmax made in the frame, F.avg_pool2d with padding,
# size()[:-1] + tuple for a view, torch.tensor(range(n)), indexing a list with a 0-d tensor.
from typing import Any

import torch
import torch.nn.functional as F


def layout(x):
    if x.is_contiguous():
        return x + 1
    elif x.stride(-1) == 1:
        return x + 2
    else:
        return x + 3


def queries(a, b):
    half = a.type("torch.HalfTensor")
    back = b.type(half.type())
    if a.element_size() > 2:
        e = a + a.element_size()
    else:
        e = a - a.element_size()
    fp = torch.is_floating_point(input=a) and torch.is_floating_point(back)
    same_default = a.dtype == torch.get_default_dtype()
    z = a.new(torch.Size([2, 3]))
    v = torch.jit._unwrap_optional(a)
    w = torch.jit.annotate(Any, v + 1)
    named = hasattr(a.shape, "_fields")
    return back.float() + e + w, z.shape[0] * z.shape[1] + float(fp) + float(same_default) + float(named)


def cached(x, cache):
    if x.shape not in cache:
        cache[x.shape] = x * 2
    return x + cache[x.shape]


def shapes(x, y):
    sm = torch.nn.Softmax(dim=-1)(x + y * 2)
    pooled = F.avg_pool2d(torch.unsqueeze(x, 0) * torch.unsqueeze(y, 1), kernel_size=2, padding=1)
    new_shape = x.size()[:-1] + (2, 2)
    heads = x.view(*new_shape).permute(0, 2, 1)
    r = torch.tensor(range(x.size(0)))
    rows = [x, y, x + y, x - y]
    pick = rows[torch.as_tensor(2)]
    return sm, pooled, heads, r, pick


opt_layout = torch.compile(layout, backend="eager")
opt_queries = torch.compile(queries, backend="eager")
opt_cached = torch.compile(cached, backend="eager")
opt_shapes = torch.compile(shapes, backend="eager")


def main(device):
    base = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32, device=device).reshape(2, 3, 4, 4) / 10.0
    inputs = [base[0, 0, 0], base, base.transpose(1, 3), base[0, 0, 0][::2],
              base[:, :, 1:-1, 1:-1]]
    outs = [opt_layout(t) for t in inputs]
    a = torch.linspace(-2.0, 2.0, 6, device=device)
    b = torch.linspace(0.1, 0.6, 6, device=device)
    q, qn = opt_queries(a, b)
    cache = {}
    c1 = opt_cached(a, cache)
    c2 = opt_cached(b, cache)
    x = torch.arange(16, dtype=torch.float32, device=device).reshape(4, 4) / 8.0
    y = torch.cos(x)
    return outs + [q, torch.tensor(float(qn)), c1, c2, torch.tensor(float(len(cache)))] + list(opt_shapes(x, y))
