# Compiled optimizer-step benchmark: torch.compile(opt.step) against the eager step for a model of 20 parameters
# (10 linear layers of different widths), SGD with momentum, Adam and AdamW, median step time. One script for both
# engines: `python3 -c 'import optimizer_step_bench as b; b.main("SPEC")'` (PyTorch) and
# `cwb run optimizer_step_bench.py --device SPEC --trace steps.db` (the trace holds each step graph's kernels).
# SPEC: comma-separated tokens: cpu | cuda, iters=N (default 50), warmup=N (default 3), modes=eager+inductor (the
# default); gpt2: instead, AdamW(fused=True)
# over the 148 parameters of GPT-2 small's layout (2 embeddings, 12 layers of 12 tensors, the final norm) at width
# d=N (default 32), vocab=N (256), positions=N (64): `d=768,vocab=50257,positions=1024` is GPT-2 small's 124M; the
# device is synchronised around each step on cuda (engine/aot/README.md).
# Output: RESULT <impl> <optimizer> <mode> median_ms=<x> first_s=<y> checksum=<z>
import time

import torch
import torch.nn as nn

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"
WIDTHS = [64, 96, 128, 160, 192, 224, 256, 192, 128, 64, 32]


def make_model(device):
    layers = [nn.Linear(WIDTHS[i], WIDTHS[i + 1]) for i in range(len(WIDTHS) - 1)]
    return nn.Sequential(*layers).to(device)


def gpt2_parameters(d, device, vocab, positions):
    """GPT-2 small's parameter shapes at width d (by default vocabulary 256 and 64 positions keep the tables small)."""
    shapes = [(vocab, d), (positions, d)]
    for _ in range(12):
        shapes += [(d,), (d,), (3 * d, d), (3 * d,), (d, d), (d,), (d,), (d,), (4 * d, d), (4 * d,), (d, 4 * d), (d,)]
    shapes += [(d,), (d,)]
    return [nn.Parameter(torch.randn(shape, device=device) * 0.02) for shape in shapes]


def make_optimizer(name, params):
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=1e-4, foreach=True)
    if name == "adam":
        return torch.optim.Adam(params, lr=1e-3, fused=True)
    if name == "gpt2_adamw":
        return torch.optim.AdamW(params, lr=1e-3, fused=True)
    return torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def median(values):
    s = sorted(values)
    return s[len(s) // 2]


def bench(name, mode, cfg, device):
    torch._dynamo.reset()
    torch.manual_seed(0)
    params = gpt2_parameters(cfg["d"], device, cfg["vocab"], cfg["positions"]) if name == "gpt2_adamw" else list(make_model(device).parameters())
    for p in params:
        p.grad = torch.randn(p.shape, device=device) * 0.01
    opt = make_optimizer(name, params)
    step = opt.step if mode == "eager" else torch.compile(opt.step, backend=mode)
    times = []
    for i in range(cfg["warmup"] + cfg["iters"]):
        sync(device)
        t0 = time.perf_counter()
        step()
        sync(device)  # the step's kernels included, not only their launches
        times.append(time.perf_counter() - t0)
    checksum = 0.0
    for p in params:
        checksum += float(p.detach().double().sum())
    return median(times[cfg["warmup"]:]) * 1000.0, times[0], checksum


def main(spec="cpu"):
    cfg = {"iters": 50, "warmup": 3, "d": 32, "vocab": 256, "positions": 64}
    names = ["sgd", "adam", "adamw"]
    modes = ["eager", "inductor"]
    device = "cpu"
    for token in spec.split(","):
        if token.startswith("iters="):
            cfg["iters"] = int(token[6:])
        elif token.startswith("warmup="):
            cfg["warmup"] = int(token[7:])
        elif token.startswith("d="):
            cfg["d"] = int(token[2:])
        elif token.startswith("vocab="):
            cfg["vocab"] = int(token[6:])
        elif token.startswith("positions="):
            cfg["positions"] = int(token[10:])
        elif token.startswith("modes="):
            modes = token[6:].split("+")
        elif token == "gpt2":
            names = ["gpt2_adamw"]
        elif token in ("cpu", "cuda"):
            device = token
    for name in names:
        for mode in modes:
            ms, first, checksum = bench(name, mode, cfg, device)
            print(f"RESULT {IMPL} {name} {mode} median_ms={ms:.3f} first_s={first:.3f} checksum={checksum:.3f}")
