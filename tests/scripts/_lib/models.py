# Small models the training programs share: a two-layer MLP, a LayerNorm/GELU/softmax/cross-entropy block, a
# causal attention block and GPT-2 (tests/bench/aot_training_bench.py's, at any size).
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
        mask = torch.ones(t, t, device=x.device).tril() == 0
        att = att.masked_fill(mask, -1e9).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return x + self.proj(y)


class GPT2Block(nn.Module):
    """Pre-LayerNorm block: fused qkv split into heads, causal scaled_dot_product_attention, tanh-GELU MLP."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.attn_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.attn_proj(y.transpose(1, 2).contiguous().view(b, t, d))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """GPT2(layers, d, heads, context, vocab)(idx [B, T], targets [B, T]) -> loss: learned positions, the head tied to
    the token embedding, GPT-2's initialisation (normal, std 0.02; zero biases), no dropout."""

    def __init__(self, layers, d, heads, context, vocab):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        self.h = nn.ModuleList([GPT2Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                torch.nn.init.zeros_(module.bias)

    def forward(self, idx, targets):
        b, t = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(0, t, dtype=torch.long, device=idx.device))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
