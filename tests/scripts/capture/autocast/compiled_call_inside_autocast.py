# A compiled model called inside `with torch.autocast(...)` (as training loops do): the graph has no autocast
# nodes, it is compiled under the autocast state of its first call; a call under another state computes as eager
# does under that state. A graph break inside an autocast block keeps the block's state for the eager part.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 8)
w = torch.randn(8, 8, requires_grad=True)

def model(x, w):
    return torch.softmax(x @ w, dim=-1).sum(), (x @ w).dtype

compiled = torch.compile(model)
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss, dtype = compiled(x, w)
    ref, ref_dtype = model(x, w)
# expect: torch.bfloat16 torch.bfloat16 True
print(dtype, ref_dtype, torch.allclose(loss, ref, rtol=0.01))
loss.backward()
g = w.grad.clone()
w.grad = None
ref.backward()
# expect: True torch.float32
print(torch.allclose(g, w.grad, rtol=0.02, atol=0.02), g.dtype)
# Outside autocast the same function computes in float32 again: Dynamo's GLOBAL_STATE guard recompiles it.
loss, dtype = compiled(x, w)
# expect: torch.float32 True
print(dtype, torch.allclose(loss, model(x, w)[0]))

def broken(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
        torch._dynamo.graph_break()
        z = y @ w
    return z.dtype, torch.is_autocast_enabled("cpu")

# expect: torch.bfloat16 False
print(*torch.compile(broken)(x, w))
# expect: False
print(torch.is_autocast_enabled("cpu"))
# expect recompiles: 1
# expect log: GLOBAL_STATE changed: autocast(cpu)_enabled
