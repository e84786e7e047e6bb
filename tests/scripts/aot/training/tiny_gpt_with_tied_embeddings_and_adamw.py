# A GPT-2-style model: token and position embeddings with the token embedding tied to the output head, fused qkv
# split into heads, causal attention, LayerNorm, tanh-GELU MLP, cross_entropy over the flattened logits. Three
# AdamW steps compiled by the inductor equal eager (losses, the tied embedding and the first attention weights),
# in one AOT compile whose code is all generated.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
# expect code_files: cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels
import torch
import torch.nn as nn
import torch.nn.functional as F
from _lib.eager_comparison import same_as_eager


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // self.heads) ** 0.5)
        att = att.masked_fill(torch.ones(t, t).tril() == 0, -1e9)
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.c_proj(y)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab=50, d=32, layers=2, heads=4, block=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.h = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx, targets):
        b, t = idx.size()
        pos = torch.arange(0, t)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def train(backend):
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = GPT()
    step = torch.compile(model, backend=backend) if backend else model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    torch.manual_seed(1)
    idx = torch.randint(0, 50, (2, 16))
    targets = torch.randint(0, 50, (2, 16))
    out = []
    for i in range(3):
        opt.zero_grad()
        loss = step(idx, targets)
        loss.backward()
        opt.step()
        out.append(loss.detach())
    out.append(model.wte.weight.detach().clone())
    out.append(model.h[0].c_attn.weight.detach().clone())
    return out


print(same_as_eager([train(None), train("inductor")]))
