# Training-step benchmark for AOT Autograd: forward + backward + optimizer step of two models, eager and compiled
# (aot_eager, the inductor, and the inductor with compiled autograd), median step time and the first compiled step (compile included). One script for
# both engines: `python3 -c 'import aot_training_bench as b; b.main("SPEC")'` (PyTorch) and
# `cwb run aot_training_bench.py --device SPEC` (cwb calls main(SPEC)).
# SPEC: comma-separated tokens: cpu | cuda, iters=N (default 20), warmup=N (default 3).
# Output: RESULT <impl> <model> <mode> median_ms=<x> first_s=<y> loss=<z>
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 512)
        self.fc2 = nn.Linear(512, 512)
        self.fc3 = nn.Linear(512, 10)

    def forward(self, x, y):
        h = F.relu(self.fc1(x))
        h = F.gelu(self.fc2(h))
        return F.cross_entropy(self.fc3(h), y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(128)
        self.qkv_q = nn.Linear(128, 128)
        self.qkv_k = nn.Linear(128, 128)
        self.qkv_v = nn.Linear(128, 128)
        self.proj = nn.Linear(128, 128)
        self.ln2 = nn.LayerNorm(128)
        self.up = nn.Linear(128, 512)
        self.down = nn.Linear(512, 128)
        self.head = nn.Linear(128, 64)

    def forward(self, x, y):
        b, t, c = x.shape
        h = self.ln1(x)
        q = self.qkv_q(h).view(b, t, 4, 32).transpose(1, 2)
        k = self.qkv_k(h).view(b, t, 4, 32).transpose(1, 2)
        v = self.qkv_v(h).view(b, t, 4, 32).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * 0.1767766952966369
        att = att.masked_fill(torch.ones(t, t).tril() == 0, -1e9).softmax(dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))
        x = x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))
        return F.cross_entropy(self.head(x).view(b * t, 64), y)


def median(values):
    s = sorted(values)
    return s[len(s) // 2]


def forward_backward(model, *inputs):
    loss = model(*inputs)
    loss.backward()
    return loss


def bench(make, inputs, mode, cfg):
    torch._dynamo.reset()  # each mode compiles afresh (the cache is per code object, whatever the backend)
    torch.manual_seed(0)
    model = make()
    # compiled_autograd: forward and backward in one compiled function, the backward captured as a graph of its own
    torch._dynamo.config.compiled_autograd = mode == "compiled_autograd"
    if mode == "compiled_autograd":
        compiled = torch.compile(forward_backward, backend="inductor")
        step_fn = lambda *xs: compiled(model, *xs)
    else:
        run = model if mode == "eager" else torch.compile(model, backend=mode)
        step_fn = lambda *xs: forward_backward(run, *xs)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    times = []
    loss = None
    for i in range(cfg["warmup"] + cfg["iters"]):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = step_fn(*inputs)
        opt.step()
        times.append(time.perf_counter() - t0)
    torch._dynamo.config.compiled_autograd = False
    return median(times[cfg["warmup"]:]) * 1000.0, times[0], float(loss)


def main(spec="cpu"):
    cfg = {"iters": 20, "warmup": 3}
    for token in spec.split(","):
        if token.startswith("iters="):
            cfg["iters"] = int(token[6:])
        elif token.startswith("warmup="):
            cfg["warmup"] = int(token[7:])
    torch.manual_seed(1)
    workloads = [
        ("mlp", MLP, (torch.randn(64, 256), torch.randint(0, 10, (64,)))),
        ("block", Block, (torch.randn(4, 32, 128), torch.randint(0, 64, (128,)))),
    ]
    for name, make, inputs in workloads:
        for mode in ["eager", "aot_eager", "inductor", "compiled_autograd"]:
            ms, first, loss = bench(make, inputs, mode, cfg)
            print(f"RESULT {IMPL} {name} {mode} median_ms={ms:.3f} first_s={first:.3f} loss={loss:.4f}")

