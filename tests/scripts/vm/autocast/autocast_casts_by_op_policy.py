# torch.autocast on the cpu, eagerly: matrix products run in the autocast dtype, losses in float32, other ops in
# their inputs' dtypes; nesting, enabled=False, the decorator form, torch.amp.autocast and the state functions.
import torch
torch.manual_seed(0)
x = torch.randn(4, 8)
w = torch.randn(8, 3)
# expect: False torch.bfloat16
print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    # expect: True torch.bfloat16
    print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    y = x @ w
    # expect: torch.bfloat16 torch.bfloat16 torch.bfloat16
    print(y.dtype, torch.mm(x, w).dtype, torch.nn.functional.linear(x, w.t()).dtype)
    # expect: torch.bfloat16 torch.float32
    print(torch.softmax(y, dim=-1).dtype, (y + x[:, :3]).dtype)
    # expect: torch.float32
    print(torch.nn.functional.cross_entropy(y, torch.tensor([0, 1, 2, 0])).dtype)
    # expect: torch.float32 torch.float64
    print(torch.cat([y, x[:, :3]]).dtype, (x.double() @ w.double()).dtype)
    with torch.autocast("cpu", enabled=False):
        # expect: torch.float32 False
        print((x @ w).dtype, torch.is_autocast_enabled("cpu"))
    # expect: True
    print(torch.is_autocast_enabled("cpu"))
# expect: False torch.float32
print(torch.is_autocast_enabled("cpu"), (x @ w).dtype)

@torch.autocast("cpu")
def product(a, b):
    return a @ b

# expect: torch.bfloat16 False
print(product(x, w).dtype, torch.is_autocast_enabled("cpu"))
with torch.amp.autocast("cpu", dtype=torch.float16):
    # expect: torch.float16 torch.float16
    print((x @ w).dtype, torch.get_autocast_dtype("cpu"))
# expect: torch.bfloat16
print(torch.get_autocast_dtype("cpu"))

# The casts are recorded by autograd: the gradient comes back in the leaf's dtype.
x.requires_grad_(True)
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = (x @ w).float().sum()
loss.backward()
# expect: torch.float32 True
print(x.grad.dtype, torch.allclose(x.grad, w.sum(1).expand(4, 8), atol=0.05))
