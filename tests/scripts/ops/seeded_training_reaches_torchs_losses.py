# Training from torch.manual_seed reaches real torch 2.11's losses: GPT-2 tiny (normal_ init, randint batches, AdamW)
# and an MLP with PyTorch's default Linear init, Dropout and randn batches (SGD), eagerly. The expected lines are real
# torch's losses (CPU, the H100 host; to 6 decimals they are 6.246935 6.246631 ... and 2.311579 2.318983 ..., cwb's
# within 1e-6 of them).
import torch
import torch.nn as nn
from _lib.models import GPT2

torch.manual_seed(1337)
model = GPT2(2, 64, 4, 64, 512)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
losses = []
for step in range(8):
    idx = torch.randint(0, 512, (4, 64))
    tgt = torch.randint(0, 512, (4, 64))
    loss = model(idx, tgt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
print("GPT2", " ".join(f"{x:.4f}" for x in losses))
# expect: GPT2 6.2469 6.2466 6.2499 6.2672 6.2413 6.2505 6.2424 6.2659

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 10))
sgd = torch.optim.SGD(mlp.parameters(), lr=0.1)
losses = []
for step in range(8):
    x = torch.randn(16, 32)
    y = torch.randint(0, 10, (16,))
    loss = nn.functional.cross_entropy(mlp(x), y)
    sgd.zero_grad()
    loss.backward()
    sgd.step()
    losses.append(loss.item())
print("MLP", " ".join(f"{x:.4f}" for x in losses))
# expect: MLP 2.3116 2.3190 2.3726 2.3476 2.4850 2.3746 2.2077 2.2627
