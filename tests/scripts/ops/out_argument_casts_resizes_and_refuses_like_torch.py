# out= in eager code follows PyTorch: the result is cast into the out tensor's dtype, an out tensor of another shape
# is resized to the result's, and a result it cannot hold (float into long) or a differentiable call raises
# PyTorch's errors.
# expect: [2.0, 2.0] torch.float64 True
# expect: torch.Size([2, 3]) [4.0, 4.0, 4.0]
# expect: result type Float can't be cast to the desired output type Long
# expect: mul(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.
# expect: [2.0, 2.0] False
import torch

out = torch.zeros(2, dtype=torch.float64)
r = torch.add(torch.ones(2), 1, out=out)
print(out.tolist(), out.dtype, r.dtype == out.dtype)
small = torch.empty(0)
torch.mul(torch.full((2, 3), 2.0), 2, out=small)
print(small.shape, small[0].tolist())
try:
    torch.add(torch.ones(2), 1, out=torch.zeros(2, dtype=torch.long))
except RuntimeError as e:
    print(e)
w = torch.ones(2, requires_grad=True)
try:
    torch.mul(w, 2, out=torch.zeros(2))
except RuntimeError as e:
    print(e)
with torch.no_grad():
    held = torch.zeros(2)
    torch.mul(w, 2, out=held)
print(held.tolist(), held.requires_grad)
