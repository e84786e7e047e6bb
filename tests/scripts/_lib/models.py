# Small models the training programs share: a two-layer MLP, a LayerNorm/GELU/softmax/cross-entropy block and a
# causal attention block.
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    """MLP()(x [N, 16]) -> [N, 8]."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)) * 2.0 - torch.tanh(self.fc1(x)))


class Block(nn.Module):
    """Block()(x [N, 24], y [N] classes < 10) -> loss: LayerNorm, GELU (both forms), softmax, cross-entropy."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(24)
        self.up = nn.Linear(24, 48)
        self.down = nn.Linear(48, 10)

    def forward(self, x, y):
        h = F.gelu(self.up(self.norm(x)))
        h = h + F.gelu(h, approximate="tanh") * 0.5
        logits = self.down(h)
        p = torch.softmax(logits, dim=-1)
        return F.cross_entropy(logits, y) + (p * p).sum() * 0.01 - F.log_softmax(logits, dim=1).mean() * 0.1


class Attention(nn.Module):
    """Attention()(x [B, T, 16]) -> [B, T, 16]: LayerNorm, 4 heads of 4, a causal mask, a residual projection."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 16)
        self.v = nn.Linear(16, 16)
        self.proj = nn.Linear(16, 16)
        self.ln = nn.LayerNorm(16)

    def forward(self, x):
        b, t, c = x.shape
        h = self.ln(x)
        q = self.q(h).view(b, t, 4, 4).transpose(1, 2)
        k = self.k(h).view(b, t, 4, 4).transpose(1, 2)
        v = self.v(h).view(b, t, 4, 4).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * 0.5
        mask = torch.ones(t, t).tril() == 0
        att = att.masked_fill(mask, -1e9).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return x + self.proj(y)
