# y = relu(2x) in place, so dy/dx = 2 where x > 0; z = x * x; torch.autograd.backward sums both roots' grads.
# expect: [4.0, -4.0, 5.0]
# expect: True True
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = F.relu(x * 2, inplace=True)
z = x * x
torch.autograd.backward([y.sum(), z], [None, torch.tensor([1.0, 1.0, 0.5])])
print(x.grad.tolist())
model = nn.Sequential(nn.Linear(4, 3), nn.GELU(), nn.LayerNorm(3), nn.Linear(3, 2))
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
data = torch.sin(torch.arange(20, dtype=torch.float32).reshape(5, 4))
target = torch.tensor([0, 1, 1, 0, 1])
first = None
for step in range(30):
    opt.zero_grad()
    loss = F.cross_entropy(model(data), target)
    loss.backward()
    opt.step()
    first = loss.item() if first is None else first
print(loss.item() < first, all(p.grad is not None for p in model.parameters()))
