# Training-step benchmark for AOT Autograd: forward + backward + optimizer step of two models, eager and compiled
# (aot_eager and the inductor), median step time and the first compiled step (compile included). One script for
# both engines: `python3 aot_training_bench.py [SPEC]` (PyTorch) and `cwb run aot_training_bench.py --device SPEC`.
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


def bench(make, inputs, mode, cfg):
    torch.manual_seed(0)
    model = make()
    step_fn = model if mode == "eager" else torch.compile(model, backend=mode)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    times = []
    loss = None
    for i in range(cfg["warmup"] + cfg["iters"]):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = step_fn(*inputs)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
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
        for mode in ["eager", "aot_eager", "inductor"]:
            ms, first, loss = bench(make, inputs, mode, cfg)
            print(f"RESULT {IMPL} {name} {mode} median_ms={ms:.3f} first_s={first:.3f} loss={loss:.6f}")


if __name__ == "__main__":
    import sys
    main(sys.argv[1] if len(sys.argv) > 1 else "cpu")
