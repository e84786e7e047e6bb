# c_attn's weight gradient (issue 15 item 7): Linear(768, 2304) on [8, 1024, 768] under bf16 autocast, compiled, run
# with CWB_PROFILE_STEPS=1, then the same product eagerly. `cwb run c_attn_weight_gradient.py --device cuda,VARIANT`
# (VARIANT: linear, split, ln_split: layer norm, split, flash attention in front); `cpu,small,VARIANT` checks it runs.
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

def main(spec="cuda"):
    tokens = spec.split(",")
    device = tokens[0]
    small = "small" in tokens
    variant = tokens[-1] if len(tokens) > 1 and tokens[-1] != "small" else "linear"
    B, T, D, H = (2, 64, 64, 4) if small else (8, 1024, 768, 12)
    torch.manual_seed(0)


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(D)
            self.c_attn = nn.Linear(D, 3 * D)

        def forward(self, x):
            h = self.ln(x) if "ln" in variant else x
            y = self.c_attn(h)
            if "split" in variant:
                q, k, v = y.split(D, dim=2)
                q = q.view(B, T, H, D // H).transpose(1, 2)
                k = k.view(B, T, H, D // H).transpose(1, 2)
                v = v.view(B, T, H, D // H).transpose(1, 2)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).contiguous().view(B, T, D)
            return y.float().square().mean()


    model = Model().to(device)
    run = torch.compile(model)
    x = torch.randn(B, T, D, device=device)


    def sync():
        if device == "cuda":
            torch.cuda.synchronize()


    for i in range(4):
        with torch.autocast(device, dtype=torch.bfloat16):
            loss = run(x)
        loss.backward()
    sync()
    start = time.perf_counter()
    for i in range(10):
        with torch.autocast(device, dtype=torch.bfloat16):
            loss = run(x)
        loss.backward()
    sync()
    print(f"CATT {variant} compiled forward+backward {(time.perf_counter() - start) * 100:.3f} ms a step")

    g = torch.randn(B * T, 3 * D, device=device).bfloat16()
    h = torch.randn(B * T, D, device=device).bfloat16()
    parts = [torch.randn(B * T, D, device=device).bfloat16() for i in range(3)]
    cat = torch.cat(parts, 1)
    # Several operands in turn, so that none stays in the L2 cache between calls, as in a training step.
    many = [torch.randn(B * T, 3 * D, device=device).bfloat16() for i in range(4)]
    cases = (("g.t() (view)", lambda i: g.t()), ("g.t().contiguous()", lambda i: g.t().contiguous()),
             ("cat(q, k, v).t()", lambda i: cat.t()), ("4 operands in turn, .t()", lambda i: many[i % 4].t()))
    for name, a in cases:
        for i in range(3):
            w = a(i) @ h
        sync()
        start = time.perf_counter()
        for i in range(20):
            w = a(i) @ h
        sync()
        print(f"CATT eager {name} @ h {(time.perf_counter() - start) * 50:.4f} ms a call")
